"""How cfnops configures DBOS: JSON serialisation, versions, the listener's pace.

The database itself (engine, SQLite pragmas, schema lock) is :mod:`cfnops.database`.
"""

from __future__ import annotations

import sqlalchemy as sa
from dbos import DBOSConfig

from cfnops._version import __version__
from cfnops.database import Database, create_tables, schema_lock
from cfnops.durable._dbos_port import portable_serializer

__all__ = [
    "APP_NAME",
    "COMMAND_LISTENER_POLL_SECONDS",
    "LISTENER_POLL_SECONDS",
    "check_schema",
    "create_tables",
    "dbos_config",
    "make_engine",
    "schema_lock",
]

APP_NAME = "cfnops"


def make_engine(url: str, *, pool_size: int = 20) -> sa.Engine:
    """A new engine on ``url``: prefer a :class:`cfnops.database.Database` you keep.

    Each call opens another pool; stores take the runtime's database instead.
    """
    return Database.open(url, pool_size=pool_size).engine


def check_schema(engine: sa.Engine) -> None:
    """Refuse a system database whose DBOS schema is newer than this DBOS knows."""
    from cfnops.database import SchemaTooNew, redact_url
    from cfnops.durable._dbos_port import schema_versions

    recorded, latest = schema_versions(engine)
    if recorded > latest:
        raise SchemaTooNew(
            redact_url(engine.url), f"schema version {recorded}, this cfnops knows up to {latest}"
        )


# How often DBOS's notification listener looks at SQLite (PostgreSQL pushes). Shutting
# down joins that thread, which notices only after its current sleep: a command ended
# ~50 ms (up to 0.1 s) later. Commands use 0.02 s: a wake-up with nothing waiting costs
# two dictionary snapshots, with a run waiting on DBOS.recv one small SELECT per waiter
# (~0.3 % of a core at 50 a second); long-running workers keep 0.1 s.
LISTENER_POLL_SECONDS = 0.1
COMMAND_LISTENER_POLL_SECONDS = 0.02


def dbos_config(
    url: str,
    executor_id: str,
    engine: sa.Engine | None,
    *,
    listener_poll_seconds: float = LISTENER_POLL_SECONDS,
) -> DBOSConfig:
    config: DBOSConfig = {
        "name": APP_NAME,
        "system_database_url": url,
        # Pinned so that editing code does not orphan runs; see docs/durable.md.
        "application_version": __version__,
        "executor_id": executor_id,
        "serializer": portable_serializer(),
        "log_level": "WARNING",
        "notification_listener_polling_interval_sec": listener_poll_seconds,
        # DBOS's own PostgreSQL engine: errors it logs never carry a run's input
        "db_engine_kwargs": {"hide_parameters": True},
    }
    if engine is not None:
        config["system_database_engine"] = engine
    return config

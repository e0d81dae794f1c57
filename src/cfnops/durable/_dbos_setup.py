"""How cfnops configures DBOS: database engine, JSON serialisation, versions.

SQLite runs in WAL mode with ``synchronous=NORMAL``. Measured on this machine:
DBOS's default rollback journal costs ~6.6 ms per checkpointed step; WAL with
NORMAL costs ~2.4 ms. WAL with NORMAL loses no committed transaction when a
process is killed (only an OS crash or power loss can drop the last commits),
which is the failure model cfnops promises to survive.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

import sqlalchemy as sa
from dbos import DBOSConfig

from cfnops._version import __version__
from cfnops.durable._dbos_port import portable_serializer

APP_NAME = "cfnops"


def is_sqlite(url: str) -> bool:
    return url.startswith("sqlite:")


def sqlalchemy_url(url: str) -> str:
    """Our URL → SQLAlchemy's (psycopg 3 for PostgreSQL)."""
    if url.startswith("postgresql://"):
        return "postgresql+psycopg://" + url[len("postgresql://") :]
    return url


def make_engine(url: str, *, pool_size: int = 20) -> sa.Engine:
    """A SQLAlchemy engine for the durable database (creating the SQLite folder)."""
    if is_sqlite(url):
        from cfnops.durable._sqlite_files import prepare_sqlite_file

        prepare_sqlite_file(url[len("sqlite:///") :])
        engine = sa.create_engine(url, pool_size=pool_size, max_overflow=pool_size)

        @sa.event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            # As DBOS's own SQLite engine does (IMMEDIATE writers, busy timeout,
            # foreign keys), plus WAL and NORMAL sync: see the module docstring.
            dbapi_conn.isolation_level = "IMMEDIATE"
            dbapi_conn.execute("PRAGMA busy_timeout=30000")
            dbapi_conn.execute("PRAGMA foreign_keys=ON")
            dbapi_conn.execute("PRAGMA journal_mode=WAL")
            dbapi_conn.execute("PRAGMA synchronous=NORMAL")

        return engine
    return sa.create_engine(sqlalchemy_url(url), pool_size=pool_size, max_overflow=pool_size)


# Any constant will do: it names the lock, shared by every cfnops process.
_SCHEMA_LOCK_KEY = 0x6366_6E6F_7073


@contextmanager
def schema_lock(engine: sa.Engine) -> Iterator[None]:
    """Serialise schema creation among processes starting at once on PostgreSQL.

    Two workers launched together on a fresh database would otherwise both run
    DBOS's migrations (and create ``cfnops_executors``) and one would fail.
    SQLite needs nothing: its migrations take the database's write lock.
    """
    if engine.dialect.name != "postgresql":
        yield
        return
    # A session-level lock taken by polling in AUTOCOMMIT: neither an open
    # transaction nor a blocked statement may hold a snapshot while the lock is
    # waited for, or DBOS's CREATE INDEX CONCURRENTLY in the holder waits for it
    # (a deadlock PostgreSQL does not detect).
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        take = sa.text("SELECT pg_try_advisory_lock(:k)")
        while not conn.execute(take, {"k": _SCHEMA_LOCK_KEY}).scalar():
            time.sleep(0.2)
        try:
            yield
        finally:
            conn.execute(sa.text("SELECT pg_advisory_unlock(:k)"), {"k": _SCHEMA_LOCK_KEY})


def create_tables(engine: sa.Engine, metadata: sa.MetaData, *, lock: bool = True) -> None:
    """Create ``metadata``'s tables and indexes that do not exist yet, safe at once.

    ``metadata.create_all`` checks and then creates: two processes starting together on a
    fresh database (two workers, or a worker and a command) both see no table and one
    fails with "table already exists". ``IF NOT EXISTS`` makes the create itself the
    check on SQLite; on PostgreSQL the schema lock serialises the creators (``lock=False``
    when the caller already holds it: the lock is per connection, taking it again waits
    forever).
    """
    with schema_lock(engine) if lock else nullcontext(), engine.begin() as conn:
        for table in metadata.sorted_tables:
            conn.execute(sa.schema.CreateTable(table, if_not_exists=True))
            for index in table.indexes:
                conn.execute(sa.schema.CreateIndex(index, if_not_exists=True))


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
    }
    if engine is not None:
        config["system_database_engine"] = engine
    return config

"""PostgreSQL: several workers on one server, schema creation under an advisory lock."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar

import sqlalchemy as sa

from cfnops.database._base import Database

__all__ = ["PostgresDatabase"]

# Any constant will do: it names the lock, shared by every cfnops process.
_SCHEMA_LOCK_KEY = 0x6366_6E6F_7073


class PostgresDatabase(Database):
    """``postgresql://…``: driven by psycopg 3."""

    dialect: ClassVar[str] = "postgresql"
    dbos_schema: ClassVar[str | None] = "dbos"

    def sqlalchemy_url(self) -> str:
        if self.url.startswith("postgresql://"):
            return "postgresql+psycopg://" + self.url[len("postgresql://") :]
        return self.url

    def _prepare(self) -> None:
        pass  # the server and database exist (DBOS creates its schema on launch)

    def _on_connect(self, dbapi_conn: Any) -> None:
        pass

    @classmethod
    @contextmanager
    def _schema_lock(cls, engine: sa.Engine) -> Iterator[None]:
        """Serialise schema creation among processes starting at once.

        Two workers launched together on a fresh database would otherwise both run
        DBOS's migrations (and create ``cfnops_executors``) and one would fail.
        A session-level lock taken by polling in AUTOCOMMIT: neither an open
        transaction nor a blocked statement may hold a snapshot while the lock is
        waited for, or DBOS's CREATE INDEX CONCURRENTLY in the holder waits for it
        (a deadlock PostgreSQL does not detect).
        """
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            take = sa.text("SELECT pg_try_advisory_lock(:k)")
            while not conn.execute(take, {"k": _SCHEMA_LOCK_KEY}).scalar():
                time.sleep(0.2)
            try:
                yield
            finally:
                conn.execute(sa.text("SELECT pg_advisory_unlock(:k)"), {"k": _SCHEMA_LOCK_KEY})

"""The database handle: one SQLAlchemy engine per URL, schema lock, table creation.

The shape follows dbos's system database: a base class owns everything the two
backends share and asks its adapter (:class:`~cfnops.database.SqliteDatabase`,
:class:`~cfnops.database.PostgresDatabase`) for a few primitives: the SQLAlchemy
URL, what to prepare before the first connection, what to run on each new
connection, and how processes serialise schema creation.
"""

from __future__ import annotations

import threading
import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any, ClassVar

import sqlalchemy as sa

__all__ = ["Database", "create_tables", "schema_lock"]


class Database(ABC):
    """One run database (SQLite file or PostgreSQL server): its single engine.

    Runs, job-nets, accepted drift and the audit trail all live here. Build it once
    per process (a :class:`cfnops.runtime.Runtime` does) and hand it to every store:
    opening a store never builds an engine. Tables are declared by their owners
    (``sa.MetaData``) and created through :meth:`ensure`, once per handle::

        db = Database.open("sqlite:////tmp/cfnops.db")
        engine = db.ensure(my_metadata)   # CREATE TABLE IF NOT EXISTS, once
    """

    dialect: ClassVar[str]
    # Where DBOS keeps its tables (``workflow_status`` …): a schema on PostgreSQL.
    dbos_schema: ClassVar[str | None] = None

    def __init__(self, url: str, *, pool_size: int = 20) -> None:
        self.url = url
        self.pool_size = pool_size
        self._engine: sa.Engine | None = None
        self._ensured: set[int] = set()
        self._marks: set[str] = set()
        self._lock = threading.Lock()
        self._ensuring = threading.Lock()

    @staticmethod
    def open(url: str, *, pool_size: int = 20) -> Database:
        """The adapter for ``url`` (``sqlite:///…`` or ``postgresql://…``); no connection yet."""
        if url.startswith("sqlite:"):
            from cfnops.database._sqlite import SqliteDatabase

            return SqliteDatabase(url, pool_size=pool_size)
        from cfnops.database._postgres import PostgresDatabase

        return PostgresDatabase(url, pool_size=pool_size)

    # -- the adapter's primitives ------------------------------------------------

    @abstractmethod
    def sqlalchemy_url(self) -> str:
        """The URL as SQLAlchemy takes it (driver included)."""

    @abstractmethod
    def _prepare(self) -> None:
        """Run once before the engine is built (e.g. create the SQLite file)."""

    @abstractmethod
    def _on_connect(self, dbapi_conn: Any) -> None:
        """Run on every new DB-API connection (pragmas)."""

    @classmethod
    @abstractmethod
    def _schema_lock(cls, engine: sa.Engine) -> AbstractContextManager[None]:
        """Serialise schema creation among processes sharing the database."""

    # -- shared behaviour ----------------------------------------------------------

    @property
    def is_sqlite(self) -> bool:
        return self.dialect == "sqlite"

    @property
    def engine(self) -> sa.Engine:
        """The engine (built on first use, then shared by every store of the process)."""
        if self._engine is None:
            with self._lock:
                if self._engine is None:
                    self._engine = self._build()
        return self._engine

    def _build(self) -> sa.Engine:
        # The only sa.create_engine of cfnops: every store, the durable engine's
        # leases and DBOS's SQLite system database share what it returns.
        self._prepare()
        # hide_parameters: an error's text (logged by DBOS, or a traceback) never carries
        # a statement's values, which hold runs' definitions and inputs
        engine = sa.create_engine(
            self.sqlalchemy_url(),
            pool_size=self.pool_size,
            max_overflow=self.pool_size,
            hide_parameters=True,
        )
        on_connect: Callable[[Any], None] = self._on_connect
        sa.event.listen(engine, "connect", lambda conn, _record: on_connect(conn))
        # A handle nobody keeps (a store opened on settings) closes its pool with it.
        weakref.finalize(self, engine.dispose)
        return engine

    def schema_lock(self) -> AbstractContextManager[None]:
        """Hold the schema lock (see the adapter) around a migration."""
        return self._schema_lock(self.engine)

    def ensure(
        self, metadata: sa.MetaData, *, after: Callable[[sa.Engine], None] | None = None
    ) -> sa.Engine:
        """Create ``metadata``'s missing tables, once per handle; the engine.

        ``after`` runs once per handle under the schema lock, after the tables exist
        (triggers, a data move between versions): it must be idempotent.
        """
        engine = self.engine
        key = id(metadata)
        if key in self._ensured:
            return engine
        with self._ensuring:
            if key in self._ensured:
                return engine
            existing = set(sa.inspect(engine).get_table_names(schema=metadata.schema))
            missing = any(t.name not in existing for t in metadata.sorted_tables)
            if missing or after is not None:
                with self._schema_lock(engine):
                    if missing:
                        create_tables(engine, metadata, lock=False)
                    if after is not None:
                        after(engine)
            self._ensured.add(key)
        return engine

    def marked(self, mark: str) -> bool:
        """Whether :meth:`mark` was called with ``mark`` on this handle since its pool was
        built: a check made once per handle (a schema found and verified) is not made again
        for every store opened on it."""
        return mark in self._marks

    def mark(self, mark: str) -> None:
        self._marks.add(mark)

    def has_table(self, name: str, *, schema: str | None = None) -> bool:
        return sa.inspect(self.engine).has_table(name, schema=schema)

    def dispose(self) -> None:
        """Close the pool (a new one is built on the next use)."""
        with self._lock:
            engine, self._engine = self._engine, None
            self._ensured.clear()
            self._marks.clear()
        if engine is not None:
            engine.dispose()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.url.split('@')[-1]!r})"


def _adapter_of(engine: sa.Engine) -> type[Database]:
    if engine.dialect.name == "postgresql":
        from cfnops.database._postgres import PostgresDatabase

        return PostgresDatabase
    from cfnops.database._sqlite import SqliteDatabase

    return SqliteDatabase


@contextmanager
def schema_lock(engine: sa.Engine) -> Iterator[None]:
    """The schema lock of ``engine``'s backend (for code holding only an engine)."""
    with _adapter_of(engine)._schema_lock(engine):
        yield


def create_tables(
    engine: sa.Engine,
    metadata: sa.MetaData,
    *,
    lock: bool | AbstractContextManager[None] = True,
) -> None:
    """Create ``metadata``'s tables and indexes that do not exist yet, safe at once.

    ``metadata.create_all`` checks and then creates: two processes starting together on a
    fresh database (two workers, or a worker and a command) both see no table and one
    fails with "table already exists". ``IF NOT EXISTS`` makes the create itself the
    check on SQLite; on PostgreSQL the schema lock serialises the creators (``lock=False``
    when the caller already holds it: the lock is per connection, taking it again waits
    forever).
    """
    if lock is True:
        held: AbstractContextManager[None] = schema_lock(engine)
    elif lock is False:
        held = nullcontext()
    else:
        held = lock
    with held, engine.begin() as conn:
        for table in metadata.sorted_tables:
            conn.execute(sa.schema.CreateTable(table, if_not_exists=True))
            for index in table.indexes:
                conn.execute(sa.schema.CreateIndex(index, if_not_exists=True))


def upsert(
    conn: sa.Connection, table: sa.Table, rows: list[dict[str, Any]] | dict[str, Any]
) -> None:
    """Insert ``rows``, replacing any with the same primary key: one statement where a
    delete and an insert took two (SQLite and PostgreSQL both have ``ON CONFLICT``)."""
    conn.execute(_upsert_statement(conn.dialect.name, table), rows)


_UPSERTS: dict[tuple[str, sa.Table], sa.Insert] = {}


def _upsert_statement(dialect: str, table: sa.Table) -> sa.Insert:
    """The ``INSERT … ON CONFLICT DO UPDATE`` of ``table``, built once per dialect (building
    it — the ``excluded`` alias and its columns — cost more than running it)."""
    found = _UPSERTS.get((dialect, table))
    if found is not None:
        return found
    from sqlalchemy.dialects import postgresql, sqlite

    keys = [c.name for c in table.primary_key.columns]
    statement = postgresql.insert(table) if dialect == "postgresql" else sqlite.insert(table)
    others = {c.name: statement.excluded[c.name] for c in table.columns if c.name not in keys}
    found = statement.on_conflict_do_update(index_elements=keys, set_=others)
    _UPSERTS[(dialect, table)] = found
    return found

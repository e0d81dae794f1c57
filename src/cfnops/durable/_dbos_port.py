"""Every use of DBOS's private internals, behind a few functions.

cfnops uses DBOS's public API (``DBOS``, ``DBOSClient``, ``DBOSConfig``) everywhere
else. What it needs that has no public form in DBOS 3.4:

- claiming one run for a queue of cfnops's choosing, conditionally on who holds it (a
  dead executor's run for the workers' queue, a run stopped here for this process's own
  queue): ``SystemDatabase.tables`` and ``_now_ms_sql``, as DBOS's recovery re-enqueue
  does; DBOS's own re-enqueue uses its internal queue, which *every* DBOS process
  dequeues from, so a run put there could be taken by a process not made for it;
- a queue only this process dequeues from (``DBOSRegistry._register_internal_queue``:
  DBOS's in-memory queues are listened to by the process that registered them alone);
- ownership fencing of cfnops's own checkpoints: the execution's token
  (``current_owner_xid``), checked in the checkpoint's transaction as DBOS's own
  ``SystemDatabase._check_owner_txn`` checks it (the same statement, issued as plain
  SQL: ``workflow_status.owner_xid`` of the run, its row locked to the commit), and the
  exception with which DBOS parks an execution that lost its run
  (``DBOSWorkflowConflictIDError``);
- how many workflows this process executes (so a shutdown with none in flight
  does not sleep DBOS's whole-second grace period): ``DBOS._active_workflows_set``;
- the portable JSON serializer (``dbos._serialization.DBOSPortableJSONSerializer``),
  so that step results are plain JSON any process (and ``runs show``) can read;
- stopping an execution without recording an outcome (``DBOSWorkflowCancelledError``),
  for a run stopped by a storage fault (:mod:`cfnops.durable._stalls`);
- the system database's recorded and latest migration versions (``dbos._migration``), so
  a database written by a newer DBOS is refused by name (:class:`SchemaTooNew`).

It also imports DBOS itself (:func:`import_dbos`, first thing ``cfnops.durable`` does)
without modules it loads but a cfnops process does not use:

- its PostgreSQL driver: DBOS 3.4 imports ``psycopg`` at module level
  (``dbos/_utils.py``: ``import psycopg``; ``dbos/_sys_db.py``: ``from psycopg import
  errors``) although it only reads exception classes from it, and only when an error
  from PostgreSQL is classified. On SQLite that is ~60 ms of every command's start-up
  (``psycopg`` with its C extension) for a driver never used;
- PyYAML: ``dbos/_dbos_config.py`` imports ``yaml`` at module level to read a
  ``dbos-config.yaml``, which cfnops never has DBOS read (it passes its configuration
  in code): 18 modules, ~12 ms of a ``job run``.

While DBOS is imported, stand-in modules answer those imports; every attribute read
on one imports the real module and forwards to it, and they leave ``sys.modules`` as
soon as DBOS is loaded, so any later ``import psycopg`` (SQLAlchemy's PostgreSQL
dialect on a ``postgresql://`` URL, user code) or ``import yaml`` gets the real one.
A module already imported is used as it is. ``tests/durable/test_dbos_port.py``
checks both halves (not loaded on SQLite; the same objects as the real module's once
used).

A DBOS upgrade that moves or changes them must fail loudly, not silently stop
recovering runs: :func:`check_dbos` says exactly what changed, and
``tests/durable/test_dbos_port.py`` calls it. ``pyproject.toml`` pins DBOS to the
minor versions this was checked against.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import threading
import time
import types
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = [
    "TESTED_DBOS",
    "DbosIncompatible",
    "active_workflows",
    "check_dbos",
    "check_owner",
    "claim",
    "created_ms",
    "current_owner",
    "execution_token",
    "import_dbos",
    "lost_ownership",
    "migrate",
    "park",
    "portable_serializer",
    "private_queue",
    "release_private_queue",
    "schema_versions",
    "take_back",
]

# The DBOS releases this module was checked against (kept in step with pyproject.toml).
TESTED_DBOS = ("3.4",)

# The columns of DBOS's ``workflow_status`` the port's plain SQL names (the fence).
_STATUS_COLUMNS = ("workflow_uuid", "status", "owner_xid")


class DbosIncompatible(RuntimeError):
    """The installed DBOS no longer offers what cfnops relies on (a programming error)."""


# The modules DBOS imports at load time and uses only later, if ever (see above).
_DEFERRED = ("psycopg", "psycopg.errors", "yaml")
_lock = threading.Lock()


class _Deferred(types.ModuleType):
    """Stands in for a module until one of its attributes is read, then forwards."""

    def __getattr__(self, name: str) -> Any:  # only names the stand-in does not hold
        if name.startswith("__"):  # import-system probes (__path__, __file__, ...)
            raise AttributeError(name)
        _release()  # if still installed: the real module must come from the importer
        return getattr(importlib.import_module(self.__name__), name)


def _release() -> None:
    with _lock:
        for name in _DEFERRED:
            if isinstance(sys.modules.get(name), _Deferred):
                del sys.modules[name]


def _stand_ins() -> dict[str, _Deferred]:
    """Stand-ins for the deferred modules not imported yet (a package with its
    submodule, as ``from psycopg import errors`` reads it)."""
    stand_ins: dict[str, _Deferred] = {}
    if "psycopg" not in sys.modules and "psycopg.errors" not in sys.modules:
        package, errors = _Deferred("psycopg"), _Deferred("psycopg.errors")
        package.errors = errors  # type: ignore[attr-defined]  # `from psycopg import errors`
        stand_ins.update({"psycopg": package, "psycopg.errors": errors})
    if "yaml" not in sys.modules:
        stand_ins["yaml"] = _Deferred("yaml")
    return stand_ins


@contextmanager
def _deferred() -> Iterator[None]:
    stand_ins = _stand_ins()
    if not stand_ins:  # all already loaded: nothing to save
        yield
        return
    with _lock:
        sys.modules.update(stand_ins)
    try:
        yield
    finally:
        _release()


def import_dbos() -> None:
    """Import DBOS without loading its PostgreSQL driver nor PyYAML (see the module
    docstring)."""
    if "dbos" in sys.modules:
        return
    with _deferred():
        importlib.import_module("dbos")


import_dbos()  # on import: ``cfnops.durable`` imports this module before any other


def portable_serializer() -> Any:
    """DBOS's portable JSON serializer (results readable by any process)."""
    from dbos._serialization import DBOSPortableJSONSerializer

    return DBOSPortableJSONSerializer()


def private_queue(name: str, polling_interval_sec: float) -> None:
    """Make ``name`` a queue this process, and no other, dequeues from.

    DBOS's in-memory queues are polled by the process that registered them only (its
    database-backed ones by every process listening to them), so a run put on ``name``
    is executed here. Call after ``DBOS(config=…)`` and before ``DBOS.launch()``.
    """
    from dbos._dbos import _get_dbos_instance

    registry = _get_dbos_instance()._registry
    registry._register_internal_queue(name, polling_interval_sec=polling_interval_sec)


def release_private_queue(name: str) -> None:
    """Forget :func:`private_queue` ``name`` (DBOS's registry outlives one DBOS instance:
    a later engine in this process must not poll a queue of an executor that stopped)."""
    from dbos._dbos import _get_or_create_dbos_registry

    _get_or_create_dbos_registry().internal_queue_map.pop(name, None)


def schema_versions(engine: Any) -> tuple[int, int]:
    """(recorded, latest) DBOS migration versions of the system database on ``engine``
    (a missing table reads as 0)."""
    from dbos import _migration

    if engine.dialect.name == "sqlite":
        found: tuple[int, int] = _migration.get_sqlite_migration_versions(engine)
    else:
        found = _migration.get_migration_versions(engine, "dbos", True)
    return found


def claim(
    run_id: str,
    queue: str,
    *,
    executor: str | None = None,
    from_queue: str | None = None,
) -> bool:
    """Move one run onto ``queue`` (ENQUEUED, no owner); ``True`` if this call did.

    One conditional statement both checks and takes: the run must still be PENDING under
    ``executor`` (a dead executor's run, or one this process holds), or, with
    ``from_queue``, still ENQUEUED there. Two processes claiming the same run cannot both
    succeed, and a run its owner renewed in the meantime is not touched. The queue's own
    atomic dequeue then admits exactly one runner.
    """
    import sqlalchemy as sa
    from dbos._dbos import _get_dbos_instance

    sys_db = _get_dbos_instance()._sys_db
    table = sys_db.tables.workflow_status
    query = sa.update(table).where(table.c.workflow_uuid == run_id)
    if from_queue is not None:
        query = query.where(table.c.status == "ENQUEUED", table.c.queue_name == from_queue)
    else:
        query = query.where(table.c.status == "PENDING", table.c.executor_id == executor)
    with sys_db.engine.begin() as conn:
        result = conn.execute(
            query.values(
                status="ENQUEUED",
                queue_name=queue,
                owner_xid=None,
                started_at_epoch_ms=None,
                updated_at=sys_db._now_ms_sql(),
            )
        )
        return bool(result.rowcount)


def execution_token() -> str | None:
    """The ownership token of the DBOS workflow executing on this thread (``None``
    outside one): DBOS gives each execution its own when it starts or dequeues a run."""
    from dbos._context import get_local_dbos_context

    ctx = get_local_dbos_context()
    if ctx is None or not ctx.workflow_id:
        return None
    token: str | None = ctx.owner_xid
    return token


def migrate(client: Any) -> None:
    """Create (or bring up to date) DBOS's tables through a client, which never does so
    itself: a run queued on a fresh database needs them before anything is written."""
    client._sys_db.run_migrations()


def current_owner(run_id: str) -> tuple[str | None, str | None]:
    """(ownership token, status) now recorded for ``run_id`` (one indexed read)."""
    from dbos._dbos import _get_dbos_instance

    sys_db = _get_dbos_instance()._sys_db
    sql, params = _owner_sql(sys_db, "read", run_id)
    with sys_db.engine.connect() as conn:
        found = conn.exec_driver_sql(sql, params).first()
    return (None, None) if found is None else (found[0], found[1])


# The fence's two statements as plain SQL, written once per dialect and schema: run
# through ``exec_driver_sql`` they skip SQLAlchemy's statement construction, cache-key
# generation and compilation, which cost more CPU than SQLite's execution of them (a
# job run issues both in every Task and once more at its end).
_OWNER_SQL: dict[tuple[str, str | None], str] = {}


def _owner_sql(sys_db: Any, which: str, run_id: str) -> tuple[str, Any]:
    """(SQL, parameters) of the ownership ``read`` or the locked ``check`` of ``run_id``."""
    sqlite = bool(sys_db._is_sqlite)
    schema: str | None = None if sqlite else sys_db.schema
    key = (which + ("-sqlite" if sqlite else "-pg"), schema)
    sql = _OWNER_SQL.get(key)
    if sql is None:
        table = "workflow_status" if schema is None else f'"{schema}".workflow_status'
        where = "workflow_uuid = ?" if sqlite else "workflow_uuid = %(id)s"
        if which == "read":
            sql = f"SELECT owner_xid, status FROM {table} WHERE {where}"
        elif sqlite:
            # A write, so pysqlite opens BEGIN IMMEDIATE here (the file's write lock,
            # held to the commit); a SELECT would run in autocommit.
            sql = f"UPDATE {table} SET owner_xid = owner_xid WHERE {where} RETURNING owner_xid"
        else:
            # The row locked to the commit against a hand-over (which updates it); key
            # share lockers (foreign keys) are not blocked.
            sql = f"SELECT owner_xid FROM {table} WHERE {where} FOR NO KEY UPDATE"
        _OWNER_SQL[key] = sql
    return sql, ((run_id,) if sqlite else {"id": run_id})


def created_ms(run_id: str) -> int | None:
    """When ``run_id`` was recorded (epoch ms), read directly: ``DBOS.get_workflow_status``
    inside a workflow would be checkpointed as one of its steps."""
    import sqlalchemy as sa
    from dbos._dbos import _get_dbos_instance

    sys_db = _get_dbos_instance()._sys_db
    table = sys_db.tables.workflow_status
    with sys_db.engine.connect() as conn:
        found = conn.execute(
            sa.select(table.c.created_at).where(table.c.workflow_uuid == run_id)
        ).scalar()
    return None if found is None else int(found)


def take_back(engine: Any, executor: str, queue: str) -> int:
    """Before DBOS launches: move the PENDING runs of ``executor`` (a named worker's
    previous, dead incarnation) onto ``queue``; how many. DBOS's own start-up recovery
    would put them on its internal queue, where any DBOS process could take them."""
    import sqlalchemy as sa

    from cfnops.durable._dbos_tables import dbos_tables

    schema = None if engine.dialect.name == "sqlite" else "dbos"
    if not sa.inspect(engine).has_table("workflow_status", schema=schema):
        return 0  # a new database: nothing to take back
    table = dbos_tables(schema).status
    with engine.begin() as conn:
        result = conn.execute(
            sa.update(table)
            .where(table.c.status == "PENDING", table.c.executor_id == executor)
            .values(
                status="ENQUEUED",
                queue_name=queue,
                owner_xid=None,
                started_at_epoch_ms=None,
                updated_at=int(time.time() * 1000),
            )
        )
        return int(result.rowcount or 0)


def check_owner(conn: Any, run_id: str, token: str) -> None:
    """Inside ``conn``'s transaction: raise :func:`lost_ownership`'s exception unless the
    execution holding ``token`` still owns ``run_id`` (the row stays locked until commit,
    so no hand-over lands between this check and the caller's write).

    The statement is DBOS's own check (``SystemDatabase._check_owner_txn``: on SQLite a
    no-op ``UPDATE ... RETURNING``, the transaction's first write, which takes the file's
    write lock; on PostgreSQL ``SELECT ... FOR NO KEY UPDATE``), issued as plain SQL.
    """
    from dbos._dbos import _get_dbos_instance

    sql, params = _owner_sql(_get_dbos_instance()._sys_db, "check", run_id)
    if conn.exec_driver_sql(sql, params).scalar() != token:
        raise lost_ownership(run_id)


def lost_ownership(run_id: str) -> BaseException:
    """The exception that stops an execution which no longer owns ``run_id``: DBOS parks
    it (records nothing) and it waits for the outcome the run's owner records."""
    from dbos._error import DBOSWorkflowConflictIDError

    return DBOSWorkflowConflictIDError(run_id)


def park(reason: str) -> BaseException:
    """The exception that makes DBOS stop an execution without recording an outcome.

    DBOS treats it as "this execution no longer owns its run": nothing is written, and
    the execution waits for the run's outcome recorded by whichever execution finishes
    it (see :mod:`cfnops.durable._stalls`).
    """
    from dbos._error import DBOSWorkflowCancelledError

    return DBOSWorkflowCancelledError(reason)


def active_workflows() -> int | None:
    """How many workflows DBOS executes in this process (``None``: DBOS no longer says)."""
    from dbos._dbos import _get_dbos_instance

    active = getattr(_get_dbos_instance(), "_active_workflows_set", None)
    return len(active.activeList()) if active is not None else None


def check_dbos() -> str:
    """The installed DBOS version, or :class:`DbosIncompatible` naming what changed."""
    from importlib.metadata import version

    found = version("dbos")
    problems: list[str] = []
    _check_system_database(problems)
    _check_registry(problems)
    for module, name in (
        ("dbos._dbos", "_get_or_create_dbos_registry"),
        ("dbos._context", "get_local_dbos_context"),
        ("dbos._error", "DBOSWorkflowConflictIDError"),
        ("dbos._dbos", "_get_dbos_instance"),
    ):
        _attr(module, name, problems)
    _check_instances(problems)
    _attr("dbos._error", "DBOSWorkflowCancelledError", problems)
    for name in ("get_sqlite_migration_versions", "get_migration_versions"):
        _attr("dbos._migration", name, problems)
    serializer = _attr("dbos._serialization", "DBOSPortableJSONSerializer", problems)
    if serializer is not None:
        for name in ("serialize", "deserialize"):
            if not callable(getattr(serializer, name, None)):
                problems.append(f"DBOSPortableJSONSerializer has no {name}()")
    if problems:
        raise DbosIncompatible(
            f"DBOS {found} changed what cfnops.durable._dbos_port relies on "
            f"(checked against DBOS {', '.join(TESTED_DBOS)}): "
            + "; ".join(problems)
            + ". Adapt cfnops/durable/_dbos_port.py and re-run the crash tests, "
            "or pin dbos to a tested version in pyproject.toml."
        )
    return found


def _check_system_database(problems: list[str]) -> None:
    """What the port reads of the system database: the ``workflow_status`` columns the
    fence's plain SQL names, the dialect and schema it writes them for, and the clock."""
    sys_db = _attr("dbos._sys_db", "SystemDatabase", problems)
    if sys_db is None:
        return
    tables = getattr(sys_db, "tables", None)
    status = getattr(tables, "workflow_status", None)
    columns = set(status.c.keys()) if status is not None else set()
    missing = [c for c in _STATUS_COLUMNS if c not in columns]
    if missing:
        problems.append(f"DBOS's workflow_status table has no {', '.join(missing)}")
    init = _source(sys_db.__init__)
    for name in ("self._is_sqlite", "self.schema"):
        if name not in init:
            problems.append(f"dbos._sys_db.SystemDatabase no longer sets {name}")
    if not callable(getattr(sys_db, "_now_ms_sql", None)):
        problems.append("dbos._sys_db.SystemDatabase._now_ms_sql is gone")


def _check_registry(problems: list[str]) -> None:
    """The registry's internal queues (the port's own queue registers there)."""
    registry = _attr("dbos._dbos", "DBOSRegistry", problems)
    if registry is None:
        return
    if not callable(getattr(registry, "_register_internal_queue", None)):
        problems.append("DBOSRegistry._register_internal_queue is gone")
    if "internal_queue_map" not in _source(registry.__init__):
        problems.append("DBOSRegistry no longer keeps internal_queue_map")


def _check_instances(problems: list[str]) -> None:
    """What a DBOS instance exposes: its system database and its active workflows."""
    dbos_cls = _attr("dbos._dbos", "DBOS", problems)
    if dbos_cls is not None and not isinstance(getattr(dbos_cls, "_sys_db", None), property):
        problems.append("DBOS instances no longer expose their system database as _sys_db")
    active = _attr("dbos._core", "ActiveWorkflowById", problems)
    if active is not None and not callable(getattr(active, "activeList", None)):
        problems.append("dbos._core.ActiveWorkflowById has no activeList()")
    if dbos_cls is not None and "_active_workflows_set" not in _source(dbos_cls.__init__):
        problems.append("DBOS instances no longer keep _active_workflows_set")


def _attr(module: str, name: str, problems: list[str]) -> Any:
    try:
        found = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        problems.append(f"{module}.{name} is gone")
        return None
    return found


def _source(fn: Any) -> str:
    try:
        return inspect.getsource(fn)
    except (OSError, TypeError):
        return ""

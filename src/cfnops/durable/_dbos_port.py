"""Every use of DBOS's private internals, behind a few functions.

cfnops uses DBOS's public API (``DBOS``, ``DBOSClient``, ``DBOSConfig``) everywhere
else. What it needs that has no public form in DBOS 3.4:

- recovery of one run of a dead executor (DBOS recovers per executor only,
  at launch): ``SystemDatabase.reenqueue_for_recovery`` with the internal queue;
- how many workflows this process executes (so a shutdown with none in flight
  does not sleep DBOS's whole-second grace period): ``DBOS._active_workflows_set``;
- the portable JSON serializer (``dbos._serialization.DBOSPortableJSONSerializer``),
  so that step results are plain JSON any process (and ``runs show``) can read;
- moving a run this process cannot execute to another queue (``SystemDatabase.tables``,
  ``_now_ms_sql``), as DBOS's recovery re-enqueue does;
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
import types
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = [
    "TESTED_DBOS",
    "DbosIncompatible",
    "active_workflows",
    "check_dbos",
    "hand_over",
    "import_dbos",
    "park",
    "portable_serializer",
    "reenqueue",
    "schema_versions",
]

# The DBOS releases this module was checked against (kept in step with pyproject.toml).
TESTED_DBOS = ("3.4",)

_REENQUEUE_PARAMS = ["self", "workflow_id", "executor_ids", "recovery_queue_name"]


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


def reenqueue(run_id: str, dead_executor: str) -> bool:
    """Hand one PENDING run of a dead executor back to a queue; ``True`` if this call did.

    The update is conditional on status and executor, so two processes recovering
    the same run cannot both claim it.
    """
    from dbos._dbos import _get_dbos_instance
    from dbos._utils import INTERNAL_QUEUE_NAME

    sys_db = _get_dbos_instance()._sys_db
    return bool(sys_db.reenqueue_for_recovery(run_id, [dead_executor], INTERNAL_QUEUE_NAME))


def schema_versions(engine: Any) -> tuple[int, int]:
    """(recorded, latest) DBOS migration versions of the system database on ``engine``
    (a missing table reads as 0)."""
    from dbos import _migration

    if engine.dialect.name == "sqlite":
        found: tuple[int, int] = _migration.get_sqlite_migration_versions(engine)
    else:
        found = _migration.get_migration_versions(engine, "dbos", True)
    return found


def hand_over(run_id: str, executor: str, queue: str) -> bool:
    """Put a PENDING run that ``executor`` holds on ``queue`` (ENQUEUED, no owner); ``True``
    if this call did. As :func:`reenqueue`, but to the given queue even when the run was
    on another: a run this process cannot execute goes where processes that can will
    dequeue it."""
    import sqlalchemy as sa
    from dbos._dbos import _get_dbos_instance

    sys_db = _get_dbos_instance()._sys_db
    table = sys_db.tables.workflow_status
    with sys_db.engine.begin() as conn:
        result = conn.execute(
            sa.update(table)
            .where(table.c.workflow_uuid == run_id)
            .where(table.c.status == "PENDING")
            .where(table.c.executor_id == executor)
            .values(
                status="ENQUEUED",
                queue_name=queue,
                owner_xid=None,
                started_at_epoch_ms=None,
                updated_at=sys_db._now_ms_sql(),
            )
        )
        return bool(result.rowcount)


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
    sys_db = _attr("dbos._sys_db", "SystemDatabase", problems)
    method = getattr(sys_db, "reenqueue_for_recovery", None) if sys_db else None
    if sys_db is not None and method is None:
        problems.append("dbos._sys_db.SystemDatabase.reenqueue_for_recovery is gone")
    elif method is not None:
        params = list(inspect.signature(method).parameters)
        if params != _REENQUEUE_PARAMS:
            problems.append(
                f"SystemDatabase.reenqueue_for_recovery takes {params}, "
                f"cfnops calls it as {_REENQUEUE_PARAMS}"
            )
    _attr("dbos._dbos", "_get_dbos_instance", problems)
    dbos_cls = _attr("dbos._dbos", "DBOS", problems)
    if dbos_cls is not None and not isinstance(getattr(dbos_cls, "_sys_db", None), property):
        problems.append("DBOS instances no longer expose their system database as _sys_db")
    active = _attr("dbos._core", "ActiveWorkflowById", problems)
    if active is not None and not callable(getattr(active, "activeList", None)):
        problems.append("dbos._core.ActiveWorkflowById has no activeList()")
    if dbos_cls is not None and "_active_workflows_set" not in _source(dbos_cls.__init__):
        problems.append("DBOS instances no longer keep _active_workflows_set")
    queue = _attr("dbos._utils", "INTERNAL_QUEUE_NAME", problems)
    if queue is not None and not isinstance(queue, str):
        problems.append(f"dbos._utils.INTERNAL_QUEUE_NAME is {queue!r}, not a queue name")
    _attr("dbos._error", "DBOSWorkflowCancelledError", problems)
    if sys_db is not None and not callable(getattr(sys_db, "_now_ms_sql", None)):
        problems.append("dbos._sys_db.SystemDatabase._now_ms_sql is gone")
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

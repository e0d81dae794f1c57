"""The move of job-net effects from the old string-keyed table into the engine's checkpoints.

Before positions were typed, a run's effects lived in ``cfnops_job_steps``, keyed by
strings such as ``/Map#1~b1/0/Stop#2@1``. The first job store to open such a database
moves every row into :class:`cfnops.durable.CheckpointStore` under the position its key
named (:func:`cfnops.jobs._legacy_keys.parse`) and drops the old table, in one
transaction: a run started before the upgrade resumes after it with every finished Task
found at its position (``tests/jobs/test_legacy_steps.py``).

Two processes opening at once: the schema lock (held by ``Database.ensure``) serialises
them on PostgreSQL; on SQLite the one that loses the race finds the table gone, or fails
on it and then finds it gone, and goes on.
"""

from __future__ import annotations

import sqlalchemy as sa

from cfnops.durable import CheckpointStore, Mark, Position

__all__ = ["LEGACY_TABLE", "move_legacy_steps"]

LEGACY_TABLE = "cfnops_job_steps"

_FIELDS = ("run_id", "key", "kind", "ok", "result", "error", "cause", "created_at")


def move_legacy_steps(engine: sa.Engine, checkpoints: CheckpointStore) -> None:
    """Move the old table's rows into the engine's checkpoints (once per database)."""
    if not sa.inspect(engine).has_table(LEGACY_TABLE):
        return
    try:
        _move(engine, checkpoints)
    except sa.exc.DBAPIError:
        if sa.inspect(engine).has_table(LEGACY_TABLE):
            raise


def _move(engine: sa.Engine, checkpoints: CheckpointStore) -> None:
    # the old grammar is loaded only when an old table exists
    from cfnops.jobs._legacy_keys import parse

    old = sa.Table(LEGACY_TABLE, sa.MetaData(), *(sa.Column(f) for f in _FIELDS))
    with engine.begin() as conn:
        if not sa.inspect(conn).has_table(LEGACY_TABLE):
            return  # another process moved it
        rows = []
        for row in conn.execute(sa.select(old)):
            # a key the old grammar cannot read is kept, under a mark no run looks up
            position = parse(str(row.key)) or Position.of(Mark(f"legacy {row.key}"))
            rows.append({f: getattr(row, f) for f in _FIELDS if f != "key"}
                        | {"position": position.to_json()})  # fmt: skip
        unique = {(r["run_id"], r["position"]): r for r in rows}  # one row per position
        checkpoints.insert_many(conn, list(unique.values()))
        conn.execute(sa.text(f"DROP TABLE {LEGACY_TABLE}"))

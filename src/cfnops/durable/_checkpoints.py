"""The engine's checkpoints by position: one row per finished effect of a run.

DBOS records a workflow's steps by their call order (``operation_outputs``, keyed by
workflow id and a per-workflow counter). A job-net's effects cannot be keyed that way:
Map iterations and Parallel branches run on threads in no fixed order, a redrive
continues the same run under a new DBOS workflow id keeping what succeeded, and a
rerun takes some effects of another run under other positions. So the engine keeps
those checkpoints here, in the run database beside DBOS's tables, keyed by the run and
a typed :class:`~cfnops.durable.Position` (stored as its canonical JSON text).

A row holds what the effect answered: ``kind`` (``task``, ``forced``, ``wait``,
``branch``, …: the caller's word), ``ok``, a JSON ``result`` (a wait stores its
deadline) or ``error`` and ``cause``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from cfnops.database import Database, upsert
from cfnops.durable._positions import Position

__all__ = ["Checkpoint", "CheckpointStore", "checkpoints_table"]

_metadata = sa.MetaData()
checkpoints_table = sa.Table(
    "cfnops_checkpoints",
    _metadata,
    sa.Column("run_id", sa.String(200), primary_key=True),
    sa.Column("position", sa.Text, primary_key=True),  # Position.to_json()
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("ok", sa.Boolean, nullable=False),
    sa.Column("result", sa.Text),
    sa.Column("error", sa.Text),
    sa.Column("cause", sa.Text),
    sa.Column("created_at", sa.Float, nullable=False),
)
_t = checkpoints_table


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True)
class Checkpoint:
    """One recorded effect of a run."""

    position: Position
    kind: str
    ok: bool
    result: Any = None
    error: str | None = None
    cause: str | None = None


def _row(r: Any, position: Position | None = None) -> Checkpoint:
    """A row as a checkpoint (``position``: the one looked up, not parsed again)."""
    result = None if r["result"] is None else json.loads(r["result"])
    at = position if position is not None else Position.from_json(r["position"])
    return Checkpoint(at, r["kind"], bool(r["ok"]), result, r["error"], r["cause"])


# The read before every effect, built once: a statement reused keeps its memoized cache
# key, where one built per call costs more CPU than SQLite's execution of it.
_GET = sa.select(_t).where(_t.c.run_id == sa.bindparam("run_id"),
                           _t.c.position == sa.bindparam("position"))  # fmt: skip


class CheckpointStore:
    """Reads and writes checkpoints by position (thread-safe) on the run database.

    Methods that change rows take an optional open ``conn``, so that a caller can change
    checkpoints and its own tables in one transaction.
    """

    def __init__(self, database: Database) -> None:
        self.database = database
        self.engine = self.database.ensure(_metadata)

    def get(self, run_id: str, position: Position) -> Checkpoint | None:
        with self.engine.connect() as conn:
            found = (
                conn.execute(_GET, {"run_id": run_id, "position": position.to_json()})
                .mappings()
                .first()
            )
        return None if found is None else _row(found, position)

    def put(
        self,
        run_id: str,
        position: Position,
        kind: str,
        *,
        ok: bool,
        result: Any = None,
        error: str | None = None,
        cause: str | None = None,
        conn: sa.Connection | None = None,
    ) -> None:
        """Record (or replace) the effect at ``position``."""
        if conn is None:
            with self.engine.begin() as own:
                self.put(run_id, position, kind, ok=ok, result=result, error=error,
                         cause=cause, conn=own)  # fmt: skip
            return
        row = {"run_id": run_id, "position": position.to_json(), "kind": kind, "ok": ok,
               "result": _dumps(result), "error": error, "cause": cause,
               "created_at": time.time()}  # fmt: skip
        upsert(conn, _t, row)

    def deadline(self, run_id: str, position: Position, deadline: float) -> float:
        """The deadline recorded for the wait at ``position``, recording ``deadline`` on
        first use (a resumed wait ends when it first would have)."""
        found = self.get(run_id, position)
        if found is not None:
            return float(found.result)
        self.put(run_id, position, "wait", ok=True, result=deadline)
        return deadline

    def of_run(self, run_id: str, conn: sa.Connection | None = None) -> list[Checkpoint]:
        """Every checkpoint of ``run_id``, oldest first."""
        query = sa.select(_t).where(_t.c.run_id == run_id).order_by(_t.c.created_at)
        if conn is not None:
            return [_row(r) for r in conn.execute(query).mappings()]
        with self.engine.connect() as own:
            return [_row(r) for r in own.execute(query).mappings()]

    def failed(self, run_id: str) -> list[Position]:
        """Positions of the run's failed effects (failed tasks, failed branches)."""
        query = sa.select(_t.c.position).where(_t.c.run_id == run_id, _t.c.ok.is_(False))
        with self.engine.connect() as conn:
            found: list[str] = list(conn.execute(query).scalars())
        return [Position.from_json(text) for text in found]

    def delete(
        self, run_id: str, positions: Iterable[Position], conn: sa.Connection | None = None
    ) -> None:
        texts = [p.to_json() for p in positions]
        if not texts:
            return
        if conn is None:
            with self.engine.begin() as own:
                self.delete(run_id, [Position.from_json(t) for t in texts], own)
            return
        for start in range(0, len(texts), 500):  # bound the bind parameters of one statement
            chunk = texts[start : start + 500]
            conn.execute(_t.delete().where(_t.c.run_id == run_id, _t.c.position.in_(chunk)))

    def copy(
        self,
        source_run: str,
        target_run: str,
        moves: Sequence[tuple[Position, Position]],
        conn: sa.Connection,
    ) -> None:
        """Copy effects of ``source_run`` to ``target_run``, each to its new position
        (one missing at its source is skipped)."""
        for src, dst in moves:
            found = (
                conn.execute(
                    sa.select(_t).where(_t.c.run_id == source_run, _t.c.position == src.to_json())
                )
                .mappings()
                .first()
            )
            if found is None:
                continue
            moved = {**dict(found), "run_id": target_run, "position": dst.to_json(),
                     "created_at": time.time()}  # fmt: skip
            conn.execute(_t.insert().values(moved))

    def insert_many(self, conn: sa.Connection, rows: Sequence[dict[str, Any]]) -> None:
        """Insert rows already in the table's shape (a data move between versions)."""
        if rows:
            conn.execute(_t.insert(), list(rows))

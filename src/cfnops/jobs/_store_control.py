"""Job-store rows for operator actions and rerun lineage (a mixin of JobStore)."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from cfnops.durable import CheckpointStore, Position
from cfnops.jobs._tables import controls, dumps, lineage

__all__ = ["ControlRow", "ControlRows", "LineageRow"]


# read before every run and by its watcher: built once (see cfnops.jobs._store)
_LIST_CONTROLS = (
    sa.select(controls)
    .where(controls.c.run_id == sa.bindparam("run_id"), controls.c.id > sa.bindparam("after"))
    .order_by(controls.c.id)
)


@dataclass(frozen=True)
class ControlRow:
    """One operator action on a run (hold, release, skip, force)."""

    id: int
    run_id: str
    action: str
    state: str | None
    payload: dict[str, Any]
    actor: str
    reason: str | None
    created_at: float
    applied_key: str | None = None

    def detail(self) -> dict[str, Any]:
        """What the history event of this action carries."""
        out: dict[str, Any] = {"actor": self.actor}
        if self.reason:
            out["reason"] = self.reason
        return out


@dataclass(frozen=True)
class LineageRow:
    run_id: str
    origin_run_id: str
    mode: str
    state: str | None
    created_at: float = field(default=0.0)

    def to_json(self) -> dict[str, Any]:
        return {
            "runId": self.run_id,
            "originRunId": self.origin_run_id,
            "mode": self.mode,
            "state": self.state,
        }


def _applied(text: str | None) -> str | None:
    """A position's JSON as stored now; an old effect key (written before positions were
    typed) read as the position it named."""
    if text is None or not text.startswith("/"):
        return text
    from cfnops.jobs._legacy_keys import parse  # old keys only: not loaded otherwise

    found = parse(text)
    return found.to_json() if found is not None else text


def _control(row: Any) -> ControlRow:
    return ControlRow(
        row["id"],
        row["run_id"],
        row["action"],
        row["state"],
        json.loads(row["payload"] or "{}"),
        row["actor"],
        row["reason"],
        row["created_at"],
        _applied(row["applied_key"]),
    )


class ControlRows:
    engine: sa.Engine
    checkpoints: CheckpointStore

    # -- operator actions ----------------------------------------------------------------
    def add_control(
        self,
        run_id: str,
        action: str,
        *,
        actor: str,
        state: str | None = None,
        payload: Mapping[str, Any] | None = None,
        reason: str | None = None,
        applied_key: str | None = None,
    ) -> int:
        with self.engine.begin() as conn:
            result = conn.execute(
                controls.insert().values(
                    run_id=run_id,
                    action=action,
                    state=state,
                    payload=dumps(dict(payload or {})),
                    actor=actor,
                    reason=reason,
                    created_at=time.time(),
                    applied_key=applied_key,
                )
            )
            return int(result.inserted_primary_key[0])  # type: ignore[index]

    def list_controls(self, run_id: str, *, after: int = 0) -> list[ControlRow]:
        with self.engine.connect() as conn:
            found = conn.execute(_LIST_CONTROLS, {"run_id": run_id, "after": after})
            return [_control(r) for r in found.mappings()]

    def held(self, run_id: str) -> bool:
        """Whether an operator's hold on the run is in force (its last hold/release is a hold)."""
        holds = [c.action for c in self.list_controls(run_id) if c.action in ("hold", "release")]
        return bool(holds) and holds[-1] == "hold"

    def apply_control(self, control_id: int, key: str) -> bool:
        """Mark a skip/force as taken at ``key`` (a position's JSON, or the hold/release
        event's name); False if taken already."""
        with self.engine.begin() as conn:
            done = conn.execute(
                controls.update()
                .where(controls.c.id == control_id, controls.c.applied_key.is_(None))
                .values(applied_key=key)
            )
            return bool(done.rowcount)

    # -- reruns --------------------------------------------------------------------------
    def _link_rerun(
        self, conn: sa.Connection, link: LineageRow, copies: Sequence[tuple[Position, Position]]
    ) -> None:
        """A rerun's lineage and the effects it keeps, on the transaction inserting it."""
        conn.execute(
            lineage.insert().values(
                run_id=link.run_id,
                origin_run_id=link.origin_run_id,
                mode=link.mode,
                state=link.state,
                created_at=time.time(),
            )
        )
        self.checkpoints.copy(link.origin_run_id, link.run_id, copies, conn)

    def lineage_of(self, run_id: str) -> LineageRow | None:
        with self.engine.connect() as conn:
            found = conn.execute(sa.select(lineage).where(lineage.c.run_id == run_id)).mappings()
            r = found.first()
        if r is None:
            return None
        return LineageRow(r["run_id"], r["origin_run_id"], r["mode"], r["state"], r["created_at"])

    def reruns_of(self, run_id: str) -> list[LineageRow]:
        query = (
            sa.select(lineage)
            .where(lineage.c.origin_run_id == run_id)
            .order_by(lineage.c.created_at)
        )
        with self.engine.connect() as conn:
            return [
                LineageRow(r["run_id"], r["origin_run_id"], r["mode"], r["state"], r["created_at"])
                for r in conn.execute(query).mappings()
            ]

    def lineage_map(self, run_ids: Sequence[str]) -> dict[str, str]:
        """Origin run of each of ``run_ids`` that is a rerun."""
        if not run_ids:
            return {}
        query = sa.select(lineage.c.run_id, lineage.c.origin_run_id).where(
            lineage.c.run_id.in_(list(run_ids))
        )
        with self.engine.connect() as conn:
            return {str(a): str(b) for a, b in conn.execute(query)}

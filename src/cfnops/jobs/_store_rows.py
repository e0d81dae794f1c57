"""Job-store rows for task tokens, schedules and event triggers (a mixin of JobStore)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from cfnops.jobs._tables import callbacks, dumps, loads, schedules

__all__ = ["CallbackRow", "TokenAndScheduleRows"]


@dataclass(frozen=True)
class CallbackRow:
    token: str
    run_id: str
    status: str
    output: Any
    error: str | None
    cause: str | None


class TokenAndScheduleRows:
    engine: sa.Engine

    # -- task tokens ---------------------------------------------------------------------
    def open_callback(self, token: str, run_id: str) -> None:
        with self.engine.begin() as conn:
            found = conn.execute(
                sa.select(callbacks.c.token).where(callbacks.c.token == token)
            ).first()
            if found is None:
                conn.execute(
                    callbacks.insert().values(
                        token=token, run_id=run_id, status="WAITING", updated_at=time.time()
                    )
                )

    def answer_callback(
        self,
        token: str,
        *,
        ok: bool,
        output: Any = None,
        error: str | None = None,
        cause: str | None = None,
    ) -> str:
        """Record the answer for a waiting task; returns the run id."""
        with self.engine.begin() as conn:
            found = conn.execute(
                sa.select(callbacks.c.run_id).where(callbacks.c.token == token)
            ).first()
            if found is None:
                from cfnops.jobs.errors import UnknownTaskToken

                raise UnknownTaskToken(token)
            conn.execute(
                callbacks.update()
                .where(callbacks.c.token == token)
                .values(
                    status="SUCCEEDED" if ok else "FAILED",
                    output=dumps(output),
                    error=error,
                    cause=cause,
                    updated_at=time.time(),
                )
            )
            return str(found[0])

    def get_callback(self, token: str) -> CallbackRow | None:
        with self.engine.connect() as conn:
            r = conn.execute(sa.select(callbacks).where(callbacks.c.token == token)).mappings()
            row = r.first()
        if row is None:
            return None
        return CallbackRow(
            row["token"],
            row["run_id"],
            row["status"],
            loads(row["output"]),
            row["error"],
            row["cause"],
        )

    def rearm_callback(self, token: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                callbacks.update()
                .where(callbacks.c.token == token)
                .values(
                    status="WAITING", output=None, error=None, cause=None, updated_at=time.time()
                )
            )

    # -- schedules and event triggers ----------------------------------------------------
    def put_schedule(self, row: Mapping[str, Any]) -> None:
        with self.engine.begin() as conn:
            conn.execute(schedules.delete().where(schedules.c.name == row["name"]))
            conn.execute(schedules.insert().values(**row, created_at=time.time()))

    def list_schedules(self, kind: str | None = None) -> list[dict[str, Any]]:
        query = sa.select(schedules).order_by(schedules.c.name)
        if kind:
            query = query.where(schedules.c.kind == kind)
        with self.engine.connect() as conn:
            return [dict(r) for r in conn.execute(query).mappings()]

    def update_schedule(self, name: str, *, options: str, next_fire: float | None) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                schedules.update()
                .where(schedules.c.name == name)
                .values(options=options, next_fire=next_fire)
            )

    def remove_schedule(self, name: str) -> bool:
        with self.engine.begin() as conn:
            return bool(conn.execute(schedules.delete().where(schedules.c.name == name)).rowcount)

    def advance_schedule(self, name: str, previous: float | None, next_fire: float) -> bool:
        """Move a schedule to its next fire time; False if another worker did it first."""
        cond = (
            schedules.c.next_fire.is_(None)
            if previous is None
            else (schedules.c.next_fire == previous)
        )
        with self.engine.begin() as conn:
            done = conn.execute(
                schedules.update().where(schedules.c.name == name, cond).values(next_fire=next_fire)
            )
            return bool(done.rowcount)

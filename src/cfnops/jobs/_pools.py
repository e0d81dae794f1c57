"""Resource pools: named semaphores with a capacity, shared by every run and every worker.

A Task opts in through its ``Comment`` (which Step Functions ignores, so the definition
deploys unchanged)::

    "CopyDatabase": {"Type": "Task", "Comment": "nightly copy cfnops:pool=db-heavy", …}

Before such a Task runs, it takes a slot of the pool in the run database; when the pool
is full it waits (``ResourcePoolWaitStarted`` in the run's history, then
``ResourcePoolAcquired`` with the seconds waited) and gives the slot back when it ends.
A slot is keyed by the Task's position in the run, so a run recovered after a crash takes
back its own slot; slots of runs that are no longer RUNNING are freed by the next taker.
On PostgreSQL the pool's row is locked (``SELECT … FOR UPDATE``) while a slot is counted
and taken; SQLite's writers are serialised (``BEGIN IMMEDIATE``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import sqlalchemy as sa

from cfnops.asl import TaskContext, TaskFailure, TaskInvoker
from cfnops.jobs._tables import pool_slots, pools, runs
from cfnops.jobs.errors import JobInputError, UnknownPool

__all__ = ["Pool", "PoolStore", "pools_of", "with_pools"]

_ANNOTATION = re.compile(r"cfnops:pool=([A-Za-z0-9_.\-]+)")
_POLL_SECONDS = 0.1


@dataclass(frozen=True)
class Pool:
    name: str
    capacity: int
    in_use: int
    holders: tuple[tuple[str, str], ...] = ()  # (run id, holder)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "capacity": self.capacity,
            "inUse": self.in_use,
            "holders": [{"runId": r, "task": h} for r, h in self.holders],
        }


def _states(program: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    for name, state in (program.get("States") or {}).items():
        if isinstance(state, Mapping):
            yield str(name), state
            for key in ("ItemProcessor", "Iterator"):
                if isinstance(state.get(key), Mapping):
                    yield from _states(state[key])
            for branch in state.get("Branches") or []:
                if isinstance(branch, Mapping):
                    yield from _states(branch)


def pools_of(definition: Mapping[str, Any]) -> dict[str, str]:
    """Task state name → the pool its ``Comment`` names (``cfnops:pool=NAME``)."""
    out: dict[str, str] = {}
    for name, state in _states(definition):
        found = _ANNOTATION.search(str(state.get("Comment", "")))
        if state.get("Type") == "Task" and found:
            out[name] = found.group(1)
    return out


class PoolStore:
    """Pool rows and slots in the run database."""

    def __init__(self, engine: sa.Engine) -> None:
        self.engine = engine

    def set(self, name: str, capacity: int) -> Pool:
        if capacity < 1 or not re.fullmatch(r"[A-Za-z0-9_.\-]{1,200}", name):
            raise JobInputError(
                "the pool", name, "use a name of letters, digits, '.', '_', '-' and capacity >= 1"
            )
        with self.engine.begin() as conn:
            done = conn.execute(
                pools.update().where(pools.c.name == name).values(capacity=capacity)
            )
            if not done.rowcount:
                conn.execute(
                    pools.insert().values(name=name, capacity=capacity, created_at=time.time())
                )
        return self.get(name)

    def names(self) -> list[str]:
        with self.engine.connect() as conn:
            return [str(r[0]) for r in conn.execute(sa.select(pools.c.name).order_by(pools.c.name))]

    def get(self, name: str) -> Pool:
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(pools.c.capacity).where(pools.c.name == name)).first()
            if row is None:
                raise UnknownPool(name, "cfnops job pool", self.names())
            held = conn.execute(
                sa.select(pool_slots.c.run_id, pool_slots.c.holder)
                .where(pool_slots.c.pool == name)
                .order_by(pool_slots.c.acquired_at)
            ).all()
        return Pool(name, int(row[0]), len(held), tuple((str(r), str(h)) for r, h in held))

    def list(self) -> list[Pool]:
        return [self.get(n) for n in self.names()]

    def remove(self, name: str) -> bool:
        with self.engine.begin() as conn:
            conn.execute(pool_slots.delete().where(pool_slots.c.pool == name))
            return bool(conn.execute(pools.delete().where(pools.c.name == name)).rowcount)

    def check(self, definition: Mapping[str, Any], where: str) -> None:
        """Raise :class:`UnknownPool` for a Task naming a pool that does not exist."""
        named = pools_of(definition)
        if not named:  # most job-nets use none: no read at every start
            return
        known = set(self.names())
        for state, pool in sorted(named.items()):
            if pool not in known:
                raise UnknownPool(pool, f"Task {state!r} of {where}", sorted(known))

    def try_acquire(self, pool: str, run_id: str, holder: str) -> bool:
        """Take a slot (True), or find the pool full (False); a slot already held is kept."""
        with self.engine.begin() as conn:
            row = conn.execute(
                sa.select(pools.c.capacity).where(pools.c.name == pool).with_for_update()
            ).first()
            if row is None:
                raise TaskFailure("States.Runtime", f"unknown resource pool {pool!r}")
            mine = sa.and_(
                pool_slots.c.pool == pool,
                pool_slots.c.run_id == run_id,
                pool_slots.c.holder == holder,
            )
            if conn.execute(sa.select(pool_slots.c.run_id).where(mine)).first() is not None:
                return True
            active = sa.select(runs.c.run_id).where(runs.c.status == "RUNNING")
            conn.execute(
                pool_slots.delete().where(
                    pool_slots.c.pool == pool, pool_slots.c.run_id.not_in(active)
                )
            )
            used = conn.execute(
                sa.select(sa.func.count()).select_from(pool_slots).where(pool_slots.c.pool == pool)
            ).scalar_one()
            if int(used) >= int(row[0]):
                return False
            conn.execute(
                pool_slots.insert().values(
                    pool=pool, run_id=run_id, holder=holder, acquired_at=time.time()
                )
            )
            return True

    def release(self, pool: str, run_id: str, holder: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                pool_slots.delete().where(
                    pool_slots.c.pool == pool,
                    pool_slots.c.run_id == run_id,
                    pool_slots.c.holder == holder,
                )
            )


class EventSink(Protocol):
    def record(self, event_type: str, previous_event_id: int, details: dict[str, Any]) -> int: ...


class PooledInvoker:
    """A :class:`~cfnops.asl.TaskInvoker` that holds a pool slot while a Task runs."""

    def __init__(
        self,
        inner: TaskInvoker,
        pools_by_state: Mapping[str, str],
        store: PoolStore,
        run_id: str,
        history: EventSink,
    ) -> None:
        self.inner = inner
        self.pools = dict(pools_by_state)
        self.store = store
        self.run_id = run_id
        self.history = history

    def invoke(
        self, resource: str, payload: Any, *, timeout: float | None, context: TaskContext
    ) -> Any:
        pool = self.pools.get(context.state_name)
        if pool is None:
            return self.inner.invoke(resource, payload, timeout=timeout, context=context)
        holder = context.task_token or f"{context.state_name}#{context.attempt}"
        began = time.monotonic()
        waiting = False
        while not self.store.try_acquire(pool, self.run_id, holder):
            if not waiting:
                waiting = True
                capacity = self.store.get(pool).capacity
                self.history.record(
                    "ResourcePoolWaitStarted",
                    0,
                    {"pool": pool, "name": context.state_name, "capacity": capacity},
                )
            if context.cancel.wait(_POLL_SECONDS):
                raise TaskFailure("States.TaskFailed", f"stopped while waiting for pool {pool!r}")
        if waiting:
            self.history.record(
                "ResourcePoolAcquired",
                0,
                {
                    "pool": pool,
                    "name": context.state_name,
                    "waitedSeconds": round(time.monotonic() - began, 3),
                },
            )
        try:
            return self.inner.invoke(resource, payload, timeout=timeout, context=context)
        finally:
            self.store.release(pool, self.run_id, holder)


def with_pools(
    inner: TaskInvoker,
    definition: Mapping[str, Any],
    engine: sa.Engine,
    run_id: str,
    history: EventSink,
) -> TaskInvoker:
    """The port the runner puts around a run's invoker: ``inner`` itself when no Task of
    ``definition`` names a pool."""
    found = pools_of(definition)
    if not found:
        return inner
    return PooledInvoker(inner, found, PoolStore(engine), run_id, history)

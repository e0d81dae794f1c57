"""Run counters that only go up: a tally of run events kept in the run database.

Counting runs from DBOS's ``workflow_status`` at each scrape is not a counter: a store
pruned of old runs, or a limit on the rows read, makes the count fall, and Prometheus
reads a fall as a reset. Instead each scrape first brings the tally table
``cfnops_run_tally`` up to date — one row per run that **started** (left its queue) and
one per time a run **finished** (its workflow, outcome and duration) — and the counters
are counts over the tally. Rows are only ever added (``run id``, event and the finish's
time are the key, so any number of workers and consoles scraping at once add each event
once); pruning runs, restarting every process or a store past any size leaves them.

The update reads only runs changed since the last one (``cfnops_run_tally_mark``, minus
:data:`MARGIN_MS` for writers whose clocks or commits lag, skipping what the tally
already holds), in pages of :data:`PAGE` rows, :data:`MAX_PAGES` per update. A finished
run that is redriven and finishes again is counted again (another finish time; so would
a finished run's record rewritten by anything else); a queued run cancelled before it
left its queue never started.

Durations: DBOS on SQLite stamps a run's creation and last update to the whole second,
its steps to the millisecond, so a run with steps lasts from its first step's start to
the later of its last step's end and its last update; a run without steps from its
creation to its last update.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from cfnops.database import Database
from cfnops.durable import dbos_tables

__all__ = ["MARGIN_MS", "MAX_PAGES", "PAGE", "Finished", "RunTally"]

MARGIN_MS = 60_000
PAGE = 2_000
MAX_PAGES = 10  # per update: ~1-4 s on the shared 2-core VM

_metadata = sa.MetaData()
_tally = sa.Table(
    "cfnops_run_tally",
    _metadata,
    sa.Column("run_id", sa.String(255), primary_key=True),
    sa.Column("event", sa.String(16), primary_key=True),  # started | finished
    sa.Column("stamp", sa.BigInteger, primary_key=True),  # finished: last update (ms); else 0
    sa.Column("workflow", sa.String(255), nullable=False),
    sa.Column("outcome", sa.String(64), nullable=False, server_default=""),
    sa.Column("seconds", sa.Float, nullable=True),
)
_mark = sa.Table(
    "cfnops_run_tally_mark",
    _metadata,
    sa.Column("name", sa.String(32), primary_key=True),
    sa.Column("updated_ms", sa.BigInteger, nullable=False),
)

_FINISHED = {"SUCCESS": "SUCCEEDED", "ERROR": "FAILED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED": "FAILED"}
_JOB_OUTCOMES = frozenset({"SUCCEEDED", "FAILED", "TIMED_OUT", "ABORTED"})
_QUEUED = ("ENQUEUED", "DELAYED")


@dataclass(frozen=True)
class Finished:
    """Finished runs of one workflow and outcome, from the tally."""

    workflow: str
    outcome: str
    count: int


def _loads(text: str | None) -> Any:
    try:
        return None if text is None else json.loads(text)
    except ValueError:
        return None


def _workflow(inputs: str | None) -> str:
    args = _loads(inputs)
    positional = (
        (args.get("positionalArgs") or args.get("args") or []) if isinstance(args, dict) else []
    )
    return str(positional[0]) if positional else "?"


def _outcome(status: str, output: str | None) -> str:
    """As :attr:`cfnops.durable.RunRecord.outcome`: the workflow's own word when it ends
    normally (heal's ``outcome``, a job-net's ``status``), else the engine's status."""
    shown = _FINISHED.get(status, status)
    said = _loads(output)
    if shown == "SUCCEEDED" and isinstance(said, dict):
        if isinstance(said.get("outcome"), str) and said["outcome"]:
            return str(said["outcome"])
        if said.get("status") in _JOB_OUTCOMES:
            return str(said["status"])
    return shown


class RunTally:
    """The tally on one run database: :meth:`update`, then read it."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self.engine = database.ensure(_metadata)
        schema = database.dbos_schema
        self._status, self._inputs, self._outputs, self._steps = dbos_tables(schema)
        self._schema = schema

    def update(self, max_pages: int = MAX_PAGES) -> int:
        """Add the events of runs changed since the last update, at most ``max_pages``
        pages (a store tallied for the first time is caught up over several scrapes, each
        within a scraper's timeout, its counters rising meanwhile); how many were new."""
        if not sa.inspect(self.engine).has_table("workflow_status", schema=self._schema):
            return 0
        with self.engine.connect() as conn:
            mark = conn.execute(sa.select(_mark.c.updated_ms)).scalar() or 0
        after: tuple[int, str] = (max(0, int(mark) - MARGIN_MS), "")
        added = 0
        for _ in range(max_pages):
            rows = self._page(after)
            if not rows:
                break
            added += self._add(rows)
            last = rows[-1]
            after = (int(last.updated_at or 0), str(last.workflow_uuid))
            self._set_mark(after[0])
            if len(rows) < PAGE:
                break
        return added

    def _page(self, after: tuple[int, str]) -> list[Any]:
        st, inp, out, steps = self._status, self._inputs, self._outputs, self._steps
        first = (
            sa.select(sa.func.min(steps.c.started_at_epoch_ms))
            .where(steps.c.workflow_uuid == st.c.workflow_uuid)
            .scalar_subquery()
        )
        last = (
            sa.select(sa.func.max(steps.c.completed_at_epoch_ms))
            .where(steps.c.workflow_uuid == st.c.workflow_uuid)
            .scalar_subquery()
        )
        query = (
            sa.select(
                st.c.workflow_uuid,
                st.c.status,
                st.c.queue_name,
                st.c.created_at,
                st.c.updated_at,
                st.c.started_at_epoch_ms,
                inp.c.inputs,
                out.c.output,
                first.label("first_step"),
                last.label("last_step"),
            )
            .select_from(
                st.outerjoin(inp, inp.c.workflow_uuid == st.c.workflow_uuid).outerjoin(
                    out, out.c.workflow_uuid == st.c.workflow_uuid
                )
            )
            .where(
                st.c.name == "cfnops.run",
                st.c.status.not_in(_QUEUED),
                sa.tuple_(st.c.updated_at, st.c.workflow_uuid) > sa.tuple_(*after),
                sa.not_(self._tallied(st)),  # the margin re-reads: skip what is counted
            )
            .order_by(st.c.updated_at, st.c.workflow_uuid)
            .limit(PAGE)
        )
        with self.engine.connect() as conn:
            return list(conn.execute(query))

    @staticmethod
    def _tallied(st: sa.Table) -> Any:
        """SQL: this run's current state is already in the tally (its finish, or, while
        it runs, its start): a primary-key look-up per row."""

        def has(event: str, stamp: Any) -> Any:
            return sa.exists().where(
                _tally.c.run_id == st.c.workflow_uuid,
                _tally.c.event == event,
                _tally.c.stamp == stamp,
            )

        return sa.or_(
            sa.and_(st.c.status == "PENDING", has("started", 0)),
            sa.and_(st.c.status != "PENDING", has("finished", st.c.updated_at)),
        )

    def _add(self, rows: Iterable[Any]) -> int:
        events: list[dict[str, Any]] = []
        for r in rows:
            workflow = _workflow(r.inputs)
            queued_only = r.status == "CANCELLED" and r.queue_name and not r.started_at_epoch_ms
            if not queued_only:
                events.append(
                    {"run_id": r.workflow_uuid, "event": "started", "stamp": 0,
                     "workflow": workflow, "outcome": "", "seconds": None}
                )  # fmt: skip
            if r.status in _FINISHED or r.status == "CANCELLED":
                events.append(
                    {
                        "run_id": r.workflow_uuid,
                        "event": "finished",
                        "stamp": int(r.updated_at or 0),
                        "workflow": workflow,
                        "outcome": _outcome(r.status, r.output),
                        "seconds": _seconds(r),
                    }
                )
        if not events:
            return 0
        insert: Any
        if self.engine.dialect.name == "postgresql":
            from sqlalchemy.dialects.postgresql import insert
        else:
            from sqlalchemy.dialects.sqlite import insert
        # RETURNING: the rows actually added (an executemany's rowcount is -1 on psycopg)
        statement = insert(_tally).on_conflict_do_nothing().returning(_tally.c.run_id)
        with self.engine.begin() as conn:
            return len(conn.execute(statement, events).all())

    def _set_mark(self, updated_ms: int) -> None:
        with self.engine.begin() as conn:
            done = conn.execute(
                _mark.update()
                .where(_mark.c.name == "runs", _mark.c.updated_ms < updated_ms)
                .values(updated_ms=updated_ms)
            )
            if not done.rowcount and conn.execute(sa.select(_mark.c.name)).first() is None:
                conn.execute(_mark.insert().values(name="runs", updated_ms=updated_ms))

    def started(self) -> dict[str, int]:
        """Runs that left their queue, by workflow."""
        query = (
            sa.select(_tally.c.workflow, sa.func.count())
            .where(_tally.c.event == "started")
            .group_by(_tally.c.workflow)
        )
        with self.engine.connect() as conn:
            return {str(r[0]): int(r[1]) for r in conn.execute(query)}

    def finished(self) -> list[Finished]:
        query = (
            sa.select(_tally.c.workflow, _tally.c.outcome, sa.func.count())
            .where(_tally.c.event == "finished")
            .group_by(_tally.c.workflow, _tally.c.outcome)
            .order_by(_tally.c.workflow, _tally.c.outcome)
        )
        with self.engine.connect() as conn:
            return [Finished(str(r[0]), str(r[1]), int(r[2])) for r in conn.execute(query)]

    def durations(
        self, buckets: Iterable[float]
    ) -> Iterator[tuple[str, list[tuple[float, int]], int, float]]:
        """Per workflow: (bucket bound, finished runs at most that long) …, count, sum."""
        bounds = list(buckets)
        seconds = sa.func.coalesce(_tally.c.seconds, 0.0)
        columns = [
            sa.func.sum(sa.case((seconds <= b, 1), else_=0)).label(f"b{i}")
            for i, b in enumerate(bounds)
        ]
        query = (
            sa.select(_tally.c.workflow, sa.func.count(), sa.func.sum(seconds), *columns)
            .where(_tally.c.event == "finished")
            .group_by(_tally.c.workflow)
            .order_by(_tally.c.workflow)
        )
        with self.engine.connect() as conn:
            for row in conn.execute(query):
                counts = [(b, int(row[3 + i] or 0)) for i, b in enumerate(bounds)]
                yield str(row[0]), counts, int(row[1]), float(row[2] or 0.0)


def _seconds(r: Any) -> float:
    end = max(int(r.updated_at or 0), int(r.last_step or 0))
    start = int(r.first_step) if r.first_step else int(r.created_at or end)
    return max(0.0, (end - start) / 1000)

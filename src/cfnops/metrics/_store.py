"""Metrics the run store knows, computed when Prometheus scrapes.

Counters come from the run tally (:mod:`cfnops.metrics._tally`), which only ever
grows, so they never go backwards: not across restarts of any process, not past any
number of runs, not when old runs are pruned. Runs started (left their queue) by
workflow; finished by workflow and outcome (the user's outcome: ``HEALED``,
``REJECTED``, a job-net's ``FAILED`` …); their durations as a histogram from 10 ms; heal
runs that found drift, healed it, or left it. Gauges read the store as it is now: the
queues (``QUEUED`` runs and the oldest one's age, per queue), heal runs held for
approval, job pools' capacity and slots in use.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import sqlalchemy as sa

from cfnops.database import Database
from cfnops.durable import RunStore, dbos_tables
from cfnops.metrics._tally import RunTally

__all__ = ["RUN_BUCKETS", "StoreCollector"]

# From a Pass-only job-net (milliseconds) to a day-long stack update.
RUN_BUCKETS = (
    0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15, 60, 300, 900, 1800, 3600, 4 * 3600, 24 * 3600,
)  # fmt: skip
_HEAL = "cfnops.heal"
# Heal outcomes that mean "detection found drift" (the rest: in sync, not checkable …).
_DRIFT_FOUND = frozenset(
    {
        "HEALED",
        "NOT_HEALED",
        "REJECTED",
        "EXPIRED",
        "CHANGE_SET_CREATED",
        "NOT_REVERTABLE",
        "OBSOLETE",
    }
)


class StoreCollector:
    """A ``prometheus_client`` collector over one run database."""

    def __init__(self, database: Database, *, limit: int = 10_000) -> None:
        self.database = database
        self.limit = limit  # running heal runs read to find the held ones
        self._tally: RunTally | None = None

    def describe(self) -> list[Any]:
        return []  # families depend on the data; nothing to check at registration

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import (
            CounterMetricFamily,
            GaugeMetricFamily,
            HistogramMetricFamily,
        )

        if self._tally is None:
            self._tally = RunTally(self.database)
        tally = self._tally
        tally.update()
        c = CounterMetricFamily(
            "cfnops_runs_started",
            "Runs that started executing (left their queue), by workflow.",
            labels=["workflow"],
        )
        for workflow, n in sorted(tally.started().items()):
            c.add_metric([workflow], n)
        yield c
        finished = tally.finished()
        c = CounterMetricFamily(
            "cfnops_runs_finished",
            "Finished runs, by workflow and outcome (a redriven run once per finish).",
            labels=["workflow", "outcome"],
        )
        for f in finished:
            c.add_metric([f.workflow, f.outcome], f.count)
        yield c
        hist = HistogramMetricFamily(
            "cfnops_run_duration_seconds",
            "Finished runs' durations (first step's start, or creation, to the end), by workflow.",
            labels=["workflow"],
        )
        for workflow, counts, total, seconds in tally.durations(RUN_BUCKETS):
            buckets = [(str(float(b)), float(n)) for b, n in counts] + [("+Inf", float(total))]
            hist.add_metric([workflow], buckets, sum_value=seconds)
        yield hist
        yield from self._queues(GaugeMetricFamily)
        yield GaugeMetricFamily(
            "cfnops_runs_held", "Heal runs held for an approval.", value=self._held()
        )
        heal = {f.outcome: f.count for f in finished if f.workflow == _HEAL}
        yield CounterMetricFamily(
            "cfnops_drift_found",
            "Finished heal runs whose detection found drift.",
            value=sum(n for o, n in heal.items() if o in _DRIFT_FOUND),
        )
        yield CounterMetricFamily(
            "cfnops_drift_healed",
            "Heal runs that reverted drift (detection afterwards found it in sync).",
            value=heal.get("HEALED", 0),
        )
        yield CounterMetricFamily(
            "cfnops_drift_not_healed",
            "Heal runs whose change set ran but left drift (detection afterwards).",
            value=heal.get("NOT_HEALED", 0),
        )
        yield from self._pools(GaugeMetricFamily)

    def _queues(self, gauge: Any) -> Iterator[Any]:
        depth = gauge("cfnops_queue_depth", "Runs waiting in a queue.", labels=["queue"])
        oldest = gauge(
            "cfnops_queue_oldest_age_seconds",
            "Age of the oldest run waiting in each queue (a queue with none waiting: absent).",
            labels=["queue"],
        )
        schema = self.database.dbos_schema
        engine = self.database.engine
        if sa.inspect(engine).has_table("workflow_status", schema=schema):
            st = dbos_tables(schema).status
            query = (
                sa.select(st.c.queue_name, sa.func.count(), sa.func.min(st.c.created_at))
                .where(st.c.name == "cfnops.run", st.c.status.in_(("ENQUEUED", "DELAYED")))
                .group_by(st.c.queue_name)
                .order_by(st.c.queue_name)
            )
            now_ms = time.time() * 1000
            with engine.connect() as conn:
                for row in conn.execute(query):
                    queue, first = str(row[0] or ""), float(row[2] or now_ms)
                    depth.add_metric([queue], int(row[1]))
                    oldest.add_metric([queue], max(0.0, (now_ms - first) / 1000))
        yield depth
        yield oldest

    def _held(self) -> int:
        from cfnops.heal import run_outcome

        with RunStore(self.database) as store:
            running = store.list_runs(status="RUNNING", workflow=_HEAL, limit=self.limit)
            return sum(run_outcome(r, store.steps(r.run_id)) == "HELD" for r in running)

    def _pools(self, gauge: Any) -> Iterator[Any]:
        from cfnops.jobs import PoolStore

        capacity = gauge("cfnops_pool_capacity", "Job pool slots.", labels=["pool"])
        in_use = gauge("cfnops_pool_in_use", "Job pool slots held by runs.", labels=["pool"])
        try:
            pools = PoolStore(self.database.engine).list()
        except Exception:  # no pool table yet (nothing ever ran a job-net): no pools
            pools = []
        for pool in pools:
            capacity.add_metric([pool.name], pool.capacity)
            in_use.add_metric([pool.name], pool.in_use)
        yield capacity
        yield in_use

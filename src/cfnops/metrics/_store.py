"""Metrics the run store knows, computed when Prometheus scrapes.

Runs are counted from the store's records (the newest ``limit``; a store pruned of old
runs counts fewer, as a restarted counter would): started by workflow, finished by
workflow and outcome (the user's outcome: ``HEALED``, ``REJECTED``, a job-net's
``FAILED`` …), their durations (created → last update) as a histogram; the queue
(``QUEUED`` runs and the oldest one's age); heal runs held for approval; drift found
(a heal run that found drift, whatever came next) and healed; job pools' capacity and
slots in use.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

from cfnops.database import Database
from cfnops.durable import RunStore

__all__ = ["RUN_BUCKETS", "StoreCollector"]

RUN_BUCKETS = (1, 5, 15, 60, 300, 900, 1800, 3600, 4 * 3600, 24 * 3600)
_FINISHED = frozenset({"SUCCEEDED", "FAILED", "CANCELLED"})
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
        "HELD",
    }
)


class StoreCollector:
    """A ``prometheus_client`` collector over one run database."""

    def __init__(self, database: Database, *, limit: int = 10_000) -> None:
        self.database = database
        self.limit = limit

    def describe(self) -> list[Any]:
        return []  # families depend on the data; nothing to check at registration

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import (
            CounterMetricFamily,
            GaugeMetricFamily,
            HistogramMetricFamily,
        )

        from cfnops.heal import run_outcome

        with RunStore(self.database) as store:
            records = store.list_runs(limit=self.limit)
            held = 0
            outcomes: dict[str, str] = {}
            for record in records:
                if record.workflow == _HEAL and record.status == "RUNNING":
                    outcome = run_outcome(record, store.steps(record.run_id))
                else:
                    outcome = record.outcome
                outcomes[record.run_id] = outcome
                held += outcome == "HELD"
        started: Counter[str] = Counter(r.workflow for r in records)
        finished: Counter[tuple[str, str]] = Counter(
            (r.workflow, outcomes[r.run_id]) for r in records if r.status in _FINISHED
        )
        c = CounterMetricFamily(
            "cfnops_runs_started", "Runs recorded in the store, by workflow.", labels=["workflow"]
        )
        for workflow, n in sorted(started.items()):
            c.add_metric([workflow], n)
        yield c
        c = CounterMetricFamily(
            "cfnops_runs_finished",
            "Finished runs, by workflow and outcome.",
            labels=["workflow", "outcome"],
        )
        for (workflow, outcome), n in sorted(finished.items()):
            c.add_metric([workflow, outcome], n)
        yield c
        yield _durations(records, HistogramMetricFamily)
        now = time.time()
        queued = [r for r in records if r.status == "QUEUED"]
        g = GaugeMetricFamily("cfnops_queue_depth", "Runs waiting in a queue.", labels=["queue"])
        for queue, n in sorted(Counter(r.queue or "" for r in queued).items()):
            g.add_metric([queue], n)
        yield g
        oldest = min((r.created.timestamp() for r in queued if r.created), default=None)
        yield GaugeMetricFamily(
            "cfnops_queue_oldest_age_seconds",
            "Age of the oldest queued run (0: none queued).",
            value=0 if oldest is None else max(0.0, now - oldest),
        )
        yield GaugeMetricFamily("cfnops_runs_held", "Heal runs held for an approval.", value=held)
        heal = [outcomes[r.run_id] for r in records if r.workflow == _HEAL]
        yield CounterMetricFamily(
            "cfnops_drift_found",
            "Heal runs whose detection found drift.",
            value=sum(o in _DRIFT_FOUND for o in heal),
        )
        yield CounterMetricFamily(
            "cfnops_drift_healed",
            "Heal runs that reverted drift (detection afterwards found it in sync).",
            value=heal.count("HEALED"),
        )
        yield CounterMetricFamily(
            "cfnops_drift_not_healed",
            "Heal runs whose change set ran but left drift (detection afterwards).",
            value=heal.count("NOT_HEALED"),
        )
        yield from self._pools(GaugeMetricFamily)

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


def _durations(records: list[Any], family: Any) -> Any:
    hist = family(
        "cfnops_run_duration_seconds",
        "Finished runs' durations (created to last update), by workflow.",
        labels=["workflow"],
    )
    by_workflow: dict[str, list[float]] = {}
    for r in records:
        if r.status in _FINISHED and r.created and r.updated:
            seconds = (r.updated - r.created).total_seconds()
            by_workflow.setdefault(r.workflow, []).append(seconds)
    for workflow, values in sorted(by_workflow.items()):
        buckets = [(str(float(b)), float(sum(v <= b for v in values))) for b in RUN_BUCKETS]
        buckets.append(("+Inf", float(len(values))))
        hist.add_metric([workflow], buckets, sum_value=sum(values))
    return hist

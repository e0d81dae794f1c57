"""Prometheus metrics a process measures itself, owned by the entry point that serves them.

``cfnops worker --metrics-port N`` and the console build one :class:`Metrics` and put it
in their :class:`~cfnops.runtime.Runtime`; the engine observes each step's duration into
it and the runtime counts notifications. What the run store already knows (runs by
workflow and outcome, run durations, the queue, held runs, drift, pools) is read at
scrape time by :class:`cfnops.metrics.StoreCollector` and registered on the same
registry. Without a :class:`Metrics` (every other command) nothing is measured:
``prometheus_client`` is not even imported.
"""

from __future__ import annotations

from typing import Any

__all__ = ["STEP_BUCKETS", "Metrics"]

# Steps are AWS calls and waits: from milliseconds (a Pass) to an hour (a stack update).
STEP_BUCKETS = (0.005, 0.025, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600)


class Metrics:
    """A registry and the instruments a process feeds while it works."""

    def __init__(self) -> None:
        import platform

        from prometheus_client import (
            PLATFORM_COLLECTOR,
            PROCESS_COLLECTOR,
            CollectorRegistry,
            Counter,
            Gauge,
            Histogram,
        )

        from cfnops._version import __version__

        self.registry = CollectorRegistry(auto_describe=True)
        # process_* (CPU seconds, memory, open files, start time: a restart shows as one)
        # and python_info, as prometheus_client's default registry has them
        self.registry.register(PROCESS_COLLECTOR)
        self.registry.register(PLATFORM_COLLECTOR)
        build = Gauge(
            "cfnops_build_info",
            "Always 1: the cfnops version and Python of this process, as labels.",
            ("version", "python"),
            registry=self.registry,
        )
        build.labels(__version__, platform.python_version()).set(1)
        self.step_seconds = Histogram(
            "cfnops_step_duration_seconds",
            "Durable steps executed by this process, by workflow, and how long each took "
            "(every attempt; a replayed step is not counted).",
            ("workflow",),
            buckets=STEP_BUCKETS,
            registry=self.registry,
        )
        self.step_retries = Counter(
            "cfnops_step_retries",
            "Step attempts this process ran that failed and were retried, by workflow.",
            ("workflow",),
            registry=self.registry,
        )
        self.notifications = Counter(
            "cfnops_notifications",
            "Notifications this process sent, by channel and result (sent | failed).",
            ("channel", "result"),
            registry=self.registry,
        )

    def observe_step(self, workflow: str, seconds: float, *, retried: bool = False) -> None:
        self.step_seconds.labels(workflow).observe(seconds)
        if retried:
            self.step_retries.labels(workflow).inc()

    def count_notification(self, channel: str, ok: bool) -> None:
        self.notifications.labels(channel, "sent" if ok else "failed").inc()

    def register(self, collector: Any) -> None:
        """Add a scrape-time collector (``collect()`` yielding metric families)."""
        self.registry.register(collector)

    def exposition(self) -> tuple[bytes, str]:
        """The Prometheus text format of everything registered, and its content type."""
        from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

        return generate_latest(self.registry), CONTENT_TYPE_LATEST

"""The worker service: an engine that recovers and executes runs, with the job-net
schedules and triggers, the drift-scan schedules, the run lines and the metrics endpoint
around it, until a stop event is set."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from cfnops.database import redact_url
from cfnops.durable import DEFAULT_QUEUE, Engine
from cfnops.worker._run_lines import watch_runs
from cfnops.worker.errors import MetricsPortUnavailable

if TYPE_CHECKING:
    from cfnops.metrics import MetricsServer
    from cfnops.runtime import Runtime
    from cfnops.telemetry import Metrics

__all__ = ["Worker", "WorkerOptions"]


def _quiet(_line: str) -> None:
    pass


@dataclass(frozen=True)
class WorkerOptions:
    """How a worker runs; what it runs (concurrency, id, modules) is ``settings.worker``.

    ``grace``: seconds steps in flight may take to finish once stopped (one grace for
    every service, not one each). ``metrics_port``: serve Prometheus metrics there
    (0: any free port; None: no endpoint). ``config_source``: where the settings were
    read, named when a drift-scan schedule is invalid.
    """

    grace: float = 1.0
    metrics_port: int | None = None
    metrics_host: str = "127.0.0.1"
    config_source: str = "settings"


class Worker:
    """Recover and execute pending and queued runs until ``stop`` is set.

    What ``cfnops worker`` runs, for a process that embeds it (a container's entry
    point, a systemd unit's Python)::

        stop = threading.Event()  # set it from a signal handler
        Worker(Runtime.from_environment()).run(stop)

    The drift-scan schedules are checked when the worker is built (a bad one raises
    before anything starts). ``say`` receives the lines an operator reads (startup
    summary, one per run picked up or finished, stopping, stopped). ``run`` raises the
    engine's fatal error (e.g. its SQLite file deleted) once everything has stopped.
    """

    def __init__(
        self,
        runtime: Runtime,
        options: WorkerOptions | None = None,
        *,
        say: Callable[[str], None] = _quiet,
    ) -> None:
        from cfnops.heal import plan_drift_schedules

        self.options = options or WorkerOptions()
        self._say = say
        self._metrics: Metrics | None = None
        if self.options.metrics_port is not None:
            from cfnops.telemetry import Metrics

            self._metrics = Metrics()
            runtime = replace(runtime, metrics=self._metrics)
        self.runtime = runtime  # heal and drift-scan runs use its settings
        self._plans = plan_drift_schedules(runtime.settings, self.options.config_source)
        self.engine: Engine | None = None

    @property
    def parked(self) -> bool:
        """Executions are left that only wait for outcomes other processes record."""
        return self.engine is not None and bool(self.engine.parked)

    def run(self, stop: threading.Event, *, on_stopping: Callable[[], None] | None = None) -> None:
        """Start, work until ``stop`` is set (or the engine meets a fatal fault), stop.

        ``on_stopping`` is called once the worker starts stopping, before the grace
        (the CLI arms its watchdog there).
        """
        from cfnops.builtin_workflows import register_all

        register_all()  # a worker recovering a heal run must know heal's workflow
        engine = self.engine = Engine.start_process(self.runtime, worker=True)
        services = self._start_services(engine, stop)
        endpoint = self._serve_metrics(engine)
        while not stop.wait(0.5):
            if engine.fatal is not None:  # e.g. its SQLite file deleted: stop
                stop.set()
        self._say(
            f"stopping: letting steps in flight finish for up to {self.options.grace:g} s; "
            "runs not done are left RUNNING and resumed by another worker (or this one "
            "when it restarts)"
        )
        if on_stopping is not None:
            on_stopping()
        deadline = time.monotonic() + self.options.grace  # one grace for everything
        for service in services:
            service.join(timeout=max(0.0, deadline - time.monotonic()))
        engine.shutdown(grace_seconds=max(0.0, deadline - time.monotonic()))
        if endpoint is not None:
            endpoint.stop()
        self._say("stopped")
        if engine.fatal is not None:
            raise engine.fatal

    def _start_services(self, engine: Engine, stop: threading.Event) -> list[threading.Thread]:
        """Job-net schedules and triggers, drift-scan schedules, run lines; the summary."""
        from cfnops.jobs import start_worker_services

        services = start_worker_services(engine.runtime, stop)
        drift_lines = self._start_drift_scans(engine, stop, services)
        settings = engine.runtime.settings
        self._say(
            f"cfnops worker {engine.executor_id}: queue {DEFAULT_QUEUE!r}, concurrency "
            f"{settings.worker.concurrency}, database:"
        )
        # the database on a line of its own, whole (copied as one piece)
        self._say(f"  {redact_url(settings.database_url)}")
        for line in drift_lines:
            self._say(line)
        watch_runs(engine.runtime.database, engine.executor_id, stop, self._say)
        return services

    def _start_drift_scans(
        self, engine: Engine, stop: threading.Event, services: list[threading.Thread]
    ) -> list[str]:
        """The drift-scan scheduler thread (added to ``services``); its summary lines."""
        from cfnops.heal import DriftScheduler, run_drift_scheduler
        from cfnops.heal import describe_drift_schedules as describe

        if not self._plans:
            return []
        lines = []
        for row in describe(self._plans, engine.runtime.database):
            when = f"next {row['nextFire']}" if row["enabled"] else "disabled"
            lines.append(
                f"drift scan schedule {row['name']}: {row['schedule']} ({row['timezone']}), {when}"
            )
        thread = threading.Thread(
            target=run_drift_scheduler,
            args=(DriftScheduler(engine, self._plans), stop),
            name="cfnops-drift-schedules",
            daemon=True,
        )
        thread.start()
        services.append(thread)
        return lines

    def _serve_metrics(self, engine: Engine) -> MetricsServer | None:
        """The /metrics endpoint, when asked for; the engine stops if it cannot listen."""
        port, host = self.options.metrics_port, self.options.metrics_host
        if self._metrics is None or port is None:
            return None
        from cfnops.metrics import StoreCollector, serve

        self._metrics.register(StoreCollector(engine.runtime.database))
        try:
            endpoint = serve(self._metrics, port, host)
        except OSError as exc:
            engine.shutdown(grace_seconds=0)
            raise MetricsPortUnavailable(port, host, exc.strerror or str(exc)) from None
        self._say(f"metrics: {endpoint.url}")
        return endpoint

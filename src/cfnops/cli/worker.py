"""``cfnops worker``: recover and execute pending and queued runs until stopped."""

from __future__ import annotations

import re
import signal
import threading
import time
from typing import TYPE_CHECKING, Annotated

import typer

from cfnops.cli._exit import LeaveThreads, hard_exit
from cfnops.cli._interrupt import exit_code
from cfnops.cli._state import state
from cfnops.database import redact_url
from cfnops.durable import DEFAULT_QUEUE
from cfnops.errors import UsageError
from cfnops.jobs import start_worker_services

if TYPE_CHECKING:
    from cfnops.config import Settings

_ID = re.compile(r"[A-Za-z0-9._:@-]{1,200}")


def worker(
    ctx: typer.Context,
    concurrency: Annotated[
        int | None,
        typer.Option(min=1, help="Runs executed at once by this worker (default: setting)."),
    ] = None,
    global_concurrency: Annotated[
        int | None,
        typer.Option(min=1, help="Runs executed at once by all workers sharing the database."),
    ] = None,
    imports: Annotated[
        list[str] | None,
        typer.Option("--import", help="Import this module so its workflows can run (repeatable)."),
    ] = None,
    grace: Annotated[
        float,
        typer.Option(
            min=0,
            help="Seconds to let steps finish on SIGTERM/SIGINT (a second signal stops at once).",
        ),
    ] = 1.0,
    executor_id: Annotated[
        str | None,
        typer.Option(
            "--id",
            help="This worker's name across restarts (worker.executor_id): restarted "
            "under it, the worker takes back its runs at once.",
        ),
    ] = None,
    metrics_port: Annotated[
        int | None,
        typer.Option(
            "--metrics-port",
            min=0,
            max=65535,
            help="Serve Prometheus metrics on this port (/metrics; docs/observability.md).",
        ),
    ] = None,
    metrics_host: Annotated[
        str,
        typer.Option(
            "--metrics-host", help="Address for --metrics-port (0.0.0.0: every interface)."
        ),
    ] = "127.0.0.1",
) -> None:
    """Run the durable worker in the foreground.

    It recovers runs left by crashed processes, executes runs queued by other
    commands (queue "cfnops"), and heartbeats so other processes know it is alive.
    SIGTERM or SIGINT stop it cleanly: nothing is lost, and a step that was
    interrupted runs again later.
    """
    st = state(ctx)
    base = st.settings
    if executor_id is not None and not _ID.fullmatch(executor_id):
        raise UsageError(
            f"--id {executor_id!r}: a worker's name is 1-200 letters, digits and . _ : @ -",
            hint="e.g. --id worker-1 (one name per worker; its restart reuses it)",
        )
    worker_cfg = base.worker.replace(
        concurrency=_own_concurrency(concurrency, global_concurrency, base),
        global_concurrency=global_concurrency or base.worker.global_concurrency,
        workflow_modules=(*base.worker.workflow_modules, *(imports or [])),
        executor_id=executor_id or base.worker.executor_id,
    )
    if (
        worker_cfg.global_concurrency is not None
        and worker_cfg.global_concurrency < worker_cfg.concurrency
    ):
        raise UsageError(
            f"--global-concurrency {worker_cfg.global_concurrency} is below this worker's "
            f"concurrency {worker_cfg.concurrency} (one worker would exceed the global limit)",
            hint=f"also pass --concurrency {worker_cfg.global_concurrency} (or less)",
        )
    settings = base.replace(worker=worker_cfg)
    from cfnops.cli import drift_schedule

    drift_plans = drift_schedule.plans(st, settings)  # a bad schedule: exit 2 before starting
    stop = threading.Event()
    received: list[int] = []

    def _on_signal(signum: int, _frame: object) -> None:
        if stop.is_set():  # a second signal: no more waiting
            hard_exit(exit_code(signum))
        received.append(signum)
        stop.set()

    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    metrics = None
    runtime = st.runtime.with_settings(settings)  # heal and drift-scan runs use these flags
    if metrics_port is not None:
        from dataclasses import replace

        from cfnops.telemetry import Metrics

        metrics = Metrics()
        runtime = replace(runtime, metrics=metrics)
    engine = st.engine(runtime, worker=True)
    services = start_worker_services(engine.runtime, stop)  # job-net schedules and event triggers
    drift_threads, drift_lines = drift_schedule.start_service(st, engine, drift_plans, stop)
    services += drift_threads
    st.console.print(
        f"cfnops worker {engine.executor_id}: queue {DEFAULT_QUEUE!r}, concurrency "
        f"{worker_cfg.concurrency}, database:",
        soft_wrap=True, markup=False,
    )  # fmt: skip
    # the database on a line of its own, whole (copied as one piece, never split at 80 columns)
    st.console.print(f"  {redact_url(settings.database_url)}", soft_wrap=True, markup=False)
    for line in drift_lines:
        st.console.print(line, soft_wrap=True)
    from cfnops.cli._worker_lines import watch_runs

    watch_runs(
        settings,
        engine.executor_id,
        stop,
        lambda line: st.console.print(line, soft_wrap=True, markup=False),
    )
    endpoint = None
    if metrics is not None and metrics_port is not None:
        from cfnops.metrics import StoreCollector, serve

        metrics.register(StoreCollector(engine.runtime.database))
        try:
            endpoint = serve(metrics, metrics_port, metrics_host)
        except OSError as exc:
            engine.shutdown(grace_seconds=0)
            raise UsageError(
                f"--metrics-port {metrics_port}: cannot listen on {metrics_host}: {exc.strerror}",
                hint="choose a free port (0 picks one)",
            ) from None
        st.console.print(f"metrics: {endpoint.url}")
    while not stop.wait(0.5):
        if engine.fatal is not None:  # e.g. its SQLite file deleted: stop, exit 2
            stop.set()
    st.console.print(
        f"stopping: letting steps in flight finish for up to {grace:g} s; runs not done are "
        "left RUNNING and resumed by another worker (or this one when it restarts)",
        soft_wrap=True,
    )
    # A service manager's SIGTERM is the normal way to stop a worker (exit 0); Ctrl-C
    # is an interruption (130, as every command); no signal: a fatal database fault (2).
    code = 2 if not received else 0 if received[0] == signal.SIGTERM else exit_code(received[0])
    # Whatever happens in the shutdown, the process is gone shortly after the grace, with
    # that code: a run in a durable wait is left RUNNING, resumed on time by any worker.
    watchdog = threading.Timer(grace + 1.0, lambda: hard_exit(code))
    watchdog.daemon = True
    watchdog.start()
    deadline = time.monotonic() + grace  # one grace for everything, not one each
    for service in services:
        service.join(timeout=max(0.0, deadline - time.monotonic()))
    engine.shutdown(grace_seconds=max(0.0, deadline - time.monotonic()))
    if endpoint is not None:
        endpoint.stop()
    st.console.print("stopped")
    if engine.fatal is not None:
        raise engine.fatal
    final = code if received else 0
    if engine.parked:  # executions that only wait for outcomes other processes record
        raise LeaveThreads(final)
    raise typer.Exit(final)


def register(app: typer.Typer) -> None:
    app.command("worker")(worker)


def _own_concurrency(given: int | None, global_limit: int | None, base: Settings) -> int:
    """This worker's concurrency: ``--concurrency``, else the setting, lowered to a
    ``--global-concurrency`` below it (a global limit of 8 with the default 16 means 8
    here; only an explicit ``--concurrency`` above the global limit is refused)."""
    if given is not None:
        return given
    if global_limit is not None:
        return min(base.worker.concurrency, global_limit)
    return base.worker.concurrency

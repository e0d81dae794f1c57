"""``cfnops worker``: recover and execute pending and queued runs until stopped."""

from __future__ import annotations

import re
import signal
import threading
from functools import partial
from typing import TYPE_CHECKING, Annotated

import typer

from cfnops.cli._exit import LeaveThreads, hard_exit
from cfnops.cli._interrupt import exit_code
from cfnops.cli._state import state
from cfnops.errors import UsageError

if TYPE_CHECKING:
    from cfnops.config import Settings

_ID = re.compile(r"[A-Za-z0-9._:@-]{1,200}")


Concurrency = Annotated[
    int | None, typer.Option(min=1, help="Runs executed at once by this worker (default: setting).")
]
GlobalConcurrency = Annotated[
    int | None,
    typer.Option(min=1, help="Runs executed at once by all workers sharing the database."),
]
Imports = Annotated[
    list[str] | None,
    typer.Option("--import", help="Import this module so its workflows can run (repeatable)."),
]
Grace = Annotated[
    float,
    typer.Option(
        min=0, help="Seconds to let steps finish on SIGTERM/SIGINT (a second signal stops at once)."
    ),
]
ExecutorId = Annotated[
    str | None,
    typer.Option(
        "--id",
        help="This worker's name across restarts (worker.executor_id): restarted "
        "under it, the worker takes back its runs at once.",
    ),
]
MetricsPort = Annotated[
    int | None,
    typer.Option(
        "--metrics-port",
        min=0,
        max=65535,
        help="Serve Prometheus metrics on this port (/metrics; docs/observability.md).",
    ),
]
MetricsHost = Annotated[
    str,
    typer.Option("--metrics-host", help="Address for --metrics-port (0.0.0.0: every interface)."),
]


def worker(
    ctx: typer.Context,
    concurrency: Concurrency = None,
    global_concurrency: GlobalConcurrency = None,
    imports: Imports = None,
    grace: Grace = 1.0,
    executor_id: ExecutorId = None,
    metrics_port: MetricsPort = None,
    metrics_host: MetricsHost = "127.0.0.1",
) -> None:
    """Run the durable worker in the foreground.

    It recovers runs left by crashed processes, executes runs queued by other
    commands (queue "cfnops"), and heartbeats so other processes know it is alive.
    SIGTERM or SIGINT stop it cleanly: nothing is lost, and a step that was
    interrupted runs again later.
    """
    from cfnops.cli.drift_schedule import config_source
    from cfnops.worker import MetricsPortUnavailable, Worker, WorkerOptions

    st = state(ctx)
    settings = _settings(st.settings, concurrency, global_concurrency, imports, executor_id)
    options = WorkerOptions(grace, metrics_port, metrics_host, config_source=config_source(st))
    say = partial(st.console.print, soft_wrap=True, markup=False)
    service = Worker(st.runtime.with_settings(settings), options, say=say)  # exit 2: schedule
    signals = _Signals()
    try:
        service.run(signals.stop, on_stopping=lambda: signals.arm_watchdog(grace))
    except MetricsPortUnavailable as exc:
        raise UsageError(
            f"--metrics-port {exc.port}: cannot listen on {exc.host}: {exc.reason}",
            hint="choose a free port (0 picks one)",
        ) from None
    if service.parked:  # executions that only wait for outcomes other processes record
        raise LeaveThreads(signals.final)
    raise typer.Exit(signals.final)


class _Signals:
    """SIGTERM/SIGINT set ``stop``; a second one exits at once."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        self.received: list[int] = []
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGINT, self._on_signal)

    def _on_signal(self, signum: int, _frame: object) -> None:
        if self.stop.is_set():  # a second signal: no more waiting
            hard_exit(exit_code(signum))
        self.received.append(signum)
        self.stop.set()

    @property
    def code(self) -> int:
        """A service manager's SIGTERM is the normal way to stop a worker (exit 0); Ctrl-C
        is an interruption (130, as every command); no signal: a fatal database fault (2)."""
        if not self.received:
            return 2
        return 0 if self.received[0] == signal.SIGTERM else exit_code(self.received[0])

    @property
    def final(self) -> int:
        """The exit code of a worker that stopped without a fatal fault."""
        return self.code if self.received else 0

    def arm_watchdog(self, grace: float) -> None:
        """Whatever happens in the shutdown, the process is gone shortly after the grace,
        with its code: a run in a durable wait is left RUNNING, resumed on time by any
        worker."""
        code = self.code
        watchdog = threading.Timer(grace + 1.0, lambda: hard_exit(code))
        watchdog.daemon = True
        watchdog.start()


def _settings(
    base: Settings,
    concurrency: int | None,
    global_concurrency: int | None,
    imports: list[str] | None,
    executor_id: str | None,
) -> Settings:
    """The worker's settings: the options over the loaded ones, checked (exit 2)."""
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
    return base.replace(worker=worker_cfg)


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

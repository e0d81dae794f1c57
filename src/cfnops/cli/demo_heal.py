"""``cfnops demo heal``: the headline on the embedded sandbox, end to end."""

from __future__ import annotations

import functools
import shutil
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from cfnops.cli._interrupt import at_interrupt, forget
from cfnops.cli._state import CliState, state
from cfnops.cli.demo import demo_app
from cfnops.cli.drift import render_reports
from cfnops.cli.heal import run_fleet
from cfnops.config import HealSettings
from cfnops.demo.heal_sample import DRIFTED_VALUE, deploy_sample, drift_as_user
from cfnops.heal import FleetTarget, drift_report
from cfnops.sandbox import Sandbox

STACK = "drift-test"
PARAMETER = "/drift-test/sample"
# The sandbox settles in 1-3 s: poll every second instead of the production 30/60 s.
DEMO_POLLS = {
    "drift_poll_seconds": 1,
    "changeset_poll_seconds": 1,
    "execute_poll_seconds": 1,
    "busy_poll_seconds": 1,
}


FAST_DELAY = 0.05  # seconds per emulated AWS delay with --fast
# With --fast every wait ends after one 0.05 s delay: the heal run's polls, the
# drift reports' and the fleet's poll of the run every 0.1 s (the lowest interval
# [heal] allows) instead of 1 s / 0.5 s of pure waiting.
REPORT_POLL, FAST_POLL = 0.5, 0.1
_ATTEMPTS = (
    "busy_max_attempts",
    "drift_max_attempts",
    "changeset_max_attempts",
    "execute_max_attempts",
)


def _demo_polls(heal: HealSettings, quick: bool) -> dict[str, float]:
    """The heal run's poll settings; with --fast ten times the attempts at a tenth of
    the interval, so each wait's budget stays as long as the realistic demo's."""
    if not quick:
        return dict(DEMO_POLLS)
    return {
        **dict.fromkeys(DEMO_POLLS, FAST_POLL),
        **{name: 10 * getattr(heal, name) for name in _ATTEMPTS},
    }


@demo_app.command("heal")
def demo_heal(
    ctx: typer.Context,
    delay: Annotated[
        float | None, typer.Option(help="Sandbox delay in seconds (default: realistic 1-3 s).")
    ] = None,
    fast: Annotated[
        bool,
        typer.Option("--fast", help=f"Short sandbox delays ({FAST_DELAY} s): the result at once."),
    ] = False,
    clean: Annotated[
        bool,
        typer.Option("--clean", help="Remove the demo's database folder at the end."),
    ] = False,
) -> None:
    """Deploy a stack on a local sandbox, drift it, heal it with a durable run, show IN_SYNC.

    The run is recorded in a fresh database in a temporary folder, so the demo never touches runs of real stacks. The folder is kept (printed at the end, to open the run in the console) unless --clean is given; an interrupted or broken demo removes it.
    """  # noqa: E501 - one paragraph: Typer keeps a docstring's line breaks in --help
    folder = Path(tempfile.mkdtemp(prefix="cfnops-demo-"))
    remove = at_interrupt(functools.partial(shutil.rmtree, folder, ignore_errors=True))
    try:
        status, db = _demo(ctx, delay, fast, folder / "cfnops.sqlite")
    except BaseException:
        remove()
        raise
    finally:
        forget(remove)
    st = state(ctx)
    if clean:
        remove()
    elif st.output_format != "json":
        # the path and the command whole, each on a line of its own (copied, not retyped)
        st.console.print(f"stack {STACK} is {status}; runs recorded in (kept; --clean removes it):")
        st.console.print(f"  {db}", soft_wrap=True, markup=False)
        st.console.print("open them in the console:")
        st.console.print(
            f"  CFNOPS_DATABASE_URL=sqlite:///{db} cfnops console --open",
            soft_wrap=True,
            markup=False,
        )
    if clean and st.output_format != "json":
        st.console.print(f"stack {STACK} is {status}; demo database removed")
    raise typer.Exit(0 if status == "IN_SYNC" else 1)


def _demo(ctx: typer.Context, delay: float | None, fast: bool, db: Path) -> tuple[str, Path]:
    st = state(ctx)
    console = st.console
    if fast and delay is None:
        delay = FAST_DELAY
    quick = delay is not None and delay <= FAST_DELAY
    report_poll = FAST_POLL if quick else REPORT_POLL
    with Sandbox(delays=delay) as sandbox:
        clients = sandbox.clients
        settings = st.settings.replace(
            database_url=f"sqlite:///{db}",
            aws=clients.settings,
            heal=st.settings.heal.replace(**_demo_polls(st.settings.heal, quick)),
        )
        demo = CliState(output=st.output_format, _settings=settings, _clients=clients)
        cfn = clients.client("cloudformation")
        console.print(f"sandbox at {sandbox.endpoint_url}; deploying stack {STACK} …")
        deploy_sample(cfn, STACK, PARAMETER)
        drift_as_user(
            clients.client("iam"),
            sandbox.endpoint_url,
            sandbox.region,
            PARAMETER,
            session=clients.session,
        )
        console.print(
            f"changed {PARAMETER} to {DRIFTED_VALUE!r} outside CloudFormation (as IAM user "
            "ops-alice)"
        )
        trail = clients.client("cloudtrail")
        before = drift_report(cfn, STACK, poll_seconds=report_poll, cloudtrail=trail)
        render_reports(console, [before])
        fleet_poll = FAST_POLL if quick else None  # None: heal's own
        run_fleet(demo, [FleetTarget(STACK)], only=False, concurrency=1, poll_seconds=fleet_poll)
        after = drift_report(cfn, STACK, poll_seconds=report_poll)
        render_reports(console, [after])
    return after.effective_status, db


def register(app: typer.Typer) -> None:
    """Sub-commands are registered on ``demo_app`` at import."""

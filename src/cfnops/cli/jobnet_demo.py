"""``cfnops demo jobnet``: build the web system on the sandbox, stop it, start it again."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer

from cfnops.cli._job_watch import watch
from cfnops.cli._state import CliState, state
from cfnops.cli.demo import demo_app
from cfnops.errors import ExitCode

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "jobnets"


def _definition(name: str) -> dict[str, Any]:
    from cfnops.jobs import load_definition

    local = EXAMPLES / f"{name}.asl.json"
    if local.exists():
        return load_definition(local)
    raise typer.BadParameter(f"{local} not found (run the demo from a cfnops checkout)")


@demo_app.command("jobnet")
def jobnet(
    ctx: typer.Context,
    delay: Annotated[float, typer.Option(help="Sandbox transition delays (seconds).")] = 1.0,
    wait_seconds: Annotated[int, typer.Option(help="Poll interval of the job-nets.")] = 1,
    clean: Annotated[
        bool,
        typer.Option("--clean", help="Remove the demo's database folder at the end."),
    ] = False,
) -> None:
    """Two instances, an ALB and an Aurora cluster on the sandbox: run stop, then start.

    The runs are recorded in the database CFNOPS_DATABASE_URL names when it is set, else in a fresh database in a temporary folder, kept (printed at the end, to open the runs in the console) unless --clean is given.
    """  # noqa: E501 - one paragraph: Typer keeps a docstring's line breaks in --help
    st = state(ctx)
    # The entry point reads the environment once: only a database the user named is used.
    named = "CFNOPS_DATABASE_URL" in os.environ
    folder = None if named else Path(tempfile.mkdtemp(prefix="cfnops-jobnet-"))
    url = st.settings.database_url if folder is None else f"sqlite:///{folder / 'demo.sqlite'}"
    try:
        results = _demo(st, url, delay, wait_seconds)
    except BaseException:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
        raise
    if st.output_format == "json":
        st.emit_json(results)
    else:
        _where(st, url, folder, clean)
    if clean and folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
    if any(r["status"] != "SUCCEEDED" for r in results):
        raise typer.Exit(int(ExitCode.FAILED))


def _where(st: CliState, url: str, folder: Path | None, clean: bool) -> None:
    """Where the runs are, and the console command to open them (each whole on its line)."""
    if clean and folder is not None:
        st.console.print("demo database removed (--clean)")
        return
    kept = "kept; --clean removes it" if folder is not None else "CFNOPS_DATABASE_URL"
    st.console.print(f"runs recorded in ({kept}):")
    st.console.print(f"  {url}", soft_wrap=True, markup=False)
    st.console.print("open them in the console:")
    st.console.print(
        f"  CFNOPS_DATABASE_URL={url} cfnops console --open", soft_wrap=True, markup=False
    )


def _demo(st: CliState, url: str, delay: float, wait_seconds: int) -> list[dict[str, Any]]:
    from cfnops.config import load_settings
    from cfnops.demo.websystem import build_web_system
    from cfnops.durable import Engine
    from cfnops.jobs import CapturingTransport, JobService
    from cfnops.runtime import Runtime
    from cfnops.sandbox import Sandbox
    from cfnops.sandbox.extensions import ssm_commands

    slack = CapturingTransport()  # the job-nets' Slack reports, captured, never sent
    with Sandbox(delays=delay) as sandbox:
        settings = load_settings(
            database_url=url,
            aws={"endpoint_url": sandbox.endpoint_url, "region": sandbox.region},
        )
        runtime = Runtime.from_settings(settings, aws=sandbox.clients, http=slack)
        st.register_workflows()
        engine = Engine.start_process(runtime)
        try:
            jobs = JobService(engine.runtime)
            text = st.output_format != "json"
            if text:
                st.console.print("[bold]building the web system on the sandbox …[/]")
            hook = "https://hooks.slack.com/services/DEMO"  # captured, never sent
            value = build_web_system(jobs.clients, wait_seconds=wait_seconds, slack_endpoint=hook)
            ssm_commands.set_outcome(
                command=r"systemctl is-active httpd", exit_code=3, stdout="inactive"
            )
            if text:
                st.console.print_json(json.dumps(value))
            results = [
                _run(st, jobs, name, value, slack) for name in ("webapp-stop", "webapp-start")
            ]
        finally:
            engine.shutdown(grace_seconds=1)
    return results


def _run(st: CliState, jobs: Any, name: str, value: Any, slack: Any) -> dict[str, Any]:
    if st.output_format != "json":
        st.console.rule(name)
    run_id = jobs.start(_definition(name), value, machine_name=name)
    result = watch(st, jobs, run_id, _definition(name))
    report = slack.json_bodies()[-1]["text"] if slack.requests else ""
    if st.output_format != "json":
        st.console.print(f"{run_id}: {result.status}")
        st.console.print("[bold]Slack report[/]")
        st.console.print(report, markup=False)
    return {**result.to_json(), "slack": report}


def register(app: typer.Typer) -> None:
    """Sub-command of ``cfnops demo`` (registered on import of this module)."""

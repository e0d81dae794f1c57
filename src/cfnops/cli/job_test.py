"""``cfnops job test``: a job-net's mocked test cases (Step Functions Local's mock files)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cfnops.cli._state import CliState, state

if TYPE_CHECKING:
    from cfnops.jobs import CaseResult


def test_cmd(
    ctx: typer.Context,
    definition: Annotated[Path, typer.Argument(help="Definition file (JSON or YAML).")],
    mocks: Annotated[Path, typer.Option(help="Mock configuration (MockConfigFile.json).")],
    case: Annotated[
        list[str] | None, typer.Option("--case", help="Run only this test case (repeatable).")
    ] = None,
    expect: Annotated[
        Path | None, typer.Option(help="Expectations side file (default: the cfnops key).")
    ] = None,
    state_machine: Annotated[
        str | None, typer.Option(help="Entry of StateMachines (default: the file's name).")
    ] = None,
    junit: Annotated[
        Path | None, typer.Option(help="Also write a JUnit XML report here ('-': stdout).")
    ] = None,
) -> None:
    """Run mocked test cases in-process; exit 1 when a case fails, 2 when one cannot run."""
    from cfnops.jobs import exit_status, junit_xml, load_job_test, summary_json

    st = state(ctx)
    test = load_job_test(definition, mocks, expectations=expect, state_machine=state_machine)
    results = test.run_all(case or None)
    if junit is not None:
        xml = junit_xml(results, suite=f"cfnops job test {test.state_machine}")
        if str(junit) == "-":
            typer.echo(xml, nl=False)
        else:
            junit.write_text(xml, encoding="utf-8")
    if st.output_format == "json":
        st.emit_json({"stateMachine": test.state_machine, **summary_json(results)})
    elif str(junit) != "-":
        _render(st, results)
    code = exit_status(results)
    if code:
        raise typer.Exit(code)


def _render(st: CliState, results: list[CaseResult]) -> None:
    console = st.console
    for r in results:
        icon = "[green]✔[/]" if r.passed else "[red]✘[/]"
        status = "NOT RUN TO ITS END" if r.setup_error else r.status
        calls = len(r.calls)
        console.print(
            f"{icon} {r.case}  {status}  {r.seconds * 1000:.1f} ms  "
            f"({len(r.states)} states, {calls} task calls)",
            markup=True,
            highlight=False,
        )
        for problem in [r.setup_error] if r.setup_error else list(r.problems):
            for line in problem.splitlines():
                console.print(f"    {line}", markup=False, highlight=False)
    passed = sum(r.passed for r in results)
    console.print(f"{len(results)} cases: {passed} passed, {len(results) - passed} failed")


def register_test(job_app: typer.Typer) -> None:
    job_app.command("test")(test_cmd)

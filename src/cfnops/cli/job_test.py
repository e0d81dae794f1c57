"""``cfnops job test``: a job-net's mocked test cases (Step Functions Local's mock files)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

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
    starter: Annotated[
        bool, typer.Option(help="Write a starter --mocks file (one case per path); run none.")
    ] = False,
    input_: Annotated[
        str | None, typer.Option("--input", help="With --starter: the cases' input (JSON/@FILE).")
    ] = None,
) -> None:
    """Run mocked test cases in-process; exit 1 when a case fails, 2 when one cannot run."""
    from cfnops.cli._job_test_report import exit_status, junit_xml, summary_json
    from cfnops.jobs import load_job_test

    st = state(ctx)
    if starter:
        _write_starter(st, definition, mocks, state_machine, input_)
        return
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


def _write_starter(
    st: CliState, definition: Path, mocks: Path, name: str | None, input_: str | None
) -> None:
    import json

    from cfnops.errors import UsageError
    from cfnops.jobs import load_definition, machine_name, parse_input, starter_mocks

    if mocks.exists():
        raise UsageError(f"{mocks} exists: the starter file is never written over an existing one")
    value = parse_input(input_) if input_ is not None else None
    data = starter_mocks(load_definition(definition), name or machine_name(definition), value)
    mocks.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    section = data["cfnops"]["StateMachines"][name or machine_name(definition)]
    cases = list(section["TestCases"])
    unreached = section.get("UnreachedChoices", [])
    if st.output_format == "json":
        st.emit_json({"mocks": str(mocks), "cases": cases, "unreachedChoices": unreached})
        return
    line = f"wrote {mocks}: {len(cases)} cases ({', '.join(cases)})"
    st.console.print(line, markup=False, highlight=False, soft_wrap=True)
    for branch in unreached:
        note = f"  no case for {branch['choice']} → {branch['next']}: {branch['why']}"
        st.console.print(note, markup=False, highlight=False, soft_wrap=True)


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


def test_state_cmd(
    ctx: typer.Context,
    definition: Annotated[Path, typer.Argument(help="A state, or a state machine (JSON/YAML).")],
    state_name: Annotated[
        str | None, typer.Option("--state", help="The state to test (default: StartAt).")
    ] = None,
    input_: Annotated[str, typer.Option("--input", help="State input: JSON, or @FILE.")] = "{}",
    variables: Annotated[
        str | None, typer.Option(help="Variables in scope: a JSON object, or @FILE.")
    ] = None,
    mock_result: Annotated[
        str | None, typer.Option(help="The Task's (Map's, Parallel's) result: JSON, or @FILE.")
    ] = None,
    mock_error: Annotated[str | None, typer.Option(help="Mock an error with this name.")] = None,
    mock_cause: Annotated[str | None, typer.Option(help="The mocked error's cause.")] = None,
    retry_count: Annotated[int | None, typer.Option(min=0, help="Retries already made.")] = None,
    inspection_level: Annotated[str, typer.Option(help="INFO, DEBUG or TRACE.")] = "DEBUG",
    context: Annotated[
        str | None, typer.Option(help="The Context object the state sees: JSON, or @FILE.")
    ] = None,
    error_caused_by_state: Annotated[
        str | None, typer.Option(help="Map/Parallel: the inner state a mocked error comes from.")
    ] = None,
    map_failures: Annotated[
        int | None, typer.Option(min=0, help="Map: iterations failed so far.")
    ] = None,
    map_items: Annotated[
        str | None, typer.Option(help="Distributed Map: the ItemReader's items, JSON or @FILE.")
    ] = None,
    reveal_secrets: Annotated[
        bool,
        typer.Option(
            "--reveal-secrets", help="TRACE of an HTTP Task: show what its connection adds."
        ),
    ] = False,
) -> None:
    """Test one state with Step Functions' TestState (AWS, or the sandbox by --endpoint-url)."""
    import json

    from cfnops.jobs import load_definition, parse_input

    st = state(ctx)
    request: dict[str, object] = {
        "definition": json.dumps(load_definition(definition)),
        "input": json.dumps(parse_input(input_)),
        "inspectionLevel": inspection_level.upper(),
    }
    if state_name:
        request["stateName"] = state_name
    if variables:
        request["variables"] = json.dumps(parse_input(variables))
    mock = _mock(mock_result, mock_error, mock_cause)
    if mock is not None:
        request["mock"] = mock
    config = _state_configuration(retry_count, error_caused_by_state, map_failures, map_items)
    if config:
        request["stateConfiguration"] = config
    if context is not None:
        request["context"] = json.dumps(parse_input(context))
    if reveal_secrets:
        request["revealSecrets"] = True
    sfn: Any = st.clients.client("stepfunctions")  # the request is built as a plain dict
    answer: dict[str, Any] = dict(sfn.test_state(**request))
    answer.pop("ResponseMetadata", None)
    if st.output_format == "json":
        st.emit_json(answer)
    else:
        _render_test_state(st, answer)
    if answer.get("status") == "FAILED":
        raise typer.Exit(1)


def _mock(
    mock_result: str | None, mock_error: str | None, mock_cause: str | None
) -> dict[str, object] | None:
    """TestState's ``mock``: a result or an error, never both."""
    import json

    from cfnops.errors import UsageError
    from cfnops.jobs import parse_input

    if mock_result is not None and mock_error is not None:
        raise UsageError("--mock-result and --mock-error exclude each other: give one")
    if mock_result is not None:
        return {"result": json.dumps(parse_input(mock_result))}
    if mock_error is not None:
        error = {"error": mock_error, **({"cause": mock_cause} if mock_cause else {})}
        return {"errorOutput": error}
    return None


def _state_configuration(
    retry_count: int | None,
    error_caused_by_state: str | None,
    map_failures: int | None,
    map_items: str | None,
) -> dict[str, object]:
    """TestState's ``stateConfiguration``: what the state sees of earlier attempts."""
    import json

    from cfnops.jobs import parse_input

    config: dict[str, object] = {}
    if retry_count is not None:
        config["retrierRetryCount"] = retry_count
    if error_caused_by_state:
        config["errorCausedByState"] = error_caused_by_state
    if map_failures is not None:
        config["mapIterationFailureCount"] = map_failures
    if map_items is not None:
        config["mapItemReaderData"] = json.dumps(parse_input(map_items))
    return config


def _render_test_state(st: CliState, answer: dict[str, Any]) -> None:
    console = st.console
    line = f"status {answer.get('status')}"
    if answer.get("nextState"):
        line += f" → next state {answer['nextState']}"
    console.print(line, markup=False, highlight=False)
    for key in ("error", "cause", "output"):
        if key in answer:
            console.print(f"{key}: {answer[key]}", markup=False, highlight=False)
    for key, value in (answer.get("inspectionData") or {}).items():
        console.print(f"  {key}: {value}", markup=False, highlight=False)


def register_test(job_app: typer.Typer) -> None:
    job_app.command("test")(test_cmd)
    job_app.command("test-state")(test_state_cmd)

"""Every mock-configuration example of AWS's Step Functions documentation runs unchanged with
``cfnops job test`` and gives the documented answer.

``tests/jobs/data/aws_examples/index.json`` lists each example of the two pages
(https://docs.aws.amazon.com/step-functions/latest/dg/sfn-local-mock-cfg-file.html and
https://docs.aws.amazon.com/step-functions/latest/dg/sfn-local-test-sm-exec.html) with the
corpus file that runs it, or the reason it cannot run on its own (syntax with elided
bodies, how to start the Docker image). Each corpus file names its source, what the page
documents, and the answer expected per test case.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cfnops.jobs import JobNetTest, load_job_test

DATA = Path(__file__).resolve().parent / "data" / "aws_examples"
INDEX: dict[str, Any] = json.loads((DATA / "index.json").read_text())
FILES = sorted(p.name for p in DATA.glob("*.json") if p.name != "index.json")
CASES = [
    (name, case) for name in FILES for case in json.loads((DATA / name).read_text())["expected"]
]


def test_the_index_accounts_for_every_example_and_file() -> None:
    listed = {e["file"] for e in INDEX["examples"] if e["file"]}
    assert listed == set(FILES)
    for example in INDEX["examples"]:
        assert example["page"] in INDEX["pages"]
        assert example["file"] or example["why"], example
    assert {e["page"] for e in INDEX["examples"]} == set(INDEX["pages"])


def _state_io(events: Any) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Per state: its input, its Task's output, its Task's parameters (last run)."""
    inputs: dict[str, Any] = {}
    outputs: dict[str, Any] = {}
    params: dict[str, Any] = {}
    current = ""
    for event in events:
        details = event.details
        if event.type.endswith("StateEntered"):
            current = str(details["name"])
            inputs[current] = json.loads(details["input"])
        elif event.type == "TaskScheduled":
            params[current] = json.loads(details["parameters"])
        elif event.type == "TaskSucceeded":
            outputs[current] = json.loads(details["output"])
    return inputs, outputs, params


@pytest.mark.parametrize(("name", "case"), CASES, ids=[f"{n}:{c}" for n, c in CASES])
def test_documented_example(name: str, case: str) -> None:
    example = json.loads((DATA / name).read_text())
    assert example["source"].startswith("https://docs.aws.amazon.com/step-functions/")
    want = example["expected"][case]
    test = JobNetTest(example["definition"], example["mocks"])
    assert test.state_machine == example["state_machine"]
    result = test.run(case, example.get("input", {}))
    if "unmocked" in want:
        assert result.setup_error is not None, result
        assert repr(want["unmocked"]) in result.setup_error
        if "unmockedAttempt" in want:
            assert f"attempt {want['unmockedAttempt']}" in result.setup_error, result.setup_error
        return
    assert result.setup_error is None, result.setup_error
    assert result.status == want["status"], result
    for key in ("output", "error"):
        if key in want:
            assert getattr(result, key) == want[key], (key, result)
    if "states" in want:
        assert list(result.states) == want["states"]
    if "calls" in want:
        calls = [[c.state, c.attempt, c.response, c.returned, c.error] for c in result.calls]
        assert calls == want["calls"]
    if "attempts" in want:
        attempts: dict[str, int] = {}
        for call in result.calls:
            attempts[call.state] = attempts.get(call.state, 0) + 1
        assert attempts == want["attempts"]
    inputs, outputs, params = _state_io(result.events)
    for state, value in want.get("stateInputs", {}).items():
        assert inputs[state] == value, state
    for state, value in want.get("taskOutputs", {}).items():
        assert outputs[state] == value, state
    for state, path in want.get("tokenAt", {}).items():
        node = params[state]
        for key in path.split("."):
            node = node[key]
        assert isinstance(node, str) and len(node) > 10, params[state]


def test_the_examples_run_from_files_with_the_cli_loader(tmp_path: Path) -> None:
    """The mock part of each example, written as a MockConfigFile.json, loads unchanged."""
    for name in FILES:
        example = json.loads((DATA / name).read_text())
        definition = tmp_path / f"{example['state_machine']}.asl.json"
        definition.write_text(json.dumps(example["definition"]))
        mocks = tmp_path / "MockConfigFile.json"
        mocks.write_text(json.dumps(example["mocks"]))
        test = load_job_test(definition, mocks)
        assert test.cases == list(
            example["mocks"]["StateMachines"][test.state_machine]["TestCases"]
        )

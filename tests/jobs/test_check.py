"""``cfnops job check``: the data-flow check on sample data (pure; no engine, no AWS)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from cfnops.asl import CheckReport
from cfnops.cli.main import run
from cfnops.jobs import check_dataflow
from cfnops.jobs._check_samples import read_task_results
from cfnops.jobs.errors import JobInputError
from conftest import EXAMPLES

DATA = Path(__file__).parent / "data"
TYPO = "$.Execution.Input.Input.TargetAlb.TargetGroup."
TYPO_POINTER = "/States/ReadTargetGroup/Parameters/targetGroupArn.$"


def _load(path: Path) -> Any:
    return json.loads(path.read_text())


def _state_pointers(program: Mapping[str, Any], ptr: str = "") -> Iterator[str]:
    for name, state in program["States"].items():
        sptr = f"{ptr}/States/{name}"
        yield sptr
        for key in ("ItemProcessor", "Iterator"):
            if key in state:
                yield from _state_pointers(state[key], f"{sptr}/{key}")
        for i, branch in enumerate(state.get("Branches", [])):
            yield from _state_pointers(branch, f"{sptr}/Branches/{i}")


def _codes(report: CheckReport) -> list[tuple[str, str]]:
    return [(f.code, f.pointer) for f in report.findings]


@pytest.mark.parametrize("name", ["webapp-stop", "webapp-start"])
def test_correct_definitions_are_silent_and_every_state_has_shapes(name: str) -> None:
    definition = _load(EXAMPLES / f"{name}.asl.json")
    report = check_dataflow(definition, _load(EXAMPLES / f"{name}.input.json"))
    assert report.findings == ()
    assert report.ok
    by_pointer = {s.pointer: s for s in report.states}
    assert set(by_pointer) == set(_state_pointers(definition))
    for ptr, shape in by_pointer.items():
        assert shape.inputs, ptr
        if shape.type not in ("Fail",):
            assert shape.outputs, ptr
        if shape.type == "Task":
            assert shape.payloads and shape.result_source, ptr


@pytest.mark.parametrize("name", ["webapp-stop", "webapp-start"])
def test_trailing_dot_in_a_copy_is_an_error_with_pointer_and_fix(name: str) -> None:
    copy = _load(DATA / f"{name}-typo.asl.json")
    assert copy["States"]["ReadTargetGroup"]["Parameters"]["targetGroupArn.$"] == TYPO
    report = check_dataflow(copy, _load(EXAMPLES / f"{name}.input.json"))
    assert not report.ok
    (error,) = report.errors
    assert (error.code, error.pointer) == ("INVALID_JSONPATH", TYPO_POINTER)
    assert error.suggestion is not None
    assert "'$.Execution.Input.Input.TargetAlb.TargetGroup'" in error.suggestion
    assert "trailing dot" in error.suggestion
    assert {s.pointer for s in report.states} == set(_state_pointers(copy))


def test_the_fixed_copy_is_silent_when_the_input_carries_the_target_group() -> None:
    copy = _load(DATA / "webapp-start-typo.asl.json")
    copy["States"]["ReadTargetGroup"]["Parameters"]["targetGroupArn.$"] = TYPO.rstrip(".")
    sample = _load(EXAMPLES / "webapp-start.input.json")
    sample["Execution"] = {"Input": {"Input": {"TargetAlb": {"TargetGroup": "arn:tg"}}}}
    report = check_dataflow(copy, sample)
    assert report.findings == ()
    read = next(s for s in report.states if s.name == "ReadTargetGroup")
    assert read.outputs[0]["parent"] == {"targetGroupArn": "string"}


def test_the_typo_copies_match_their_generator() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_typo", DATA / "make_typo_copies.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name in ("webapp-stop", "webapp-start"):
        expected = module.typo_copy(_load(EXAMPLES / f"{name}.asl.json"))
        assert _load(DATA / f"{name}-typo.asl.json") == expected


def _task(params: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "StartAt": "T",
        "States": {
            "T": {"Type": "Task", "Resource": "arn:aws:lambda:us-east-1:1:function:f",
                  "Parameters": params, **extra, "End": True},
        },
    }  # fmt: skip


def test_missing_key_names_the_step_and_suggests_a_close_key() -> None:
    report = check_dataflow(_task({"Arn.$": "$.targetGroupArm"}), {"targetGroupArn": "x"})
    (error,) = report.errors
    assert error.pointer == "/States/T/Parameters/Arn.$"
    assert "'targetGroupArm' is not a key of $" in error.message
    assert error.suggestion == "$.targetGroupArn…"


def test_a_context_field_read_from_the_input_suggests_the_context_root() -> None:
    report = check_dataflow(_task({"Name.$": "$.Execution.Name"}), {})
    (error,) = report.errors
    assert error.suggestion == "$$.Execution.Name"


def test_references_into_an_undeclared_result_are_not_checked_not_errors() -> None:
    definition = {
        "StartAt": "T",
        "States": {
            "T": {"Type": "Task", "Resource": "arn:aws:lambda:us-east-1:1:function:f",
                  "ResultPath": "$.r", "Next": "U"},
            "U": {"Type": "Pass", "Parameters": {"v.$": "$.r.Payload.value", "k.$": "$.key"},
                  "End": True},
        },
    }  # fmt: skip
    report = check_dataflow(definition, {"key": 1})
    assert report.findings == ()
    assert [n.pointer for n in report.not_checked] == ["/States/U/Parameters/v.$"]
    assert "not declared" in report.not_checked[0].reason
    u = next(s for s in report.states if s.name == "U")
    assert u.outputs == ({"v": "unknown", "k": "number"},)
    # declared, the same reference is checked, and a wrong one is an error
    declared = check_dataflow(definition, {"key": 1}, {"T": {"Payload": {"other": 1}}})
    assert _codes(declared) == [("UNRESOLVED_REFERENCE", "/States/U/Parameters/v.$")]
    assert declared.not_checked == ()


def test_sampled_aws_sdk_results_check_member_names() -> None:
    definition = {
        "QueryLanguage": "JSONata",
        "StartAt": "D",
        "States": {
            "D": {"Type": "Task", "Resource": "arn:aws:states:::aws-sdk:ec2:describeInstances",
                  "Arguments": {}, "Output": "{% $states.result.Reservation[0] %}",
                  "End": True},
        },
    }  # fmt: skip
    report = check_dataflow(definition, {})
    (error,) = report.errors
    assert error.pointer == "/States/D/Output"
    assert "$states.result.Reservation[0] selects nothing" in error.message
    assert report.states[0].result_source is not None
    assert "ec2 DescribeInstances" in report.states[0].result_source


def _choice(rules: list[dict[str, Any]], ql: str = "JSONPath") -> dict[str, Any]:
    return {
        "QueryLanguage": ql,
        "StartAt": "C",
        "States": {
            "C": {"Type": "Choice", "Choices": rules, "Default": "Done"},
            "A": {"Type": "Succeed"},
            "Done": {"Type": "Succeed"},
        },
    }


def test_choice_branches_that_can_never_match() -> None:
    rules = [
        {"Variable": "$.status", "StringEquals": "ok", "Next": "A"},
        {"Variable": "$.status", "StringEquals": "ok", "Next": "Done"},
        {"Variable": "$.status", "NumericEquals": 1, "Next": "A"},
        {"Variable": "$.count", "NumericGreaterThan": 5, "Next": "A"},
    ]
    report = check_dataflow(_choice(rules), {"status": "failed", "count": 1})
    assert sorted(_codes(report)) == [
        ("CHOICE_NEVER_MATCHES", "/States/C/Choices/1"),
        ("CHOICE_NEVER_MATCHES", "/States/C/Choices/2"),
    ]
    assert "repeats the condition of Choices/0" in report.errors[0].message


def test_jsonata_constant_false_and_trailing_dot() -> None:
    rules = [
        {"Condition": "{% false %}", "Next": "A"},
        {"Condition": "{% $states.input.a.b. = 1 %}", "Next": "A"},
        {"Condition": "{% $states.input.x = 1 %}", "Next": "A"},
    ]
    report = check_dataflow(_choice(rules, "JSONata"), {"x": 2})
    assert sorted(_codes(report)) == [
        ("CHOICE_NEVER_MATCHES", "/States/C/Choices/0"),
        ("INVALID_JSONATA", "/States/C/Choices/1/Condition"),
    ]


def test_jsonata_trailing_dot_in_an_argument_suggests_the_fix() -> None:
    definition = {
        "QueryLanguage": "JSONata",
        "StartAt": "P",
        "States": {"P": {"Type": "Pass", "Output": "{% $states.input.tg. %}", "End": True}},
    }
    (error,) = check_dataflow(definition, {"tg": "x"}).errors
    assert error.suggestion == "{% $states.input.tg %} (remove the trailing dot)"


def test_branches_the_samples_do_not_take_report_value_failures_as_not_checked() -> None:
    definition = {
        "QueryLanguage": "JSONata",
        "StartAt": "C",
        "States": {
            "C": {"Type": "Choice", "Default": "Empty",
                  "Choices": [{"Condition": "{% $count($states.input.items) > 0 %}",
                               "Next": "First"}]},
            "First": {"Type": "Pass", "Output": "{% $states.input.items[0] %}", "End": True},
            "Empty": {"Type": "Pass", "Output": "{% $states.input.nothing %}", "End": True},
        },
    }  # fmt: skip
    report = check_dataflow(definition, {"items": []})
    # the key that does not exist is an error on any branch; the empty array is not
    assert _codes(report) == [("UNRESOLVED_REFERENCE", "/States/Empty/Output")]
    assert [n.pointer for n in report.not_checked] == ["/States/First/Output"]


def test_several_declared_samples_are_each_walked() -> None:
    definition = {
        "StartAt": "T",
        "States": {
            "T": {"Type": "Task", "Resource": "arn:aws:lambda:us-east-1:1:function:f",
                  "Next": "C"},
            "C": {"Type": "Choice", "Default": "Done",
                  "Choices": [{"Variable": "$.Status", "StringEquals": "Pending", "Next": "T"}]},
            "Done": {"Type": "Pass", "Parameters": {"code.$": "$.Code"}, "End": True},
        },
    }  # fmt: skip
    samples = {"T": {"cfnops:samples": [{"Status": "Pending"}, {"Status": "Done", "Code": 0}]}}
    report = check_dataflow(definition, {}, samples)
    # the Pending sample reaches Done only on a branch it does not take: not an error
    assert report.errors == ()
    done = next(s for s in report.states if s.name == "Done")
    assert {"code": "number"} in done.outputs


def test_map_parallel_catch_and_intrinsics() -> None:
    definition = {
        "StartAt": "M",
        "States": {
            "M": {"Type": "Map", "ItemsPath": "$.ids",
                  "ItemSelector": {"id.$": "$$.Map.Item.Value", "env.$": "$.env"},
                  "ItemProcessor": {"StartAt": "I", "States": {
                      "I": {"Type": "Pass", "Parameters": {
                          "n.$": "States.Format('{}-{}', $.env, $.id)"}, "End": True}}},
                  "ResultPath": "$.names", "Next": "P"},
            "P": {"Type": "Parallel", "Branches": [
                      {"StartAt": "B", "States": {"B": {"Type": "Pass", "End": True}}}],
                  "ResultPath": "$.par", "Next": "T"},
            "T": {"Type": "Task", "Resource": "arn:aws:lambda:us-east-1:1:function:f",
                  "Parameters": {"j.$": "States.StringToJson($.env)"},
                  "Catch": [{"ErrorEquals": ["States.ALL"], "ResultPath": "$.err", "Next": "F"}],
                  "End": True},
            "F": {"Type": "Pass", "Parameters": {"e.$": "$.err.Cause"}, "End": True},
        },
    }  # fmt: skip
    report = check_dataflow(definition, {"ids": ["a", "b"], "env": "prod"})
    assert _codes(report) == [("INTRINSIC_FAILS", "/States/T/Parameters/j.$")]
    shapes = {s.name: s for s in report.states}
    assert shapes["I"].outputs == ({"n": "string"},)
    assert shapes["M"].outputs[0]["names"] == [{"n": "string"}]
    assert shapes["P"].outputs[0]["par"] == [
        {"ids": ["string"], "env": "string", "names": [{"n": "string"}]}
    ]
    assert shapes["F"].outputs == ({"e": "string"},)


def test_unused_task_result_names_are_warned() -> None:
    report = check_dataflow(_task({}), {}, {"Nope": {}})
    assert [(f.severity, f.code) for f in report.findings] == [("warning", "UNUSED_TASK_RESULT")]
    assert report.ok


def test_read_task_results_rejects_what_is_not_an_object(tmp_path: Path) -> None:
    good = tmp_path / "r.yaml"
    good.write_text("T:\n  Payload: {a: 1}\n")
    assert read_task_results(good) == {"T": {"Payload": {"a": 1}}}
    bad = tmp_path / "bad.yaml"
    bad.write_text("- 1\n- 2\n")
    with pytest.raises(JobInputError, match="state name"):
        read_task_results(bad)
    with pytest.raises(JobInputError, match=r"missing\.yaml"):
        read_task_results(tmp_path / "missing.yaml")


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    capsys.readouterr()
    code = run(list(args))
    return code, capsys.readouterr().out


def test_cli_exit_codes_and_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    typo = str(DATA / "webapp-start-typo.asl.json")
    sample = f"@{EXAMPLES / 'webapp-start.input.json'}"
    code, out = _cli(capsys, "-o", "json", "job", "check", typo, "--input", sample)
    assert code == 2
    doc = json.loads(out)
    assert doc["ok"] is False
    assert [f["pointer"] for f in doc["findings"]] == [TYPO_POINTER]
    assert {s["state"] for s in doc["states"]} >= {"ReadTargetGroup", "CheckTargetHealth"}
    assert "notChecked" in doc
    code, out = _cli(capsys, "job", "check", typo, "--input", sample)
    assert code == 2
    assert TYPO_POINTER in out and "remove the trailing" in out
    good = str(EXAMPLES / "webapp-stop.asl.json")
    stop_sample = f"@{EXAMPLES / 'webapp-stop.input.json'}"
    code, out = _cli(capsys, "job", "check", good, "--input", stop_sample)
    assert code == 0, out
    assert "no errors: 34 states walked" in " ".join(out.split())
    assert "StopApache" in out
    results = tmp_path / "results.json"
    results.write_text("[1]")
    code, _ = _cli(
        capsys, "job", "check", good, "--input", stop_sample, "--task-results", str(results)
    )
    assert code == 2

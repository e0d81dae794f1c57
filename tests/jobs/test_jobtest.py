"""``cfnops job test``: Step Functions Local mock files run unchanged on the ASL interpreter."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any
from unittest.mock import ANY

import pytest

from cfnops.cli.main import run
from cfnops.jobs import JobNetTest, MockConfig, parse_mock_config
from cfnops.jobs.errors import MockConfigError, UnknownTestCase

AWS_EXAMPLES = Path(__file__).resolve().parent / "data" / "aws_examples"


def _example(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((AWS_EXAMPLES / name).read_text())
    return data


def _files(tmp_path: Path, definition: Any, mocks: Any, name: str = "machine") -> tuple[str, str]:
    d, m = tmp_path / f"{name}.asl.json", tmp_path / "MockConfigFile.json"
    d.write_text(json.dumps(definition))
    m.write_text(json.dumps(mocks))
    return str(d), str(m)


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    capsys.readouterr()
    code = run(list(args))
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_aws_documented_mock_file_runs_unchanged() -> None:
    example = _example("sfn_local_lambda_sqs.json")
    test = JobNetTest(example["definition"], example["mocks"])
    assert test.state_machine == "LambdaSQSIntegration"
    for case, want in example["expected"].items():
        result = test.run(case)
        if "unmocked" in want:
            assert result.setup_error is not None and repr(want["unmocked"]) in result.setup_error
            continue
        assert (result.status, result.output) == (want["status"], want["output"]), case
        attempts: dict[str, int] = {}
        for call in result.calls:
            attempts[call.state] = attempts.get(call.state, 0) + 1
        assert attempts == want["attempts"], case


def test_retries_consume_attempts_in_order() -> None:
    example = _example("sfn_local_lambda_sqs.json")
    result = JobNetTest(example["definition"], example["mocks"]).run("RetryPath")
    assert [(c.state, c.attempt, c.returned, c.error) for c in result.calls] == [
        ("LambdaState", 0, False, "Lambda.ResourceNotReadyException"),
        ("LambdaState", 1, False, "Lambda.TimeoutException"),
        ("LambdaState", 2, False, "Lambda.TimeoutException"),
        ("LambdaState", 3, True, None),
        ("SQSState", 0, True, None),
    ]
    types = [e.type for e in result.events]
    assert types.count("TaskFailed") == 3 and types.count("TaskSucceeded") == 2


CATCHING = {
    "StartAt": "Stop",
    "States": {
        "Stop": {
            "Type": "Task",
            "Resource": "arn:aws:states:::aws-sdk:rds:stopDBCluster",
            "Retry": [{"ErrorEquals": ["Rds.ThrottlingException"], "MaxAttempts": 2}],
            "Catch": [{"ErrorEquals": ["States.ALL"], "Next": "Notify", "ResultPath": "$.error"}],
            "Next": "Done",
        },
        "Notify": {
            "Type": "Pass",
            "Result": "notified",
            "ResultPath": "$.notice",
            "Next": "Failed",
        },
        "Failed": {"Type": "Fail", "Error": "StopFailed"},
        "Done": {"Type": "Succeed"},
    },
}


def _mocks(**cases: dict[str, str]) -> dict[str, Any]:
    return {
        "StateMachines": {"stopper": {"TestCases": cases}},
        "MockedResponses": {
            "Ok": {"0": {"Return": {"DBCluster": {"Status": "stopping"}}}},
            "Throttled": {
                "0-1": {"Throw": {"Error": "Rds.ThrottlingException", "Cause": "slow down"}},
                "2": {"Return": {"DBCluster": {"Status": "stopping"}}},
            },
            "Broken": {"0": {"Throw": {"Error": "Rds.InvalidDBClusterStateFault", "Cause": "no"}}},
        },
    }


def test_wrong_path_fails_with_a_diff_of_visited_states(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mocks = _mocks(Happy={"Stop": "Ok"}, Broken={"Stop": "Broken"})
    mocks["cfnops"] = {"StateMachines": {"stopper": {"TestCases": {
        "Happy": {"status": "SUCCEEDED", "states": ["Stop", "Done"]},
        "Broken": {"status": "SUCCEEDED", "states": ["Stop", "Done"]},
    }}}}  # fmt: skip
    definition, mock_file = _files(tmp_path, CATCHING, mocks, name="stopper")
    code, out = _cli(capsys, "job", "test", definition, "--mocks", mock_file)
    assert code == 1, out
    assert "✔ Happy" in out and "✘ Broken" in out
    assert "status: expected SUCCEEDED, got FAILED (StopFailed: None)" in out
    assert "-Done" in out and "+Notify" in out and "+Failed" in out
    code, out = _cli(capsys, "job", "test", definition, "--mocks", mock_file, "--case", "Happy")
    assert code == 0 and "1 cases: 1 passed, 0 failed" in out


def test_json_and_junit_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mocks = _mocks(Throttled={"Stop": "Throttled"}, Broken={"Stop": "Broken"})
    expect = {"StateMachines": {"stopper": {"TestCases": {
        "Throttled": {"status": "SUCCEEDED", "outputPaths": {"$.DBCluster.Status": "stopping"}},
        "Broken": {"status": "FAILED", "error": "StopFailed",
                   "states": ["Stop", "Notify", "Failed"]},
    }}}}  # fmt: skip
    definition, mock_file = _files(tmp_path, CATCHING, mocks, name="stopper")
    side = tmp_path / "expect.json"
    side.write_text(json.dumps(expect))
    junit = tmp_path / "report.xml"
    code, out = _cli(capsys, "-o", "json", "job", "test", definition, "--mocks", mock_file,
                     "--expect", str(side), "--junit", str(junit))  # fmt: skip
    assert code == 0, out
    report = json.loads(out)
    assert report["passed"] == 2 and report["failed"] == 0
    throttled = report["cases"][0]
    assert [c["attempt"] for c in throttled["taskCalls"]] == [0, 1, 2]
    suite = ET.fromstring(junit.read_text())
    assert suite.get("tests") == "2" and suite.get("failures") == "0"
    assert [c.get("name") for c in suite.iter("testcase")] == ["Throttled", "Broken"]


def test_junit_marks_failures_and_unmocked_tasks_as_errors(tmp_path: Path) -> None:
    mocks = _mocks(Wrong={"Stop": "Ok"}, Missing={})
    mocks["cfnops"] = {"StateMachines": {"stopper": {"TestCases": {
        "Wrong": {"output": {"DBCluster": {"Status": "stopped"}}}}}}}  # fmt: skip
    from cfnops.cli._job_test_report import exit_status, junit_xml

    results = JobNetTest(CATCHING, mocks).run_all()
    suite = ET.fromstring(junit_xml(results))
    wrong, missing = list(suite.iter("testcase"))
    failure = wrong.find("failure")
    assert failure is not None and "output: expected" in (failure.text or "")
    error = missing.find("error")
    assert error is not None and "'Stop' has no mocked response" in (error.get("message") or "")
    assert exit_status(results) == 2


def test_unmocked_task_is_not_caught_by_the_job_net() -> None:
    result = JobNetTest(CATCHING, _mocks(Missing={})).run("Missing")
    # the Catch on States.ALL would have gone to Notify: the run stops at the Task instead
    assert result.states == ("Stop",) and not result.passed
    assert result.setup_error is not None and "test case 'Missing'" in result.setup_error


def test_attempts_beyond_the_mock_name_the_attempt() -> None:
    mocks = _mocks(Short={"Stop": "Broken"})
    mocks["MockedResponses"]["Broken"] = {
        "0": {"Throw": {"Error": "Rds.ThrottlingException", "Cause": "x"}}
    }
    result = JobNetTest(CATCHING, mocks).run("Short")
    assert result.setup_error is not None
    assert "ran attempt 1, its response defines 0" in result.setup_error


@pytest.mark.parametrize(
    ("mocks", "message"),
    [
        ({"MockedResponses": {}}, "StateMachines is NoneType, not an object"),
        ({"StateMachines": {"m": {"TestCases": {"c": {"A": "Nope"}}}}, "MockedResponses": {}},
         "TestCases.c.A names the mocked response 'Nope'"),
        ({"StateMachines": {}, "MockedResponses": {"R": {"first": {"Return": 1}}}},
         'MockedResponses.R.first is not an attempt ("0") or a range ("1-2")'),
        ({"StateMachines": {},
          "MockedResponses": {"R": {"0-2": {"Return": 1}, "2": {"Return": 1}}}},
         "MockedResponses.R.2 overlaps attempts 0-2"),
        ({"StateMachines": {}, "MockedResponses": {"R": {"0": {"Return": 1, "Throw": {}}}}},
         "give exactly one of Return or Throw"),
    ],
    ids=["no-state-machines", "unknown-response", "bad-key", "overlap", "return-and-throw"],
)  # fmt: skip
def test_bad_mock_configuration_names_the_place(mocks: Any, message: str) -> None:
    with pytest.raises(MockConfigError) as info:
        parse_mock_config(mocks)
    assert message in str(info.value)


def test_bad_input_exits_2_naming_the_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    definition, mock_file = _files(tmp_path, CATCHING, _mocks(Happy={"Stop": "Ok"}), "stopper")
    code, err = _cli(capsys, "job", "test", definition, "--mocks", mock_file, "--case", "Nope")
    assert code == 2 and "no test case 'Nope'" in err and "use one of: Happy" in err
    bad = tmp_path / "bad.json"
    bad.write_text('{"StateMachines": ')
    code, err = _cli(capsys, "job", "test", definition, "--mocks", str(bad))
    assert code == 2 and "bad.json" in err
    with pytest.raises(UnknownTestCase, match="no test case 'Nope'"):
        JobNetTest(CATCHING, _mocks(Happy={"Stop": "Ok"})).run("Nope")


def test_mock_config_is_reusable_as_parsed() -> None:
    config = parse_mock_config(_mocks(Happy={"Stop": "Ok"}))
    assert isinstance(config, MockConfig)
    first = JobNetTest(CATCHING, config).run("Happy")
    second = JobNetTest(CATCHING, config).run("Happy")  # attempts start again at 0
    assert first.status == second.status == "SUCCEEDED"
    assert first.states == second.states == ("Stop", "Done")


def test_starter_file_has_a_case_per_path_and_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    definition, _ = _files(tmp_path, CATCHING, {}, name="stopper")
    starter = tmp_path / "stopper.mocks.json"
    code, out = _cli(capsys, "job", "test", definition, "--mocks", str(starter), "--starter")
    assert code == 0 and "2 cases (HappyPath, StopFails)" in out
    data = json.loads(starter.read_text())
    expected = data["cfnops"]["StateMachines"]["stopper"]["TestCases"]
    assert expected["HappyPath"] == {"status": "SUCCEEDED", "states": ["Stop", "Done"]}
    assert expected["StopFails"] == {
        "status": "FAILED",
        "states": ["Stop", "Notify", "Failed"],
        "error": "StopFailed",
    }
    code, out = _cli(capsys, "job", "test", definition, "--mocks", str(starter))
    assert code == 0 and "2 cases: 2 passed, 0 failed" in out
    code, out = _cli(capsys, "job", "test", definition, "--mocks", str(starter), "--starter")
    assert code == 2 and "never written over an existing one" in out


def test_precommit_hook_runs_changed_pairs(tmp_path: Path) -> None:
    import re

    import yaml

    from cfnops.cli.hooks import main

    good = _mocks(Happy={"Stop": "Ok"})
    good["cfnops"] = {
        "StateMachines": {"stopper": {"TestCases": {"Happy": {"status": "SUCCEEDED"}}}}
    }
    definition, mock_file = _files(tmp_path, CATCHING, good, name="stopper")
    paired = tmp_path / "stopper.mocks.json"
    Path(mock_file).rename(paired)
    lonely = tmp_path / "other.asl.json"
    lonely.write_text(json.dumps(CATCHING))
    assert main(["job-test", definition, str(lonely), str(tmp_path / "README.md")]) == 0
    good["cfnops"]["StateMachines"]["stopper"]["TestCases"]["Happy"]["status"] = "FAILED"
    paired.write_text(json.dumps(good))
    assert main(["job-test", str(paired)]) == 1
    hooks = yaml.safe_load(
        (Path(__file__).resolve().parents[2] / ".pre-commit-hooks.yaml").read_text()
    )
    hook = next(h for h in hooks if h["id"] == "cfnops-job-test")
    assert hook["entry"] == "python -m cfnops.cli.hooks job-test"
    pattern = re.compile(hook["files"])
    assert pattern.search("a/stopper.mocks.json") and pattern.search("b/x.asl.yaml")
    assert not pattern.search("template.json")


ROUTING = {
    "StartAt": "CheckServer",
    "States": {
        "CheckServer": {
            "Type": "Task",
            "Resource": "arn:aws:states:::lambda:invoke",
            "Parameters": {"FunctionName": "check", "Payload.$": "$"},
            "ResultPath": "$.check",
            "Next": "Route",
        },
        "Route": {
            "Type": "Choice",
            "Choices": [
                {"Variable": "$.check.Payload.state", "StringEquals": "running",
                 "Next": "StopServer"},
                {"And": [{"Variable": "$.mode", "StringEquals": "force"},
                         {"Variable": "$.retries", "NumericGreaterThan": 2}],
                 "Next": "ForceStop"},
                {"Not": {"Variable": "$.check.Payload.healthy", "BooleanEquals": True},
                 "Next": "Alert"},
                {"Variable": "$.window", "TimestampLessThan": "2030-01-01T00:00:00Z",
                 "Next": "Postpone"},
                {"Variable": "$.expected", "StringEqualsPath": "$.actual", "Next": "Mismatch"},
                {"Variable": "$$.Execution.Name", "StringEquals": "x", "Next": "Never"},
            ],
            "Default": "Nothing",
        },
        "StopServer": {"Type": "Succeed"},
        "ForceStop": {"Type": "Succeed"},
        "Alert": {"Type": "Fail", "Error": "Unhealthy"},
        "Postpone": {"Type": "Succeed"},
        "Mismatch": {"Type": "Succeed"},
        "Never": {"Type": "Succeed"},
        "Nothing": {"Type": "Succeed"},
    },
}  # fmt: skip


def test_starter_file_has_a_case_per_reachable_choice_branch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each Choice branch gets a case whose input, or whose Task answer under the Task's
    ResultPath, takes it; the run confirms it; a rule no data can be found for (a …Path
    comparison) is listed, not guessed."""
    definition, _ = _files(tmp_path, ROUTING, {}, name="router")
    starter = tmp_path / "router.mocks.json"
    code, out = _cli(capsys, "job", "test", definition, "--mocks", str(starter), "--starter")
    assert code == 0, out
    assert "no case for Route → Never" in out
    data = json.loads(starter.read_text())
    expected = data["cfnops"]["StateMachines"]["router"]["TestCases"]
    mapping = data["StateMachines"]["router"]["TestCases"]
    branches = {"RouteToStopServer": "StopServer", "RouteToForceStop": "ForceStop",
                "RouteToAlert": "Alert", "RouteToPostpone": "Postpone",
                "RouteToMismatch": "Mismatch", "RouteToNothing": "Nothing"}  # fmt: skip
    assert list(expected) == ["HappyPath", *branches]
    for case, target in branches.items():
        assert expected[case]["states"] == ["CheckServer", "Route", target], case
    # the data that does it: in the CheckServer answer, or in the execution input
    stop_answer = data["MockedResponses"][mapping["RouteToStopServer"]["CheckServer"]]
    assert stop_answer["0-999"]["Return"]["Payload"]["state"] == "running"
    assert expected["RouteToForceStop"]["input"] == {"mode": "force", "retries": 3}
    alert = data["MockedResponses"][mapping["RouteToAlert"]["CheckServer"]]["0-999"]["Return"]
    assert alert["Payload"]["healthy"] is False and alert["Payload"]["state"] != "running"
    assert expected["RouteToAlert"]["status"] == "FAILED"
    assert expected["RouteToPostpone"]["input"]["window"] < "2030-01-01T00:00:00Z"
    assert data["cfnops"]["StateMachines"]["router"]["UnreachedChoices"] == [
        {"choice": "Route", "next": "Never", "why": ANY}
    ]
    code, out = _cli(capsys, "job", "test", definition, "--mocks", str(starter))
    assert expected["RouteToMismatch"]["input"]["expected"] == "m"
    assert code == 0 and "7 cases: 7 passed, 0 failed" in out
    # a branch taken by a different state than the file says fails with the path's diff
    expected["RouteToForceStop"]["states"][-1] = "StopServer"
    starter.write_text(json.dumps(data))
    code, out = _cli(capsys, "job", "test", definition, "--mocks", str(starter))
    assert code == 1 and "RouteToForceStop" in out


def test_choice_assignments_solve_and_refuse() -> None:
    from cfnops.jobs._jobtest_choice import ABSENT, branch_assignments, place

    state = {
        "Type": "Choice",
        "Choices": [
            {"Variable": "$.a", "IsPresent": False, "Next": "NoA"},
            {"Or": [{"Variable": "$.n", "NumericLessThanEquals": 1},
                    {"Variable": "$['b c']", "StringMatches": "log-*.txt"}], "Next": "Low"},
            {"Variable": "$.items[0]", "StringEquals": "x", "Next": "Indexed"},
        ],
        "Default": "Other",
    }  # fmt: skip
    got = dict(branch_assignments(state))
    assert got["NoA"] == {("a",): ABSENT}
    assert got["Low"] == {("n",): 1, ("a",): "present"}
    not_low = {("a",): "present", ("n",): 2, ("b c",): "\0"}  # Or is false: both children
    assert got["Indexed"] == {("items", 0): "x", **not_low}
    assert got["Other"] == {**not_low, ("items", 0): "x-other"}
    placed = place({"keep": 1}, {("items", 2): "x", ("n",): 2})
    assert placed == {"keep": 1, "items": [None, None, "x"], "n": 2}
    assert place({"a": 1}, got["NoA"]) == {}
    rule = {"Variable": "$$.Execution.Name", "StringEquals": "x", "Next": "N"}
    context = {"Type": "Choice", "Default": "D", "Choices": [rule]}
    assert dict(branch_assignments(context)) == {"N": None, "D": {}}


def test_starter_reaches_every_choice_branch_of_webapp_stop(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The JSONata job-net: its Choices read a poll's answer through Output templates and
    variables Assigned from $states.result, behind a Map and behind each other; every
    branch gets a case (poll loops answer the witness once, then the base run's answer),
    and the file passes."""
    root = Path(__file__).resolve().parents[2] / "examples" / "jobnets"
    definition = str(root / "webapp-stop.asl.json")
    starter = tmp_path / "webapp-stop.mocks.json"
    args = ["--mocks", str(starter), "--input", f"@{root / 'webapp-stop.input.json'}"]
    code, out = _cli(capsys, "job", "test", definition, *args, "--starter")
    assert code == 0 and "no case for" not in out, out
    data = json.loads(starter.read_text())
    section = data["cfnops"]["StateMachines"]["webapp-stop"]
    assert "UnreachedChoices" not in section
    choices = {n: s for n, s in json.loads(Path(definition).read_text())["States"].items()
               if s["Type"] == "Choice"}  # fmt: skip
    for name, state in choices.items():
        for target in [*(c["Next"] for c in state["Choices"]), state["Default"]]:
            case = section["TestCases"][f"{name}To{target}"]
            pairs = list(zip(case["states"], case["states"][1:], strict=False))
            assert (name, target) in pairs, (name, target)
    waits = data["MockedResponses"]["CheckStopApacheToWaitStopApache"]
    assert waits["0"]["Return"]["Status"] == "Pending" and "1-999" in waits
    code, out = _cli(capsys, "job", "test", definition, "--mocks", str(starter))
    assert code == 0 and f"{len(section['TestCases'])} passed, 0 failed" in out


def test_jsonata_conditions_solved() -> None:
    from cfnops.jobs._jobtest_condition import VAR, solve_condition

    assert solve_condition("{% $states.input.Code in [0, 16, 64] %}", True) == {("Code",): 0}
    assert solve_condition("{% $states.input.Code in [0, 16, 64] %}", False) == {("Code",): 65}
    both = "{% $status != 'available' and $states.input.items[1].n >= 3 %}"
    assert solve_condition(both, True) == {(VAR, "status"): "available-other", ("items", 1, "n"): 3}
    assert solve_condition(both, False) == {(VAR, "status"): "available"}
    assert solve_condition("{% $count($states.input.x) > 1 %}", True) is None
    assert solve_condition("{% $a = 1 and $b = 2 or $c = 3 %}", True) is None

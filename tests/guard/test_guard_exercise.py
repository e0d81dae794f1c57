"""``--exercise``: handlers run with generated requests against the sandbox.

Every handler here is written for these tests. Handlers are real child processes
(``python3``; ``node`` where the machine has it) talking to the session's sandbox
through the exercise listener.
"""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from rich.console import Console
from tests.ci.github_sarif import problems

from cfnops.cli.main import run
from cfnops.guard import (
    EXERCISE_RULES,
    GuardReport,
    Severity,
    check_template,
    exercise,
    render_text,
    to_json,
    to_sarif,
)
from cfnops.guard._exercise_events import plain, request
from cfnops.guard._exercise_http import Listener
from cfnops.guard._template import load_template

TEMPLATE = """\
Parameters:
  Stage: {{Type: String, Default: prod}}
Resources:
  Fn:
    Type: AWS::Lambda::Function
    Properties:
      Runtime: {runtime}
      Handler: index.handler
      Role: arn:aws:iam::123456789012:role/r
      Environment:
        Variables:
          STAGE: !Ref Stage
      Code:
        ZipFile: |
{code}
  Thing:
    Type: Custom::Thing
    Properties:
      ServiceToken: !GetAtt Fn.Arn
      Name: {name}
      Size: 3
"""


def _template(tmp_path: Path, code: str, runtime: str = "python3.12", name: str = "t") -> Path:
    body = textwrap.indent(textwrap.dedent(code), " " * 10)
    path = tmp_path / "template.yaml"
    path.write_text(TEMPLATE.format(runtime=runtime, code=body, name=name))
    return path


def _exercise(sandbox: Any, path: Path, **kwargs: Any) -> GuardReport:
    kwargs.setdefault("timeout", 300.0)  # generous: a loaded machine runs handlers slowly
    return exercise(check_template(path), sandbox.endpoint_url, **kwargs)


def _rules(report: GuardReport) -> set[tuple[str, Severity]]:
    return {(f.rule, f.severity) for f in report.findings if f.rule.startswith("EX")}


# -- the requests -------------------------------------------------------------------------


def test_properties_are_resolved_to_plain_strings(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(
        "Parameters:\n  P: {Type: String, Default: blue}\nResources:\n  R:\n"
        "    Type: Custom::X\n    Properties:\n"
        "      A: !Ref P\n      B: !Sub '${P}-${AWS::Region}-${Other.Arn}'\n"
        "      C: 3\n      D: true\n      E: !GetAtt Other.Arn\n"
        "      F: !Join ['/', [a, !Ref P]]\n      G: [1, {H: !Ref Other}]\n"
    )
    template = load_template(path)
    props = plain(template, template.resources["R"]["Properties"], "eu-west-1")
    assert props == {
        "A": "blue",
        "B": "blue-eu-west-1-Other-Arn",
        "C": "3",
        "D": "true",
        "E": "Other-Arn",
        "F": "a/blue",
        "G": ["1", {"H": "Other-Ref"}],
    }


def test_update_request_carries_the_id_and_the_old_properties() -> None:
    event = request(
        "Update",
        "R",
        "Custom::X",
        {"A": "2"},
        "us-east-1",
        physical_id="p1",
        old_properties={"A": "1"},
    )
    assert event["PhysicalResourceId"] == "p1"
    assert event["OldResourceProperties"] == {"A": "1"}
    assert event["StackId"].startswith("arn:aws:cloudformation:us-east-1:123456789012:stack/")
    create = request("Create", "R", "Custom::X", {}, "us-east-1")
    assert "PhysicalResourceId" not in create
    assert "OldResourceProperties" not in create


# -- the listener -------------------------------------------------------------------------


def _ssm(url: str) -> Any:
    return boto3.client(
        "ssm",
        endpoint_url=url,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


def test_listener_records_forwards_and_fails_calls(cfnops_sandbox: Any) -> None:
    with Listener(cfnops_sandbox.endpoint_url) as listener:
        ssm = _ssm(listener.url)
        listener.current = "a"
        ssm.put_parameter(Name="/exercise/listener", Value="1", Type="String", Overwrite=True)
        assert ssm.get_parameter(Name="/exercise/listener")["Parameter"]["Value"] == "1"
        listener.current, listener.failing = "b", True
        with pytest.raises(ClientError) as caught:
            ssm.delete_parameter(Name="/exercise/listener")
        assert caught.value.response["Error"]["Code"] == "AccessDeniedException"
    a, b = listener.calls["a"], listener.calls["b"]
    assert [(c.operation, c.changes, c.error) for c in a] == [
        ("PutParameter", True, ""),
        ("GetParameter", False, ""),
    ]
    assert [(c.operation, c.changes, c.error) for c in b] == [
        ("DeleteParameter", True, "AccessDeniedException")
    ]
    assert b[0].mentions("/exercise/listener")
    # the failed call never reached the sandbox
    value = _ssm(cfnops_sandbox.endpoint_url).get_parameter(Name="/exercise/listener")
    assert value["Parameter"]["Value"] == "1"


# -- handlers, run ------------------------------------------------------------------------

STABLE = """\
import os, uuid, cfnresponse
def handler(event, context):
    assert os.environ["STAGE"] == "prod"  # the function's environment, resolved
    pid = event.get("PhysicalResourceId") or "thing-" + str(uuid.uuid4())
    cfnresponse.send(event, context, cfnresponse.SUCCESS, {}, pid)
"""


def test_a_stable_handler_answers_the_same_id_to_every_request(
    cfnops_sandbox: Any, tmp_path: Path
) -> None:
    report = _exercise(cfnops_sandbox, _template(tmp_path, STABLE))
    ((run_,),) = [report.exercised]
    assert run_.exercised, run_.reason
    assert [s.event for s in run_.steps] == [
        "Create",
        "Update (properties unchanged)",
        "Update (properties changed)",
        "Update (its AWS calls fail: it made none, so it did not fail)",
        "Delete (an id it never issued)",
        "Delete",
    ]
    created = run_.steps[0].physical_id
    assert created.startswith("thing-")
    assert [s.physical_id for s in run_.steps] == [created] * 4 + [
        "cfnops-exercise-never-issued-0d4f",
        created,
    ]
    assert {s.status for s in run_.steps} == {"SUCCESS"}
    assert _rules(report) == set()


UUID_ON_UPDATE = """\
import uuid, cfnresponse
def handler(event, context):
    pid = "thing-" + str(uuid.uuid4())
    if event["RequestType"] == "Delete":
        pid = event["PhysicalResourceId"]
    cfnresponse.send(event, context, cfnresponse.SUCCESS, {}, pid)
"""


@pytest.fixture(scope="module")
def uuid_report(
    cfnops_sandbox_server: Any, tmp_path_factory: pytest.TempPathFactory
) -> GuardReport:
    """The handler minting a uuid on every Create and Update, exercised once."""
    path = _template(tmp_path_factory.mktemp("uuid"), UUID_ON_UPDATE)
    return _exercise(cfnops_sandbox_server, path)


def test_a_new_id_on_update_is_an_ex001_error(uuid_report: GuardReport) -> None:
    report = uuid_report
    assert _rules(report) == {("EX001", Severity.ERROR)}
    (finding,) = [f for f in report.findings if f.rule == "EX001"]
    assert finding.resource == "Thing"
    # located at the custom resource in the template
    lines = Path(finding.file).read_text().splitlines()
    assert lines[finding.line - 1] == "    Type: Custom::Thing"
    assert "Update (properties unchanged)" in finding.message
    assert report.has_errors


def test_json_sarif_and_text_carry_the_runs(
    uuid_report: GuardReport, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = to_json(uuid_report)
    (entry,) = data["exercised"]
    assert entry["resource"] == "Thing" and entry["exercised"] is True
    assert [s["event"] for s in entry["steps"]][:2] == ["Create", "Update (properties unchanged)"]
    assert {f["rule"] for f in data["findings"]} == {"CR002", "EX001"}
    sarif = to_sarif(uuid_report)["runs"][0]
    ids = [r["id"] for r in sarif["tool"]["driver"]["rules"]]
    assert set(ids) >= {rule.id for rule in EXERCISE_RULES}
    results = {r["ruleId"]: r for r in sarif["results"]}
    assert ids[results["EX001"]["ruleIndex"]] == "EX001"
    monkeypatch.chdir(Path(uuid_report.template).parent)  # URIs relative to the checkout
    assert problems([to_sarif(uuid_report)]) == []  # GitHub code scanning's rules
    console = Console(record=True, width=200, color_system=None)
    render_text(uuid_report, console)
    text = console.export_text()
    assert "EX001" in text and "exercised Thing (function Fn)" in text
    assert "Update (properties unchanged)" in text


ONLY_ON_CHANGE = """\
import hashlib, json, cfnresponse
def handler(event, context):
    props = json.dumps(event["ResourceProperties"], sort_keys=True).encode()
    pid = "thing-" + hashlib.sha256(props).hexdigest()[:8]
    cfnresponse.send(event, context, cfnresponse.SUCCESS, {}, pid)
"""


def test_a_new_id_only_when_properties_change_is_a_warning(
    cfnops_sandbox: Any, tmp_path: Path
) -> None:
    report = _exercise(cfnops_sandbox, _template(tmp_path, ONLY_ON_CHANGE))
    assert _rules(report) == {("EX001", Severity.WARNING)}
    (finding,) = [f for f in report.findings if f.rule == "EX001"]
    assert "properties changed" in finding.message.lower()
    changed = report.exercised[0].steps[2]
    assert changed.physical_id != report.exercised[0].steps[0].physical_id


FAILED_WITHOUT_ID = """\
import boto3, cfnresponse
def handler(event, context):
    props = event["ResourceProperties"]
    try:
        if event["RequestType"] != "Delete":
            ssm = boto3.client("ssm")
            ssm.put_parameter(Name="/exercise/" + props["Name"], Value="1", Type="String")
        cfnresponse.send(event, context, cfnresponse.SUCCESS, {}, props["Name"])
    except Exception:
        cfnresponse.send(event, context, cfnresponse.FAILED, {})
"""


def test_a_failed_update_answering_a_new_id_is_ex002(cfnops_sandbox: Any, tmp_path: Path) -> None:
    report = _exercise(cfnops_sandbox, _template(tmp_path, FAILED_WITHOUT_ID, name="failing"))
    assert _rules(report) == {("EX002", Severity.WARNING)}
    failing = report.exercised[0].steps[3]
    assert failing.event == "Update (its AWS calls fail)"
    assert failing.status == "FAILED"
    assert "PutParameter (AccessDeniedException)" in failing.detail
    assert not report.has_errors  # like CR001 on a FAILED-only call: a warning
    value = _ssm(cfnops_sandbox.endpoint_url).get_parameter(Name="/exercise/failing")
    assert value["Parameter"]["Value"] == "1"  # Create really ran against the sandbox


DELETE_BY_NAME = """\
import boto3, cfnresponse
ssm = boto3.client("ssm")
def handler(event, context):
    name = "/exercise/" + event["ResourceProperties"]["Name"]
    if event["RequestType"] == "Delete":
        {delete}
    else:
        ssm.put_parameter(Name=name, Value="1", Type="String", Overwrite=True)
    cfnresponse.send(event, context, cfnresponse.SUCCESS, {{}}, name)
"""


@pytest.mark.parametrize(
    ("delete", "flagged"),
    [
        ("ssm.delete_parameter(Name=name)", True),
        (
            "ssm.delete_parameter(Name=name) if event['PhysicalResourceId'] == name else 0",
            False,
        ),
    ],
    ids=["by-properties", "by-id"],
)
def test_a_delete_of_an_unknown_id_that_changes_something_else_is_ex003(
    cfnops_sandbox: Any, tmp_path: Path, delete: str, flagged: bool
) -> None:
    code = DELETE_BY_NAME.format(delete=delete)
    report = _exercise(cfnops_sandbox, _template(tmp_path, code, name=f"del-{flagged}"))
    assert _rules(report) == ({("EX003", Severity.WARNING)} if flagged else set())
    foreign = report.exercised[0].steps[4]
    assert foreign.changes == (("DeleteParameter",) if flagged else ())


def test_a_missing_module_is_not_exercised_with_why(cfnops_sandbox: Any, tmp_path: Path) -> None:
    code = "import cfnops_no_such_module\ndef handler(event, context):\n    pass\n"
    report = _exercise(cfnops_sandbox, _template(tmp_path, code))
    (run_,) = report.exercised
    assert not run_.exercised
    assert "'cfnops_no_such_module', which is not installed here" in run_.reason
    assert _rules(report) == set()


def test_a_handler_that_never_answers_is_not_exercised(cfnops_sandbox: Any, tmp_path: Path) -> None:
    code = "import time\ndef handler(event, context):\n    time.sleep(60)\n"
    report = _exercise(cfnops_sandbox, _template(tmp_path, code), timeout=2.0)
    (run_,) = report.exercised
    assert not run_.exercised
    assert "no response within" in run_.reason


PYTHON2 = """\
import uuid, cfnresponse
def handler(event, context):
    print "got", event['RequestType']
    cfnresponse.send(event, context, cfnresponse.SUCCESS, {}, str(uuid.uuid4()))
"""


def test_a_python2_handler_runs_as_its_translation(cfnops_sandbox: Any, tmp_path: Path) -> None:
    report = _exercise(cfnops_sandbox, _template(tmp_path, PYTHON2, runtime="python2.7"))
    (run_,) = report.exercised
    assert run_.exercised, run_.reason
    assert "2to3" in run_.note
    assert ("EX001", Severity.ERROR) in _rules(report)
    assert {f.rule for f in report.findings} >= {"CR002", "EX001"}


NODE_DEFAULT_ID = """\
const response = require('cfn-response');
exports.handler = (event, context) => {
  response.send(event, context, response.SUCCESS, {});
};
"""


def test_a_node_handler_runs_or_says_why_not(cfnops_sandbox: Any, tmp_path: Path) -> None:
    report = _exercise(cfnops_sandbox, _template(tmp_path, NODE_DEFAULT_ID, runtime="nodejs20.x"))
    (run_,) = report.exercised
    if shutil.which("node") is None:
        assert not run_.exercised
        assert "no `node` on PATH" in run_.reason
        return
    assert run_.exercised, run_.reason
    assert run_.steps[0].physical_id.startswith("2026/01/01/[$LATEST]")  # the log stream
    assert ("EX001", Severity.ERROR) in _rules(report)


# -- the command --------------------------------------------------------------------------


def test_cli_exercise_sarif_and_exit_code(
    cfnops_sandbox: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _template(tmp_path, UUID_ON_UPDATE)
    url = cfnops_sandbox.endpoint_url
    assert run(["--endpoint-url", url, "guard", str(path), "--exercise", "-o", "sarif"]) == 1
    sarif = json.loads(capsys.readouterr().out)["runs"][0]
    assert {r["ruleId"] for r in sarif["results"]} == {"CR002", "EX001"}


def test_cli_not_exercised_fails_only_with_fail_on_unchecked(
    cfnops_sandbox: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = "import cfnops_no_such_module\ndef handler(event, context):\n    pass\n"
    path = _template(tmp_path, code)
    args = ["guard", str(path), "--exercise", "--endpoint-url", cfnops_sandbox.endpoint_url]
    assert run([*args, "-o", "sarif"]) == 0
    notes = json.loads(capsys.readouterr().out)["runs"][0]["invocations"][0]
    (note,) = [
        n
        for n in notes["toolExecutionNotifications"]
        if n.get("descriptor", {}).get("id") == "not-exercised"
    ]
    assert "cfnops_no_such_module" in note["message"]["text"]
    assert run([*args, "--fail-on-unchecked"]) == 1
    capsys.readouterr()


def test_cli_starts_its_own_sandbox(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _template(tmp_path, STABLE)
    assert run(["guard", str(path), "--exercise", "-o", "json"]) == 0
    (entry,) = json.loads(capsys.readouterr().out)["exercised"]
    assert entry["exercised"] is True

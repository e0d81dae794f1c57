"""``cfnops drift adopt``: the template declaring actual values, format kept, Ref never guessed."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from tests.heal._support import unique

from cfnops.cli.main import run
from cfnops.demo.heal_sample import wait_stack
from cfnops.heal import PropertyDrift, ResourceDrift
from cfnops.heal._adopt import adopt_template
from cfnops.sandbox import Sandbox

YAML_TEMPLATE = """\
# web stack
AWSTemplateFormatVersion: '2010-09-09'
Parameters:
  Greeting:
    Type: String
    Default: hello   # the default greeting
Resources:
  Literal:  # a literal value
    Type: AWS::SSM::Parameter
    Properties:
      Name: !Sub '/${AWS::StackName}/literal'
      Type: String
      Value: initial   # keep this comment
  FromRef:
    Type: AWS::SSM::Parameter
    Properties:
      Name: !Sub '/${AWS::StackName}/ref'
      Type: String
      Value: !Ref Greeting
"""

JSON_TEMPLATE = {
    "Resources": {
        "Queue": {
            "Type": "AWS::SQS::Queue",
            "Properties": {
                "QueueName": "q",
                "VisibilityTimeout": 30,
                "Tags": [{"Key": "team", "Value": "web"}],
                "DelaySeconds": 5,
            },
        }
    }
}


def _drift(lid: str, *diffs: tuple[str, str | None, str]) -> ResourceDrift:
    props = tuple(PropertyDrift(p, None, actual, kind) for p, actual, kind in diffs)
    return ResourceDrift(lid, "AWS::SQS::Queue", "MODIFIED", "x", props)


def test_json_keeps_order_and_indent_and_applies_each_difference_type() -> None:
    text = json.dumps(JSON_TEMPLATE, indent=4)
    drift = _drift(
        "Queue",
        ("/VisibilityTimeout", "60", "NOT_EQUAL"),
        ("/Tags/0/Value", "payments", "NOT_EQUAL"),
        ("/DelaySeconds", None, "REMOVE"),
        ("/MaximumMessageSize", "1024", "ADD"),
    )
    adoption = adopt_template(text, [drift])
    assert adoption.format == "json"
    data = json.loads(adoption.text)
    props = data["Resources"]["Queue"]["Properties"]
    assert props == {
        "QueueName": "q",
        "VisibilityTimeout": 60,
        "Tags": [{"Key": "team", "Value": "payments"}],
        "MaximumMessageSize": 1024,
    }
    assert adoption.text.startswith('{\n    "Resources"')  # the 4-space indent is kept
    assert [a[1] for a in adoption.adopted] == [
        "/VisibilityTimeout",
        "/Tags/0/Value",
        "/DelaySeconds",
        "/MaximumMessageSize",
    ]
    assert adopt_template(JSON_TEMPLATE, [drift]).text == json.dumps(data, indent=2) + "\n"


def test_yaml_keeps_comments_and_short_tags_and_reports_the_ref() -> None:
    literal = ResourceDrift(
        "Literal", "AWS::SSM::Parameter", "MODIFIED", "/s/literal",
        (PropertyDrift("/Value", "initial", "changed", "NOT_EQUAL"),),
    )  # fmt: skip
    from_ref = ResourceDrift(
        "FromRef", "AWS::SSM::Parameter", "MODIFIED", "/s/ref",
        (PropertyDrift("/Value", "hello", "bonjour", "NOT_EQUAL"),),
    )  # fmt: skip
    gone = ResourceDrift("Gone", "AWS::SSM::Parameter", "DELETED", "/s/gone")
    adoption = adopt_template(YAML_TEMPLATE, [literal, from_ref, gone])
    assert adoption.format == "yaml"
    assert adoption.text == YAML_TEMPLATE.replace(
        "Value: initial   # keep this comment", "Value: changed   # keep this comment"
    )
    (edit,) = adoption.edit_here
    assert (edit.pointer, edit.line, edit.found) == (
        "/Resources/FromRef/Properties/Value",
        19,
        "!Ref Greeting",
    )
    assert edit.hint == (
        "Ref to parameter Greeting: deploy with Greeting=bonjour (or change its Default, line 6)"
    )
    assert adoption.skipped[0].startswith("Gone was deleted out of band")


def test_a_value_inside_an_intrinsic_is_reported_not_guessed_in_json() -> None:
    template = {
        "Resources": {
            "Q": {
                "Type": "AWS::SQS::Queue",
                "Properties": {"QueueName": {"Fn::Sub": "${AWS::StackName}-q"}},
            }
        }
    }
    drift = _drift("Q", ("/QueueName", "renamed", "NOT_EQUAL"))
    adoption = adopt_template(json.dumps(template), [drift])
    (edit,) = adoption.edit_here
    assert edit.pointer == "/Resources/Q/Properties/QueueName" and edit.line is None
    assert edit.hint == "Fn::Sub: edit the string (or its variables) so it renders 'renamed'"
    assert json.loads(adoption.text) == template and adoption.adopted == ()


def _cli(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    for key, value in sandbox.environment().items():
        monkeypatch.setenv(key, value)
    return run(["--endpoint-url", sandbox.endpoint_url, "--region", "us-east-1", *args])


def test_adopt_through_the_cli_writes_only_the_template_to_stdout(
    cfnops_sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cfn, ssm = cfnops_sandbox.client("cloudformation"), cfnops_sandbox.client("ssm")
    stack = unique("adopt")
    cfn.create_stack(StackName=stack, TemplateBody=YAML_TEMPLATE)
    wait_stack(cfn, stack)
    assert _cli(cfnops_sandbox, monkeypatch, "drift", "adopt", stack) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and f"stack {stack} has no drift to adopt" in captured.err
    ssm.put_parameter(Name=f"/{stack}/literal", Value="changed", Type="String", Overwrite=True)
    ssm.put_parameter(Name=f"/{stack}/ref", Value="bonjour", Type="String", Overwrite=True)
    time.sleep(0.01)
    assert _cli(cfnops_sandbox, monkeypatch, "drift", "adopt", stack, "--resource", "Nope") == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "--resource Nope: no drift to adopt there (drifted: " in captured.err
    monkeypatch.setenv("COLUMNS", "250")
    assert _cli(cfnops_sandbox, monkeypatch, "drift", "adopt", stack) == 0
    captured = capsys.readouterr()
    assert "Value: changed   # keep this comment" in captured.out
    assert "Value: !Ref Greeting" in captured.out and "# web stack" in captured.out
    assert "[~] AWS::SSM::Parameter Literal" in captured.err
    assert (
        "edit here: /Resources/FromRef/Properties/Value (line 19) is !Ref Greeting; "
        "actual 'bonjour': Ref to parameter Greeting: deploy with Greeting=bonjour" in captured.err
    )
    args = ("-o", "json", "drift", "adopt", stack, "--resource", "Literal")
    assert _cli(cfnops_sandbox, monkeypatch, *args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["format"] == "yaml" and out["editHere"] == []
    assert out["adopted"] == [
        {"logicalId": "Literal", "path": "/Value", "change": "'initial' → 'changed'"}
    ]


def test_adopt_a_json_stack(
    cfnops_sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cfn, ssm = cfnops_sandbox.client("cloudformation"), cfnops_sandbox.client("ssm")
    stack = unique("adoptj")
    template = {
        "Resources": {
            "P": {
                "Type": "AWS::SSM::Parameter",
                "Properties": {"Name": f"/{stack}/p", "Type": "String", "Value": "one"},
            }
        }
    }
    cfn.create_stack(StackName=stack, TemplateBody=json.dumps(template, indent=2))
    wait_stack(cfn, stack)
    ssm.put_parameter(Name=f"/{stack}/p", Value="two", Type="String", Overwrite=True)
    assert _cli(cfnops_sandbox, monkeypatch, "drift", "adopt", stack) == 0
    adopted = json.loads(capsys.readouterr().out)
    assert adopted["Resources"]["P"]["Properties"]["Value"] == "two"
    assert list(adopted["Resources"]["P"]["Properties"]) == ["Name", "Type", "Value"]


def test_adopt_leaves_accepted_drift_as_the_template_says(
    cfnops_sandbox: Sandbox,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("CFNOPS_DATABASE_URL", f"sqlite:///{tmp_path / 'accepted.sqlite'}")
    cfn, ssm = cfnops_sandbox.client("cloudformation"), cfnops_sandbox.client("ssm")
    stack = unique("adopta")
    cfn.create_stack(StackName=stack, TemplateBody=YAML_TEMPLATE)
    wait_stack(cfn, stack)
    ssm.put_parameter(Name=f"/{stack}/literal", Value="changed", Type="String", Overwrite=True)
    accept = ("drift", "accept", stack, "Literal", "/Value", "--until", "2099-12-31")
    assert _cli(cfnops_sandbox, monkeypatch, *accept, "--reason", "intended") == 0
    capsys.readouterr()
    # the only drift is accepted: nothing to adopt, and the message says why
    assert _cli(cfnops_sandbox, monkeypatch, "drift", "adopt", stack) == 2
    err = capsys.readouterr().err
    assert "accepted drift on Literal is not adopted" in err

    ssm.put_parameter(Name=f"/{stack}/ref", Value="bonjour", Type="String", Overwrite=True)
    assert _cli(cfnops_sandbox, monkeypatch, "-o", "json", "drift", "adopt", stack) == 0
    out = json.loads(capsys.readouterr().out)
    assert "Value: initial   # keep this comment" in out["template"]  # accepted: kept
    assert out["adopted"] == []
    assert [e["logicalId"] for e in out["editHere"]] == ["FromRef"]


@pytest.mark.parametrize(
    ("mapping", "dash"),
    [(2, "  - "), (2, "- "), (4, "    -   "), (4, "  - ")],
    ids=["indented-2", "flush-2", "indented-4", "half-4"],
)
def test_yaml_sequences_keep_their_indentation(mapping: int, dash: str) -> None:
    m = " " * mapping
    item = " " * len(dash)
    text = (
        "Resources:\n"
        f"{m}Queue:\n"
        f"{m}{m}Type: AWS::SQS::Queue\n"
        f"{m}{m}Properties:\n"
        f"{m}{m}{m}QueueName: q\n"
        f"{m}{m}{m}Tags:\n"
        f"{m}{m}{m}{dash}Key: team\n"
        f"{m}{m}{m}{item}Value: web\n"
        f"{m}{m}{m}{dash}Key: env\n"
        f"{m}{m}{m}{item}Value: prod\n"
    )
    drift = _drift("Queue", ("/Tags/0/Value", "payments", "NOT_EQUAL"))
    adoption = adopt_template(text, [drift])
    assert adoption.text == text.replace("Value: web", "Value: payments")

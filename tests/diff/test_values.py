"""Value propagation, the mangled-equivalent gate and guard escalation."""

from __future__ import annotations

from typing import Any

from cfnops.diff import (
    FailOn,
    Impact,
    ResourceDiff,
    TemplateDiff,
    diff_templates,
    escalate,
    gate,
    to_json,
)


def _stack(name: str) -> dict[str, Any]:
    return {
        "Resources": {
            "Table": {"Type": "AWS::DynamoDB::Table", "Properties": {"TableName": name}},
            "Fn": {
                "Type": "AWS::Lambda::Function",
                "Properties": {
                    "Role": "arn:aws:iam::1:role/r",
                    "Code": {"ZipFile": "x"},
                    "Environment": {"Variables": {"TABLE": {"Ref": "Table"}}},
                },
            },
            "Untouched": {"Type": "AWS::SNS::Topic", "Properties": {"DisplayName": "t"}},
        },
        "Outputs": {
            "TableArn": {"Value": {"Fn::GetAtt": ["Table", "Arn"]}},
            "Static": {"Value": "x"},
        },
    }


def test_referrers_of_a_replaced_resource_change_value_with_the_chain() -> None:
    result = diff_templates(_stack("a"), _stack("b"))
    assert result.difference_count == 1  # only the table: value changes are not counted
    assert result.resource("Fn") is None
    by_name = {(v.kind, v.name): v for v in result.value_changes}
    assert set(by_name) == {("resource", "Fn"), ("output", "TableArn")}
    fn = by_name[("resource", "Fn")]
    assert fn.impact is Impact.WILL_UPDATE
    assert fn.properties == ("Environment",)
    assert fn.refers_to == "Table"
    assert (
        fn.reason
        == "Environment refers to Table, which is replaced because TableName is create-only"
    )
    doc = to_json(result)
    assert doc["valueChanges"][0]["refersTo"] == "Table"


def test_no_value_changes_without_a_replacement() -> None:
    old, new = _stack("a"), _stack("a")
    new["Resources"]["Table"]["Properties"]["BillingMode"] = "PAY_PER_REQUEST"
    result = diff_templates(old, new)
    assert result.resource("Table") is not None
    assert result.value_changes == ()
    assert "valueChanges" not in to_json(result)


def test_mangled_equivalent_passes_the_gate_unless_strict() -> None:
    old = {"Description": "???", "Resources": {"Q": {"Type": "AWS::SQS::Queue"}}}
    new = {"Description": "日本語", "Resources": {"Q": {"Type": "AWS::SQS::Queue"}}}
    result = diff_templates(old, new)
    assert result.mangled_equivalent and not result.is_empty
    assert gate(result, FailOn.ANY) is None
    assert gate(result, FailOn.ANY, strict=True) is not None
    real = {"Description": "abc", "Resources": {"Q": {"Type": "AWS::SQS::Queue"}}}
    assert gate(diff_templates(old, real), FailOn.ANY) is not None


def test_escalate_turns_only_updates_into_replacements() -> None:
    diff = TemplateDiff(
        resources=(
            ResourceDiff("Cr", "Custom::Thing", Impact.WILL_UPDATE, "Cr is updated in place"),
            ResourceDiff("New", "Custom::Thing", Impact.WILL_CREATE, "only in the new template"),
        )
    )
    out = escalate(diff, {"Cr": "guard CR001", "New": "guard CR001"})
    cr, new = out.resource("Cr"), out.resource("New")
    assert cr is not None and cr.impact is Impact.WILL_REPLACE
    assert "old one deleted" in cr.reason
    assert new is not None and new.impact is Impact.WILL_CREATE
    assert gate(out, FailOn.REPLACE) == (cr,)
    assert gate(diff, FailOn.REPLACE) is None


def test_may_replace_does_not_spread_value_changes() -> None:
    def tpl(version: str) -> dict[str, Any]:
        return {
            "Resources": {
                "Web": {
                    "Type": "AWS::AutoScaling::AutoScalingGroup",
                    "Properties": {
                        "MinSize": "1",
                        "MaxSize": "2",
                        "LaunchTemplate": {"LaunchTemplateId": "lt-1", "Version": version},
                    },
                },
                "Alarm": {
                    "Type": "AWS::SNS::Topic",
                    "Properties": {"DisplayName": {"Ref": "Web"}},
                },
            }
        }

    result = diff_templates(tpl("1"), tpl("2"))
    web = result.resource("Web")
    assert web is not None and web.impact is Impact.MAY_REPLACE
    assert result.value_changes == ()


def test_cli_strict_makes_mangled_changes_trip(tmp_path: Any) -> None:
    import json as _json

    from cfnops.cli.main import run

    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(
        _json.dumps({"Description": "??", "Resources": {"Q": {"Type": "AWS::SQS::Queue"}}})
    )
    new.write_text(
        _json.dumps({"Description": "日本", "Resources": {"Q": {"Type": "AWS::SQS::Queue"}}}),
        encoding="utf-8",
    )
    assert run(["diff", str(old), str(new), "--fail-on", "any"]) == 0
    assert run(["diff", str(old), str(new), "--fail-on", "any", "--strict"]) == 1


def test_mangled_only_differences_are_not_counted_and_the_summary_says_why() -> None:
    from rich.console import Console

    from cfnops.diff import render_markdown, render_text

    # a Description with an emoji sequence of five code points, deployed as five "?"
    old = {"Description": "Release ?????", "Resources": {"Q": {"Type": "AWS::SQS::Queue"}}}
    new = {
        "Description": "Release \U0001f926\U0001f3fb\u200d\u2642\ufe0f",
        "Resources": {"Q": {"Type": "AWS::SQS::Queue"}},
    }
    result = diff_templates(old, new)
    assert result.difference_count == 1  # the conformance count: one changed section
    assert result.counted_differences == 0
    doc = to_json(result)
    assert doc["differenceCount"] == 0 and doc["mangledDifferenceCount"] == 1
    assert "GetTemplate returns each as '?'" in doc["notCounted"]
    console = Console(width=400, no_color=True, record=True)
    console.print(render_text(result))
    headline = console.export_text().splitlines()[0]
    assert headline.startswith("Stack diff: 0 differences (1 difference of mangled characters")
    assert "equivalent" in headline
    assert "0 differences" in render_markdown(result).splitlines()[0]
    # a real difference beside the mangled one is counted as usual
    new["Resources"]["Q"]["Properties"] = {"DelaySeconds": 5}
    both = diff_templates(old, new)
    assert not both.mangled_equivalent and both.counted_differences == 2

"""Conditions evaluated when parameter values are known."""

from __future__ import annotations

from typing import Any

from cfnops.diff import Impact, ParameterValue, diff_templates


def _tpl() -> dict[str, Any]:
    return {
        "Parameters": {"Env": {"Type": "String", "Default": "dev"}},
        "Conditions": {
            "IsProd": {"Fn::Equals": [{"Ref": "Env"}, "prod"]},
            "IsDev": {"Fn::Not": [{"Condition": "IsProd"}]},
            "Regional": {"Fn::Equals": [{"Ref": "AWS::Region"}, "us-east-1"]},
        },
        "Resources": {
            "Db": {
                "Type": "AWS::RDS::DBInstance",
                "Properties": {
                    "Engine": "postgres",
                    "DBInstanceClass": {"Fn::If": ["IsProd", "db.r6g.large", "db.t4g.micro"]},
                    "MultiAZ": {"Fn::If": ["IsProd", True, {"Ref": "AWS::NoValue"}]},
                },
            },
            "Replica": {
                "Type": "AWS::SNS::Topic",
                "Condition": "IsProd",
                "Properties": {"DisplayName": "replica"},
            },
            "Topic": {
                "Type": "AWS::SNS::Topic",
                "Properties": {"DisplayName": {"Fn::If": ["Regional", "a", "b"]}},
            },
        },
    }


def test_same_values_same_branches_no_change() -> None:
    values = (ParameterValue("Env", "prod", "prod"),)
    assert diff_templates(_tpl(), _tpl(), parameter_values=values).is_empty


def test_a_changed_value_takes_the_other_branch() -> None:
    values = (ParameterValue("Env", "dev", "prod"),)
    result = diff_templates(_tpl(), _tpl(), parameter_values=values)
    db = result.resource("Db")
    assert db is not None and db.impact is Impact.MAY_REPLACE  # MultiAZ added
    cls = db.property("DBInstanceClass")
    assert cls is not None and (cls.old, cls.new) == ("db.t4g.micro", "db.r6g.large")
    replica = result.resource("Replica")
    assert replica is not None and replica.impact is Impact.WILL_CREATE
    back = diff_templates(
        _tpl(), _tpl(), parameter_values=(ParameterValue("Env", "prod", "dev"),)
    ).resource("Replica")
    assert back is not None and back.impact is Impact.WILL_DESTROY


def test_a_condition_on_an_unknown_value_stays_as_written() -> None:
    values = (ParameterValue("Env", "dev", "dev"),)
    old, new = _tpl(), _tpl()
    new["Resources"]["Topic"]["Properties"]["DisplayName"] = {"Fn::If": ["Regional", "a", "c"]}
    topic = diff_templates(old, new, parameter_values=values).resource("Topic")
    assert topic is not None and topic.impact is Impact.WILL_UPDATE


def test_without_values_conditions_are_not_evaluated() -> None:
    old, new = _tpl(), _tpl()
    new["Conditions"]["IsProd"] = {"Fn::Equals": [{"Ref": "Env"}, "production"]}
    result = diff_templates(old, new)
    assert [c.name for c in result.conditions] == ["IsProd"]
    assert result.resource("Db") is None

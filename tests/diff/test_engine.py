"""Unit behaviour of the diff core beyond the shared fixtures."""

from __future__ import annotations

from typing import Any

import pytest

from cfnops.diff import (
    CUSTOM_RESOURCE_NOTE,
    Change,
    FailOn,
    Impact,
    ParameterValue,
    annotate,
    diff_templates,
    gate,
    parameter_values,
    parse_template,
    to_json,
)


def _bucket_chain(name: str) -> dict[str, Any]:
    return parse_template(f"""
Resources:
  Bucket:
    Type: AWS::S3::Bucket
    Properties: {{BucketName: {name}}}
  Queue:
    Type: AWS::SQS::Queue
    Properties: {{QueueName: !Ref Bucket}}
""")


def test_explanation_chain() -> None:
    result = diff_templates(_bucket_chain("a"), _bucket_chain("b"))
    queue = result.resource("Queue")
    assert queue is not None and queue.impact is Impact.WILL_REPLACE
    assert queue.reason == (
        "Queue is replaced because QueueName refers to Bucket, which is replaced because "
        "BucketName is create-only"
    )
    prop = queue.property("QueueName")
    assert prop is not None and prop.propagated_from == "Bucket" and prop.change is None


def test_identical_templates_have_no_difference() -> None:
    tpl = _bucket_chain("a")
    result = diff_templates(tpl, tpl)
    assert result.is_empty and result.difference_count == 0 and result.resources == ()


def test_may_replace_propagates_as_may_replace() -> None:
    def tpl(instance_type: str) -> dict[str, Any]:
        return parse_template(f"""
Resources:
  Web:
    Type: AWS::EC2::Instance
    Properties: {{ImageId: ami-1, InstanceType: {instance_type}}}
  Param:
    Type: AWS::SSM::Parameter
    Properties: {{Type: String, Value: x, Name: !Sub '/web/${{Web}}'}}
""")

    result = diff_templates(tpl("t3.micro"), tpl("t3.large"))
    assert result.resource("Web").impact is Impact.MAY_REPLACE  # type: ignore[union-attr]
    param = result.resource("Param")
    assert param is not None and param.impact is Impact.MAY_REPLACE
    assert "may be replaced because InstanceType is conditionally create-only" in param.reason


def test_sub_variable_shadows_resource_and_escaped_literal() -> None:
    def tpl(name: str) -> dict[str, Any]:
        return parse_template(f"""
Resources:
  Bucket:
    Type: AWS::S3::Bucket
    Properties: {{BucketName: {name}}}
  Shadowed:
    Type: AWS::SQS::Queue
    Properties:
      QueueName: !Sub ['${{Bucket}}-x', {{Bucket: fixed}}]
  Literal:
    Type: AWS::SQS::Queue
    Properties: {{QueueName: !Sub '${{!Bucket}}-y'}}
  Attr:
    Type: AWS::SQS::Queue
    Properties: {{QueueName: !Sub '${{Bucket.Arn}}-z'}}
""")

    result = diff_templates(tpl("a"), tpl("b"))
    assert result.resource("Shadowed") is None
    assert result.resource("Literal") is None
    assert result.resource("Attr").impact is Impact.WILL_REPLACE  # type: ignore[union-attr]


def test_unknown_schema_is_reported() -> None:
    old = {"Resources": {"R": {"Type": "Acme::X::Y", "Properties": {"A": 1}}}}
    new = {"Resources": {"R": {"Type": "Acme::X::Y", "Properties": {"A": 2}}}}
    res = diff_templates(old, new).resource("R")
    assert res is not None and res.impact is Impact.WILL_UPDATE
    assert res.properties[0].reason == "unknown schema"
    assert "unknown schema" in res.reason


def test_type_change_and_custom_resource_note() -> None:
    old = {
        "Resources": {
            "M": {"Type": "AWS::SQS::Queue"},
            "C": {"Type": "Custom::Thing", "Properties": {"ServiceToken": "arn", "Size": 1}},
        }
    }
    new = {
        "Resources": {
            "M": {"Type": "AWS::SNS::Topic"},
            "C": {"Type": "Custom::Thing", "Properties": {"ServiceToken": "arn", "Size": 2}},
        }
    }
    result = diff_templates(old, new)
    moved = result.resource("M")
    assert moved is not None and moved.impact is Impact.WILL_REPLACE
    assert moved.old_type == "AWS::SQS::Queue" and moved.properties == ()
    assert "type changes from AWS::SQS::Queue to AWS::SNS::Topic" in moved.reason
    custom = result.resource("C")
    assert custom is not None and custom.notes == (CUSTOM_RESOURCE_NOTE,)


def test_annotations_hook_attaches_text_only_to_reported_resources() -> None:
    result = diff_templates(_bucket_chain("a"), _bucket_chain("b"))
    annotated = annotate(result, {"Bucket": ["guard CR001: see finding"], "Ghost": ["x"]})
    assert annotated.resource("Bucket").annotations == ("guard CR001: see finding",)  # type: ignore[union-attr]
    assert annotated.resource("Ghost") is None
    assert to_json(annotated)["resources"]["Bucket"]["annotations"] == ["guard CR001: see finding"]


@pytest.mark.parametrize(
    ("level", "trips"),
    [(FailOn.REPLACE, True), (FailOn.DESTROY, False), (FailOn.ANY, True)],
)
def test_gate(level: FailOn, trips: bool) -> None:
    result = diff_templates(_bucket_chain("a"), _bucket_chain("b"))
    assert (gate(result, level) is not None) is trips


def test_gate_destroy_and_orphan() -> None:
    old = {
        "Resources": {
            "A": {"Type": "AWS::SQS::Queue"},
            "B": {"Type": "AWS::SQS::Queue", "DeletionPolicy": "Retain"},
        }
    }
    gone = diff_templates(old, {"Resources": {"B": old["Resources"]["B"]}})
    assert gate(gone, FailOn.DESTROY) is not None
    orphan = diff_templates(old, {"Resources": {"A": old["Resources"]["A"]}})
    assert orphan.resource("B").impact is Impact.WILL_ORPHAN  # type: ignore[union-attr]
    assert gate(orphan, FailOn.DESTROY) is None and gate(orphan, FailOn.ANY) is not None


def test_changed_parameter_value_reaches_properties() -> None:
    tpl = parse_template("""
Parameters:
  Ami: {Type: String, Default: ami-1}
  Size: {Type: String, Default: t3.micro}
Resources:
  Web:
    Type: AWS::EC2::Instance
    Properties: {ImageId: !Ref Ami, InstanceType: !Ref Size}
  Param:
    Type: AWS::SSM::Parameter
    Properties: {Type: String, Value: !Ref Size}
""")
    deployed = {"Ami": "ami-1", "Size": "t3.micro"}
    values = parameter_values(tpl, tpl, {"Ami": "ami-2", "Size": "t3.micro"}, deployed)
    assert [v.name for v in values if v.old != v.new] == ["Ami"]
    result = diff_templates(tpl, tpl, parameter_values=values)
    web = result.resource("Web")
    assert web is not None and web.impact is Impact.WILL_REPLACE
    assert web.property("ImageId").parameter == "Ami"  # type: ignore[union-attr]
    assert result.resource("Param") is None
    assert result.parameter_values == (ParameterValue("Ami", "ami-1", "ami-2"),)
    given = parameter_values(tpl, tpl, {"Size": "m5"}, deployed)
    size = diff_templates(tpl, tpl, parameter_values=given)
    assert size.resource("Param").impact is Impact.WILL_UPDATE  # type: ignore[union-attr]
    assert size.resource("Web").impact is Impact.MAY_REPLACE  # type: ignore[union-attr]


def test_offline_a_given_value_is_not_compared_with_a_guessed_deployed_one() -> None:
    tpl = parse_template("""
Parameters:
  Ami: {Type: String, Default: ami-1}
Resources:
  Web:
    Type: AWS::EC2::Instance
    Properties: {ImageId: !Ref Ami}
""")
    values = parameter_values(tpl, tpl, {"Ami": "ami-1"})
    assert values == (ParameterValue("Ami", None, "ami-1"),)
    web = diff_templates(tpl, tpl, parameter_values=values).resource("Web")
    assert web is not None and web.impact is Impact.MAY_REPLACE
    prop = web.property("ImageId")
    assert prop is not None and "unchanged only when the deployed value is 'ami-1'" in prop.reason


def test_without_values_parameters_are_not_evaluated() -> None:
    old = parse_template(
        "Parameters: {P: {Type: String, Default: a}}\n"
        "Resources: {B: {Type: AWS::S3::Bucket, Properties: {BucketName: !Ref P}}}"
    )
    new = parse_template(
        "Parameters: {P: {Type: String, Default: b}}\n"
        "Resources: {B: {Type: AWS::S3::Bucket, Properties: {BucketName: !Ref P}}}"
    )
    result = diff_templates(old, new)
    assert result.resources == () and [p.change for p in result.parameters] == [Change.MODIFIED]


def test_nested_intrinsic_arrays_keep_order_but_unordered_arrays_do_not() -> None:
    def sg(rules: list[Any]) -> dict[str, Any]:
        return {
            "Resources": {
                "G": {
                    "Type": "AWS::EC2::SecurityGroup",
                    "Properties": {"GroupDescription": "d", "SecurityGroupIngress": rules},
                }
            }
        }

    a = {"IpProtocol": "tcp", "FromPort": 80, "ToPort": 80, "CidrIp": "0.0.0.0/0"}
    b = {"IpProtocol": "tcp", "FromPort": "443", "ToPort": 443, "CidrIp": "0.0.0.0/0"}
    assert diff_templates(sg([a, b]), sg([b, a])).is_empty
    join = [{"Fn::Join": ["", ["x", "y"]]}]
    other = [{"Fn::Join": ["", ["y", "x"]]}]
    assert not diff_templates(sg(join), sg(other)).is_empty


def test_json_shape() -> None:
    doc = to_json(diff_templates(_bucket_chain("a"), _bucket_chain("b")))
    assert doc["differenceCount"] == 2
    prop = doc["resources"]["Bucket"]["properties"]["BucketName"]
    assert prop == {
        "impact": "WILL_REPLACE",
        "old": "a",
        "new": "b",
        "reason": "create-only property",
        "change": "MODIFIED",
        "path": "/properties/BucketName",
        "decidedBy": "registry schema",
    }
    assert doc["resources"]["Queue"]["properties"]["QueueName"]["propagatedFrom"] == "Bucket"
    assert set(doc) >= {"parameters", "outputs", "conditions", "mappings", "metadata", "sections"}
    assert doc["summary"] == {"WILL_REPLACE": 2}


def test_malformed_shapes_do_not_crash() -> None:
    odd: list[Any] = [
        {"Resources": {"A": None, "B": "x", "C": {"Type": 5, "Properties": [1]}}},
        {
            "Resources": {
                "A": {"Type": "AWS::S3::Bucket", "Properties": {"BucketName": {"Ref": []}}}
            }
        },
        {"Resources": {"Fn::ForEach::X": ["i", {"Ref": "P"}, {"R${i}": {"Type": "T"}}]}},
        {"Outputs": [], "Parameters": "x", "Resources": {}},
    ]
    for a in odd:
        for b in odd:
            diff_templates(a, b)
        assert diff_templates(a, a).is_empty


def _policy_template(statements: list[Any]) -> dict[str, Any]:
    return {
        "Resources": {
            "P": {
                "Type": "AWS::SQS::QueuePolicy",
                "Properties": {
                    "Queues": [{"Ref": "Q"}],
                    "PolicyDocument": {"Version": "2012-10-17", "Statement": statements},
                },
            }
        }
    }


def test_security_view_broadening_rules() -> None:
    allow = {"Effect": "Allow", "Action": "sqs:SendMessage", "Principal": "*", "Resource": "*"}
    deny = {"Effect": "Deny", "Action": "sqs:*", "Principal": "*", "Resource": "*"}
    dropped_deny = diff_templates(_policy_template([allow, deny]), _policy_template([allow]))
    view = dropped_deny.security
    assert view is not None and view.iam_broadened
    assert [s.effect for s in view.statements_removed] == ["Deny"]
    assert view.statements_removed[0].resources == ("${Q}",)  # implied: the attached queue
    dropped_allow = diff_templates(_policy_template([allow, deny]), _policy_template([deny]))
    assert dropped_allow.security is not None and not dropped_allow.security.iam_broadened


def test_security_view_ignores_reordering_and_moves() -> None:
    def groups(rules_a: list[Any], rules_b: list[Any]) -> dict[str, Any]:
        return {
            "Resources": {
                "A": {
                    "Type": "AWS::EC2::SecurityGroup",
                    "Properties": {"GroupDescription": "a", "SecurityGroupIngress": rules_a},
                },
                "Rule": {
                    "Type": "AWS::EC2::SecurityGroupIngress",
                    "Properties": {"GroupId": {"Fn::GetAtt": ["A", "GroupId"]}, **rules_b[0]},
                }
                if rules_b
                else None,
            }
        }

    r80 = {"IpProtocol": "tcp", "FromPort": 80, "ToPort": 80, "CidrIp": "10.0.0.0/8"}
    r443 = {"IpProtocol": "tcp", "FromPort": "443", "ToPort": 443, "CidrIp": "10.0.0.0/8"}
    moved = diff_templates(groups([r80, r443], []), groups([r80], [r443]))
    assert moved.security is not None and not moved.security.has_sg_changes
    widened = diff_templates(groups([r80], []), groups([r80, r443], []))
    assert widened.security is not None and widened.security.sg_broadened
    assert [(r.from_port, r.peer) for r in widened.security.ingress_added] == [(443, "10.0.0.0/8")]


def test_conditional_location_is_named_in_the_chain() -> None:
    def tpl(name: str) -> dict[str, Any]:
        return {
            "Resources": {
                "Bus": {"Type": "AWS::Events::EventBus", "Properties": {"Name": name}},
                "Rule": {
                    "Type": "AWS::Events::Rule",
                    "Properties": {
                        "EventBusName": {"Ref": "Bus"},
                        "EventPattern": {"source": ["x"]},
                    },
                },
            }
        }

    rule = diff_templates(tpl("a"), tpl("b")).resource("Rule")
    assert rule is not None and rule.impact is Impact.MAY_REPLACE
    assert rule.reason == (
        "Rule may be replaced because EventBusName (conditionally create-only) refers to Bus, "
        "which is replaced because Name is create-only"
    )
    assert rule.properties[0].reason.startswith("conditionally create-only; refers to Bus")


def test_nested_foreach_loops_expand_with_both_identifiers() -> None:
    def tpl(envs: list[str]) -> dict[str, Any]:
        return {
            "Transform": "AWS::LanguageExtensions",
            "Resources": {
                "Fn::ForEach::Env": [
                    "Env",
                    envs,
                    {
                        "Fn::ForEach::Tier": [
                            "Tier",
                            ["web", "db"],
                            {
                                "Q${Env}${Tier}": {
                                    "Type": "AWS::SQS::Queue",
                                    "Properties": {"QueueName": {"Fn::Sub": "${Env}-${Tier}"}},
                                }
                            },
                        ]
                    },
                ]
            },
        }

    result = diff_templates(tpl(["dev"]), tpl(["dev", "prod"]))
    assert sorted(r.logical_id for r in result.resources) == ["Qproddb", "Qprodweb"]
    assert all(r.impact is Impact.WILL_CREATE for r in result.resources)
    assert diff_templates(tpl(["dev"]), tpl(["dev"])).is_empty

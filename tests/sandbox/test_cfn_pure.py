"""Pure parts of the CloudFormation extensions: intrinsic resolution and drift comparison."""

from __future__ import annotations

import pytest

from cfnops.sandbox.extensions.cfn_compare import diff_properties
from cfnops.sandbox.extensions.cfn_resolve import DeploymentValues, UnresolvableError, resolve


def _ctx() -> DeploymentValues:
    attrs = {("Lt", "LatestVersionNumber"): "3", ("Topic", "TopicName"): "t"}
    return DeploymentValues(
        parameters={"Env": "prod", "Subnets": ["a", "b"]},
        pseudo={"AWS::Region": "us-east-1", "AWS::StackName": "s"},
        physical_ids={"Topic": "arn:topic"},
        get_att=lambda lid, attr: attrs[(lid, attr)],
        conditions={"IsProd": True},
        mappings={"M": {"prod": {"Size": "2"}}},
        exports={"Shared": "vpc-1"},
    )


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"Ref": "Env"}, "prod"),
        ({"Ref": "Topic"}, "arn:topic"),
        ({"Fn::GetAtt": ["Lt", "LatestVersionNumber"]}, "3"),
        ({"Fn::GetAtt": "Lt.LatestVersionNumber"}, "3"),
        (
            {"Fn::Sub": "${Env}-${AWS::Region}-${Topic.TopicName}-${!Literal}"},
            "prod-us-east-1-t-${Literal}",
        ),
        ({"Fn::Sub": ["${X}/${Env}", {"X": {"Ref": "Topic"}}]}, "arn:topic/prod"),
        ({"Fn::Join": [",", {"Ref": "Subnets"}]}, "a,b"),
        ({"Fn::Select": [1, {"Fn::Split": [",", "x,y,z"]}]}, "y"),
        ({"Fn::If": ["IsProd", "big", "small"]}, "big"),
        ({"Fn::FindInMap": ["M", {"Ref": "Env"}, "Size"]}, "2"),
        ({"Fn::ImportValue": "Shared"}, "vpc-1"),
        ({"Fn::Base64": "hi"}, "aGk="),
        ({"A": {"Ref": "AWS::NoValue"}, "B": [1, {"Ref": "AWS::NoValue"}]}, {"B": [1]}),
    ],
    ids=lambda v: str(v)[:40],
)
def test_resolve(value: object, expected: object) -> None:
    assert resolve(value, _ctx()) == expected


def test_resolve_unknown_reference() -> None:
    with pytest.raises(UnresolvableError):
        resolve({"Ref": "Missing"}, _ctx())


def test_diff_scalars_compare_by_canonical_text() -> None:
    assert diff_properties("AWS::SQS::Queue", {"DelaySeconds": "20"}, {"DelaySeconds": 20}) == []
    (d,) = diff_properties("AWS::SQS::Queue", {"DelaySeconds": "20"}, {"DelaySeconds": 120})
    assert d.to_api() == {
        "PropertyPath": "/DelaySeconds",
        "ExpectedValue": "20",
        "ActualValue": "120",
        "DifferenceType": "NOT_EQUAL",
    }


def test_diff_only_template_properties_and_sets() -> None:
    rule_a = {"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "CidrIp": "0.0.0.0/0"}
    rule_b = {"IpProtocol": "6", "FromPort": 22, "ToPort": 22, "CidrIp": "10.0.0.0/8"}
    expected = {"SecurityGroupIngress": [rule_a, rule_b]}
    actual = {
        "GroupName": "ignored",
        "SecurityGroupIngress": [dict(rule_b, IpProtocol="tcp"), dict(rule_a, Description="d")],
    }
    assert diff_properties("AWS::EC2::SecurityGroup", expected, actual) == []
    actual["SecurityGroupIngress"] = [
        dict(rule_a),
        {"IpProtocol": "udp", "FromPort": 53, "ToPort": 53},
    ]
    kinds = {(d.path, d.kind) for d in diff_properties("AWS::EC2::SecurityGroup", expected, actual)}
    assert kinds == {("/SecurityGroupIngress/1", "REMOVE"), ("/SecurityGroupIngress/1", "ADD")}


def test_diff_nested_paths_and_removed_properties() -> None:
    expected = {"RedrivePolicy": {"maxReceiveCount": 3}, "Name~/x": "a"}
    actual = {"RedrivePolicy": {"maxReceiveCount": 5, "deadLetterTargetArn": "arn"}}
    found = {(d.path, d.kind) for d in diff_properties("AWS::SQS::Queue", expected, actual)}
    assert found == {("/RedrivePolicy/maxReceiveCount", "NOT_EQUAL"), ("/Name~0~1x", "REMOVE")}

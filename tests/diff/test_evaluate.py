"""Evaluation before comparison: two spellings of one value are no change."""

from __future__ import annotations

from typing import Any

import pytest

from cfnops.diff import Impact, diff_templates


def _subnet(zone: Any, cidr: Any = "10.0.0.0/24") -> dict[str, Any]:
    return {
        "Resources": {
            "Net": {
                "Type": "AWS::EC2::Subnet",
                "Properties": {"VpcId": "vpc-1", "CidrBlock": cidr, "AvailabilityZone": zone},
            }
        }
    }


SAME = [
    pytest.param(
        {"Fn::Select": [0, {"Fn::GetAZs": ""}]},
        {"Fn::Select": [0, {"Fn::GetAZs": {"Ref": "AWS::Region"}}]},
        id="getazs-empty-vs-region",
    ),
    pytest.param(
        {"Fn::Select": ["1", {"Fn::GetAZs": {"Fn::Sub": "${AWS::Region}"}}]},
        {"Fn::Select": [1, {"Fn::GetAZs": ""}]},
        id="getazs-sub-region-and-string-index",
    ),
    pytest.param(
        {"Fn::Sub": "${AWS::Region}a"},
        {"Fn::Join": ["", [{"Ref": "AWS::Region"}, "a"]]},
        id="sub-vs-join-pseudo",
    ),
    pytest.param(
        {"Fn::Select": [1, ["us-east-1a", "us-east-1b"]]},
        "us-east-1b",
        id="select-literal-list",
    ),
    pytest.param(
        {"Fn::Select": [0, {"Fn::GetAZs": ""}]},
        {"Fn::Select": [0, {"Fn::GetAZs": None}]},
        id="getazs-empty-vs-null",
    ),
    pytest.param(
        {"Fn::Select": [0, {"Fn::GetAZs": None}]},
        {"Fn::Select": [0, {"Fn::GetAZs": {"Fn::Join": ["", [{"Ref": "AWS::Region"}]]}}]},
        id="getazs-null-vs-joined-region",
    ),
    pytest.param(
        {"Fn::Select": [1, {"Fn::Split": [",", "us-east-1a,us-east-1b"]}]},
        "us-east-1b",
        id="select-of-split-literal",
    ),
    pytest.param(
        {"Fn::Select": ["0", {"Fn::Split": ["|", {"Fn::Join": ["|", ["us-east-1a", "x"]]}]}]},
        "us-east-1a",
        id="select-of-split-of-join",
    ),
    pytest.param({"Fn::Join": ["-", ["us", "east", "1a"]]}, "us-east-1a", id="join-literals"),
    pytest.param({"Fn::Sub": "us-east-1a"}, "us-east-1a", id="sub-without-variables"),
    pytest.param(
        {"Fn::Sub": ["${A}-1a", {"A": {"Fn::Join": ["-", ["us", "east"]]}}]},
        "us-east-1a",
        id="sub-variable-map-of-literals",
    ),
]


@pytest.mark.parametrize(("old", "new"), SAME)
def test_two_spellings_are_no_change(old: Any, new: Any) -> None:
    assert diff_templates(_subnet(old), _subnet(new)).is_empty
    assert diff_templates(_subnet(new), _subnet(old)).is_empty


DIFFERENT = [
    pytest.param(
        {"Fn::Select": [0, {"Fn::GetAZs": ""}]},
        {"Fn::Select": [1, {"Fn::GetAZs": ""}]},
        id="other-index",
    ),
    pytest.param(
        {"Fn::Select": [0, {"Fn::GetAZs": ""}]},
        {"Fn::Select": [0, {"Fn::GetAZs": "eu-west-1"}]},
        id="getazs-explicit-region-is-not-assumed",
    ),
    pytest.param({"Fn::Join": ["", ["us-east-1", "b"]]}, "us-east-1a", id="join-other-text"),
    pytest.param({"Fn::Sub": "${!AWS::Region}a"}, {"Fn::Sub": "${AWS::Region}a"}, id="escaped"),
]


@pytest.mark.parametrize(("old", "new"), DIFFERENT)
def test_different_values_still_replace(old: Any, new: Any) -> None:
    res = diff_templates(_subnet(old), _subnet(new)).resource("Net")
    assert res is not None and res.impact is Impact.WILL_REPLACE


def test_sub_of_a_reference_equals_the_reference() -> None:
    def tpl(name: Any) -> dict[str, Any]:
        return {
            "Resources": {
                "Bucket": {"Type": "AWS::S3::Bucket"},
                "Param": {
                    "Type": "AWS::SSM::Parameter",
                    "Properties": {"Name": name, "Type": "String", "Value": "v"},
                },
            }
        }

    assert diff_templates(tpl({"Fn::Sub": "${Bucket}"}), tpl({"Ref": "Bucket"})).is_empty
    assert diff_templates(
        tpl({"Fn::Sub": "/app/${Bucket.Arn}"}),
        tpl({"Fn::Join": ["", ["/app/", {"Fn::GetAtt": "Bucket.Arn"}]]}),
    ).is_empty
    assert not diff_templates(
        tpl({"Fn::Sub": "/app/${Bucket.Arn}"}), tpl({"Fn::Sub": "/app/${Bucket}"})
    ).is_empty


def test_split_of_literal_text_is_the_list_and_base64_the_encoded_text() -> None:
    def sg(ids: Any, user_data: Any) -> dict[str, Any]:
        props = {"ImageId": "ami-1", "SecurityGroupIds": ids, "UserData": user_data}
        return {"Resources": {"I": {"Type": "AWS::EC2::Instance", "Properties": props}}}

    old = sg(["sg-1", "sg-2"], "ZWNobyBoaQ==")
    assert diff_templates(
        old, sg({"Fn::Split": [",", "sg-1,sg-2"]}, {"Fn::Base64": "echo hi"})
    ).is_empty
    res = diff_templates(old, sg({"Fn::Split": [",", "sg-1,sg-3"]}, {"Fn::Base64": "echo ho"}))
    changed = res.resource("I")
    assert changed is not None and {p.name for p in changed.properties} == {
        "SecurityGroupIds",
        "UserData",
    }


def test_a_property_set_to_no_value_is_an_absent_property() -> None:
    def bucket(**props: Any) -> dict[str, Any]:
        return {"Resources": {"B": {"Type": "AWS::S3::Bucket", "Properties": props}}}

    none = {"Ref": "AWS::NoValue"}
    assert diff_templates(bucket(Tags=[]), bucket(Tags=[], BucketName=none)).is_empty
    nested_old = bucket(VersioningConfiguration={"Status": "Enabled"})
    nested_new = bucket(VersioningConfiguration={"Status": "Enabled", "MfaDelete": none})
    assert diff_templates(nested_old, nested_new).is_empty
    res = diff_templates(bucket(BucketName="b"), bucket(BucketName=none)).resource("B")
    assert res is not None and res.impact is Impact.WILL_REPLACE


def test_getazs_of_nothing_is_the_stack_region_once_it_is_known() -> None:
    from cfnops.diff._pseudo import stack_pseudo_parameters

    known = stack_pseudo_parameters(
        "arn:aws:cloudformation:eu-west-1:123456789012:stack/web/0f1e2d3c-aaaa-bbbb-cccc-1234"
    )
    explicit = _subnet({"Fn::Select": [0, {"Fn::GetAZs": "eu-west-1"}]})
    for spelling in ("", None, {"Ref": "AWS::Region"}):
        implicit = _subnet({"Fn::Select": [0, {"Fn::GetAZs": spelling}]})
        assert diff_templates(explicit, implicit, pseudo_parameters=known).is_empty
    other = _subnet({"Fn::Select": [0, {"Fn::GetAZs": "us-east-1"}]})
    implicit = _subnet({"Fn::Select": [0, {"Fn::GetAZs": ""}]})
    assert not diff_templates(other, implicit, pseudo_parameters=known).is_empty


def test_known_pseudo_parameters_make_literals_and_pseudo_spellings_equal() -> None:
    from cfnops.diff._pseudo import stack_pseudo_parameters

    known = stack_pseudo_parameters(
        "arn:aws:cloudformation:eu-west-1:123456789012:stack/web/0f1e2d3c-aaaa-bbbb-cccc-1234"
    )
    assert known["AWS::Region"] == "eu-west-1" and known["AWS::StackName"] == "web"
    assert known["AWS::AccountId"] == "123456789012" and known["AWS::Partition"] == "aws"
    old, new = _subnet("eu-west-1a"), _subnet({"Fn::Sub": "${AWS::Region}a"})
    assert diff_templates(old, new, pseudo_parameters=known).is_empty
    other = _subnet({"Fn::Sub": "${AWS::Region}b"})
    res = diff_templates(old, other, pseudo_parameters=known).resource("Net")
    assert res is not None and res.impact is Impact.WILL_REPLACE
    # a Fn::Sub variable of the same name shadows the pseudo parameter
    shadow = _subnet({"Fn::Sub": ["${AWS::Region}a", {"AWS::Region": "us-east-1"}]})
    assert not diff_templates(old, shadow, pseudo_parameters=known).is_empty
    assert stack_pseudo_parameters("not-an-arn") == {}

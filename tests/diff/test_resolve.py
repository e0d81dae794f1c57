"""Resolve before deciding: mappings, allowed values, unchanged defaults, conditions.

The templates follow the examples of the AWS documentation: "Fn::FindInMap"
(intrinsic-function-reference-findinmap.html: a ``RegionMap`` keyed by region with
``HVM64``/``HVMG2`` AMIs), "Parameters" (parameters-section-structure.html:
``AllowedValues``, ``Default``) and "Conditions"
(conditions-section-structure.html: ``EnvType`` with ``prod``/``test``).
"""

from __future__ import annotations

from typing import Any

import pytest

from cfnops.diff import Impact, diff_templates, parameter_values, to_json


def _instance(
    image: Any,
    *,
    mappings: dict[str, Any] | None = None,
    parameters: dict[str, Any] | None = None,
    conditions: dict[str, Any] | None = None,
) -> dict[str, Any]:
    template: dict[str, Any] = {
        "Resources": {
            "EC2Instance": {
                "Type": "AWS::EC2::Instance",  # ImageId is create-only
                "Properties": {"ImageId": image, "InstanceType": "m1.small"},
            }
        }
    }
    for key, value in (
        ("Mappings", mappings),
        ("Parameters", parameters),
        ("Conditions", conditions),
    ):
        if value is not None:
            template[key] = value
    return template


def _region_map(key: str, west: str = "ami-0ff8a91507f77f867") -> dict[str, Any]:
    return {
        "RegionMap": {
            "us-east-1": {key: "ami-0ff8a91507f77f867"},
            "us-west-1": {key: "ami-0bdb828fd58c52235"},
            "eu-west-1": {key: west},
        }
    }


def _find(key: str) -> dict[str, Any]:
    return {"Fn::FindInMap": ["RegionMap", {"Ref": "AWS::Region"}, key]}


def test_renamed_mapping_key_with_equal_values_in_every_region_is_no_change() -> None:
    old = _instance(_find("HVM64"), mappings=_region_map("HVM64"))
    new = _instance(_find("AMI"), mappings=_region_map("AMI"))
    result = diff_templates(old, new)
    assert result.resource("EC2Instance") is None
    assert [m.name for m in result.mappings] == ["RegionMap"]  # the mapping text did change
    assert result.difference_count == 1
    assert any("EC2Instance.ImageId: equal once resolved" in n for n in result.notes)
    assert "every region the mapping lists" in " ".join(result.notes)


def test_a_mapping_value_changing_in_one_region_may_replace_naming_it() -> None:
    old = _instance(_find("HVM64"), mappings=_region_map("HVM64"))
    new = _instance(_find("AMI"), mappings=_region_map("AMI", west="ami-047bb4163c506cd98"))
    res = diff_templates(old, new).resource("EC2Instance")
    assert res is not None and res.impact is Impact.MAY_REPLACE
    prop = res.property("ImageId")
    assert prop is not None and prop.decided_by == "resolution"
    assert "changes for region eu-west-1" in prop.reason
    assert "equal for region us-east-1; region us-west-1" in prop.reason
    assert "eu-west-1" in res.reason


def test_a_mapping_value_changing_in_every_region_replaces() -> None:
    old = _instance(_find("HVM64"), mappings=_region_map("HVM64"))
    changed = {
        "RegionMap": {r: {"HVM64": f"ami-new-{r}"} for r in ("us-east-1", "us-west-1", "eu-west-1")}
    }
    res = diff_templates(old, _instance(_find("HVM64"), mappings=changed)).resource("EC2Instance")
    # the property text is unchanged: only the mapping differs, and FindInMap is not
    # re-evaluated for unchanged text (the conformance rule); with renamed keys it is
    assert res is None
    renamed = {k: {"AMI": v["HVM64"]} for k, v in changed["RegionMap"].items()}
    res = diff_templates(old, _instance(_find("AMI"), mappings={"RegionMap": renamed})).resource(
        "EC2Instance"
    )
    assert res is not None and res.impact is Impact.WILL_REPLACE
    prop = res.property("ImageId")
    assert prop is not None and "differs once resolved" in prop.reason


def test_literal_equal_to_the_only_allowed_value_is_no_change() -> None:
    params = {"EnvType": {"Type": "String", "AllowedValues": ["prod"], "Default": "prod"}}
    old = _instance("ami-prod")
    new = _instance({"Fn::Sub": "ami-${EnvType}"}, parameters=params)
    result = diff_templates(old, new)
    assert result.resource("EC2Instance") is None
    assert "parameter EnvType has one allowed value 'prod'" in " ".join(result.notes)


def test_unchanged_default_inlined_is_not_assumed_deployed() -> None:
    # the stack may run with another value than the default: the verdict depends on it
    params = {"ImageParam": {"Type": "String", "Default": "ami-0ff8a91507f77f867"}}
    old = _instance({"Ref": "ImageParam"}, parameters=params)
    new = _instance("ami-0ff8a91507f77f867", parameters=params)
    res = diff_templates(old, new).resource("EC2Instance")
    assert res is not None and res.impact is Impact.MAY_REPLACE
    prop = res.property("ImageId")
    assert prop is not None
    assert "unchanged only when ImageParam is 'ami-0ff8a91507f77f867'" in prop.reason
    assert "ImageParam's default 'ami-0ff8a91507f77f867' is such a value" in prop.reason
    known = parameter_values(old, new, {}, deployed={"ImageParam": "ami-0ff8a91507f77f867"})
    assert diff_templates(old, new, parameter_values=known).is_empty


def test_changed_default_is_not_assumed() -> None:
    old = _instance({"Ref": "ImageParam"}, parameters={"ImageParam": {"Type": "String"}})
    new = _instance("ami-1", parameters={"ImageParam": {"Type": "String", "Default": "ami-2"}})
    res = diff_templates(old, new).resource("EC2Instance")
    assert res is not None and res.impact is Impact.MAY_REPLACE
    prop = res.property("ImageId")
    assert prop is not None and "unchanged only when ImageParam is 'ami-1'" in prop.reason


def test_new_value_from_a_parameter_is_may_replace_with_the_condition_said() -> None:
    params = {"ImageParam": {"Type": "String", "Default": "ami-2"}}
    res = diff_templates(
        _instance("ami-1"), _instance({"Ref": "ImageParam"}, parameters=params)
    ).resource("EC2Instance")
    assert res is not None and res.impact is Impact.MAY_REPLACE
    prop = res.property("ImageId")
    assert prop is not None
    assert "unchanged only when ImageParam is 'ami-1'" in prop.reason
    assert "ImageParam's default 'ami-2' applies otherwise" in prop.reason


def test_value_from_the_region_is_may_replace_naming_the_region() -> None:
    def subnet(zone: Any) -> dict[str, Any]:
        props = {"VpcId": "vpc-1", "CidrBlock": "10.0.0.0/24", "AvailabilityZone": zone}
        return {"Resources": {"Net": {"Type": "AWS::EC2::Subnet", "Properties": props}}}

    res = diff_templates(subnet("us-east-1a"), subnet({"Fn::Sub": "${AWS::Region}a"})).resource(
        "Net"
    )
    assert res is not None and res.impact is Impact.MAY_REPLACE
    prop = res.property("AvailabilityZone")
    assert prop is not None and "AWS::Region is 'us-east-1'" in prop.reason
    # a text no region can produce is a replacement
    res = diff_templates(subnet("zone-a"), subnet({"Fn::Sub": "${AWS::Region}a"})).resource("Net")
    assert res is not None and res.impact is Impact.WILL_REPLACE


ENV = {"EnvType": {"Type": "String", "Default": "test", "AllowedValues": ["prod", "test"]}}
IS_PROD = {"CreateProdResources": {"Fn::Equals": [{"Ref": "EnvType"}, "prod"]}}


@pytest.mark.parametrize(
    ("old_image", "new_image", "impact", "said"),
    [
        pytest.param(
            "ami-1",
            {"Fn::If": ["CreateProdResources", "ami-1", "ami-1"]},
            None,
            "",
            id="both-branches-equal",
        ),
        pytest.param(
            "ami-1",
            {"Fn::If": ["CreateProdResources", "ami-1", "ami-2"]},
            Impact.MAY_REPLACE,
            "changes for EnvType=test, equal for EnvType=prod",
            id="one-branch-differs",
        ),
        pytest.param(
            {"Fn::FindInMap": ["Env", {"Ref": "EnvType"}, "Ami"]},
            {"Fn::If": ["CreateProdResources", "ami-p", "ami-t"]},
            None,
            "",
            id="mapping-by-parameter-equals-condition",
        ),
    ],
)
def test_condition_outcomes_over_allowed_values(
    old_image: Any, new_image: Any, impact: Impact | None, said: str
) -> None:
    mappings = {"Env": {"prod": {"Ami": "ami-p"}, "test": {"Ami": "ami-t"}}}
    old = _instance(old_image, parameters=ENV, conditions=IS_PROD, mappings=mappings)
    new = _instance(new_image, parameters=ENV, conditions=IS_PROD, mappings=mappings)
    res = diff_templates(old, new).resource("EC2Instance")
    if impact is None:
        assert res is None
        return
    assert res is not None and res.impact is impact
    prop = res.property("ImageId")
    assert prop is not None and said in prop.reason


def test_condition_no_value_decides_whether_a_create_only_property_is_set() -> None:
    free = {"Env": {"Type": "String"}}
    cond = {"IsProd": {"Fn::Equals": [{"Ref": "Env"}, "prod"]}}

    def tpl(name: Any) -> dict[str, Any]:
        return {
            "Parameters": free,
            "Conditions": cond,
            "Resources": {"B": {"Type": "AWS::S3::Bucket", "Properties": {"BucketName": name}}},
        }

    res = diff_templates(
        tpl("data"), tpl({"Fn::If": ["IsProd", "data", {"Ref": "AWS::NoValue"}]})
    ).resource("B")
    assert res is not None and res.impact is Impact.MAY_REPLACE
    prop = res.property("BucketName")
    assert prop is not None and "condition IsProd false" in prop.reason


def test_known_stack_values_resolve_exactly() -> None:
    params = {"Size": {"Type": "String"}}
    old = _instance({"Ref": "Size"}, parameters=params)
    new = _instance("ami-7", parameters=params)
    known = parameter_values(old, new, {}, deployed={"Size": "ami-7"})
    assert diff_templates(old, new, parameter_values=known).resource("EC2Instance") is None
    known = parameter_values(old, new, {}, deployed={"Size": "ami-6"})
    res = diff_templates(old, new, parameter_values=known).resource("EC2Instance")
    assert res is not None and res.impact is Impact.WILL_REPLACE


def test_resolution_can_be_turned_off_and_reaches_json() -> None:
    old = _instance(_find("HVM64"), mappings=_region_map("HVM64"))
    new = _instance(_find("AMI"), mappings=_region_map("AMI"))
    raw = diff_templates(old, new, resolve=False).resource("EC2Instance")
    assert raw is not None and raw.impact is Impact.WILL_REPLACE
    assert to_json(diff_templates(old, new))["notes"][0].startswith("EC2Instance.ImageId")


def test_a_resource_reference_replaced_by_a_literal_is_not_guessed_offline() -> None:
    def tpl(subnet: Any) -> dict[str, Any]:
        return {
            "Resources": {
                "Vpc": {"Type": "AWS::EC2::VPC", "Properties": {"CidrBlock": "10.0.0.0/16"}},
                "Net": {
                    "Type": "AWS::EC2::Subnet",
                    "Properties": {"VpcId": subnet, "CidrBlock": "10.0.0.0/24"},
                },
            }
        }

    # only the deployed stack knows the VPC's id: a change set decides (see test_stack)
    res = diff_templates(tpl({"Ref": "Vpc"}), tpl("vpc-0abc")).resource("Net")
    assert res is not None and res.impact is Impact.WILL_REPLACE

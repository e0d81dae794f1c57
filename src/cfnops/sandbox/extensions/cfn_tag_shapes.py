"""Resource ``Tags`` in the shape each resource type's schema declares.

CloudFormation resource types disagree on the shape of ``Tags``: most take a
list of ``{"Key": …, "Value": …}`` (``AWS::SQS::Queue``, ``AWS::SNS::Topic``,
``AWS::S3::Bucket``, ``AWS::EC2::SecurityGroup``, ``AWS::IAM::Role``,
``AWS::AutoScaling::AutoScalingGroup`` with ``PropagateAtLaunch``), while
``AWS::SSM::Parameter`` takes a JSON object of key-value pairs ("Tags: Json",
https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-ssm-parameter.html).
CloudFormation validates properties against the type's schema before it calls
the service and fails the resource with "Properties validation failed for
resource X with message: #/Tags: expected type: JSONObject, found: JSONArray";
the stack then rolls back (User Guide, "Stack status codes",
https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/view-stack-events.html).

moto did the opposite for SSM parameters: the map form crashed ``CreateStack``
(HTTP 500, ``put_parameter`` indexing a dict) and the list form deployed, then
showed ``/Tags`` drift forever. Here a stack creation whose template gives a
covered type the wrong shape ends ``ROLLBACK_COMPLETE`` with that reason and
creates nothing; the map form of an SSM parameter's tags deploys (moto is
handed the list it expects).
"""

from __future__ import annotations

import functools
from typing import Any

from cfnops.sandbox.extensions._cfn_apply import add_resource_event
from cfnops.sandbox.extensions._moto import install_once, moto_module

__all__ = ["TAG_SHAPES", "install", "tag_shape_error", "tags_as_list"]

# The shape of Tags per resource type the sandbox deploys and reads for drift.
TAG_SHAPES: dict[str, type] = {
    "AWS::SSM::Parameter": dict,
    "AWS::SNS::Topic": list,
    "AWS::SQS::Queue": list,
    "AWS::S3::Bucket": list,
    "AWS::EC2::SecurityGroup": list,
    "AWS::IAM::Role": list,
    "AWS::AutoScaling::AutoScalingGroup": list,
}

_JSON_NAMES: dict[type, str] = {dict: "JSONObject", list: "JSONArray"}


def _intrinsic(value: Any) -> bool:
    """``{"Ref": …}`` / ``{"Fn::…": …}``: resolved later, not judged here."""
    if not isinstance(value, dict) or len(value) != 1:
        return False
    key = str(next(iter(value)))
    return key == "Ref" or key.startswith("Fn::")


def tag_shape_error(resource_type: str, tags: Any) -> str | None:
    """The schema message for ``tags`` of the wrong shape, else ``None``."""
    want = TAG_SHAPES.get(resource_type)
    if want is None or _intrinsic(tags) or isinstance(tags, want):
        return None
    found = _JSON_NAMES.get(type(tags), type(tags).__name__)
    return f"#/Tags: expected type: {_JSON_NAMES[want]}, found: {found}"


def tags_as_list(tags: Any) -> list[dict[str, str]] | None:
    """An SSM parameter's tags map as the ``[{Key, Value}]`` list moto's PutParameter takes."""
    if isinstance(tags, dict):
        return [{"Key": str(k), "Value": str(v)} for k, v in tags.items()]
    return tags if tags is None else list(tags)


def _first_bad(template: dict[str, Any]) -> tuple[str, str, str] | None:
    for lid, res in (template.get("Resources") or {}).items():
        if not isinstance(res, dict):
            continue
        props = res.get("Properties") or {}
        if not isinstance(props, dict) or "Tags" not in props:
            continue
        message = tag_shape_error(str(res.get("Type", "")), props["Tags"])
        if message:
            return str(lid), str(res.get("Type")), message
    return None


def _fail_creation(stack: Any, lid: str, rtype: str, message: str) -> None:
    reason = f"Properties validation failed for resource {lid} with message: {message}"
    add_resource_event(stack, lid, None, rtype, "CREATE_FAILED", reason)
    stack.status = "ROLLBACK_IN_PROGRESS"
    stack._add_stack_event(
        "ROLLBACK_IN_PROGRESS",
        resource_status_reason=(
            f"The following resource(s) failed to create: [{lid}]. Rollback requested by user."
        ),
    )
    stack.status = "ROLLBACK_COMPLETE"
    stack._add_stack_event("ROLLBACK_COMPLETE")


def _wrap_create_resources(original: Any) -> Any:
    @functools.wraps(original)
    def create_resources(self: Any) -> None:
        bad = _first_bad(self.template_dict)
        if bad is None:
            original(self)
            return
        self.status = "CREATE_IN_PROGRESS"
        _fail_creation(self, *bad)

    return create_resources


def _wrap_ssm_create(original: Any) -> Any:
    def create_from_cloudformation_json(
        cls: Any, resource_name: str, cloudformation_json: Any, *args: Any, **kwargs: Any
    ) -> Any:
        props = dict(cloudformation_json.get("Properties") or {})
        if "Tags" in props:
            props["Tags"] = tags_as_list(props["Tags"])
        given = {**cloudformation_json, "Properties": props}
        return original.__func__(cls, resource_name, given, *args, **kwargs)

    return classmethod(create_from_cloudformation_json)


@install_once
def install() -> None:
    """Patch moto's stack creation and SSM parameter creation (idempotent)."""
    stack = moto_module("moto.cloudformation.models").Stack
    stack.create_resources = _wrap_create_resources(stack.create_resources)
    parameter = moto_module("moto.ssm.models").Parameter
    parameter.create_from_cloudformation_json = _wrap_ssm_create(
        parameter.__dict__["create_from_cloudformation_json"]
    )

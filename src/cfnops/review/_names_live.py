"""``cfnops diff --stack NAME NEW --validate``: explicit names already taken in the account.

A resource NEW creates with an explicit physical name fails when a resource of that
type and name exists outside the stack ("Resource already exists"; the create of
a custom-named resource, aws-properties-name.html). Checked at the AWS edge with
one read per named resource of the types below; a read that is denied or fails
otherwise decides nothing (no finding).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["taken_names"]

_NOT_FOUND = frozenset(
    {
        "404",
        "NoSuchBucket",
        "NotFound",
        "NoSuchEntity",
        "ResourceNotFoundException",
        "AWS.SimpleQueueService.NonExistentQueue",
        "QueueDoesNotExist",
    }
)
# type → (service, read, the read's arguments for a name)
_READS: dict[str, tuple[str, str, Callable[[str], dict[str, str]]]] = {
    "AWS::S3::Bucket": ("s3", "head_bucket", lambda n: {"Bucket": n}),
    "AWS::SQS::Queue": ("sqs", "get_queue_url", lambda n: {"QueueName": n}),
    "AWS::DynamoDB::Table": ("dynamodb", "describe_table", lambda n: {"TableName": n}),
    "AWS::Lambda::Function": ("lambda", "get_function", lambda n: {"FunctionName": n}),
    "AWS::IAM::Role": ("iam", "get_role", lambda n: {"RoleName": n}),
}


def _exists(client: Any, read: str, args: dict[str, str]) -> bool | None:
    from botocore.exceptions import BotoCoreError, ClientError

    from cfnops.aws import error_code

    try:
        getattr(client, read)(**args)
    except ClientError as exc:
        return False if error_code(exc) in _NOT_FOUND else None
    except BotoCoreError:
        return None
    return True


def taken_names(clients: Any, new: Mapping[str, Any], diff: Any) -> list[Any]:
    """Findings for resources ``diff`` creates whose literal explicit name is taken."""
    from cfnops.diff import DeployFinding, Impact, name_property

    resources = new.get("Resources") if isinstance(new.get("Resources"), Mapping) else {}
    assert isinstance(resources, Mapping)
    out: list[Any] = []
    for res in diff.resources:
        if res.impact is not Impact.WILL_CREATE or res.type not in _READS:
            continue
        prop = name_property(res.type, None)
        source = resources.get(res.logical_id)
        props = source.get("Properties") if isinstance(source, Mapping) else None
        name = props.get(prop) if isinstance(props, Mapping) and prop else None
        if not isinstance(name, str):
            continue  # built at deploy time (Sub, Ref): not knowable here
        service, read, args = _READS[res.type]
        if _exists(clients.client(service), read, args(name)) is True:
            out.append(
                DeployFinding(
                    "name-exists",
                    res.logical_id,
                    f"{res.logical_id}: a {res.type} named {name!r} already exists in the "
                    f"account: the create fails; choose another {prop}, or import the "
                    "existing resource into the stack",
                    ("Resources", res.logical_id, "Properties", str(prop)),
                )
            )
    return out

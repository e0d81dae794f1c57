"""Read a resource's live configuration from moto's backends, in template shape.

Each reader returns the resource's properties named and shaped as in the
CloudFormation template (``AWS::SQS::Queue`` → ``DelaySeconds``, ``Tags`` as
``[{Key, Value}]``), or ``None`` when the resource no longer exists. Tags that
AWS manages (``aws:*``) are left out: drift detection ignores them.
Resource types without a reader are NOT_CHECKED. :data:`READERS` is the one list of
the types handled: each has a writer of the same function name in ``_cfn_writers``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from cfnops.sandbox.extensions._moto import moto_module

__all__ = ["READERS", "read_actual"]

Reader = Callable[[str, str, str], dict[str, Any] | None]


def _tags(tags: dict[str, str] | list[dict[str, str]] | None) -> list[dict[str, str]]:
    if isinstance(tags, list):
        pairs = [
            (str(t.get("Key", t.get("key", ""))), str(t.get("Value", t.get("value", ""))))
            for t in tags
        ]
    else:
        pairs = list((tags or {}).items())
    return [{"Key": k, "Value": v} for k, v in pairs if not k.startswith("aws:")]


def _drop_none(props: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in props.items() if v is not None}


def _ssm_parameter(account: str, region: str, physical_id: str) -> dict[str, Any] | None:
    ssm_backends = moto_module("moto.ssm.models").ssm_backends

    backend = ssm_backends[account][region]
    param = backend.get_parameter(physical_id)
    if param is None:
        return None
    return _drop_none(
        {
            "Name": param.name,
            "Type": param.parameter_type,
            "Value": param.value,
            "Description": param.description,
            "AllowedPattern": param.allowed_pattern,
            "Tier": param.tier,
            "DataType": param.data_type,
            # A JSON object of key-value pairs in the template (not a [{Key, Value}] list).
            "Tags": {
                k: v
                for k, v in backend.list_tags_for_resource("Parameter", param.name).items()
                if not k.startswith("aws:")
            },
        }
    )


def _sns_topic(account: str, region: str, physical_id: str) -> dict[str, Any] | None:
    sns_backends = moto_module("moto.sns.models").sns_backends

    backend = sns_backends[account][region]
    topic = backend.topics.get(physical_id)
    if topic is None:
        return None
    subscriptions = [
        {"Endpoint": s.endpoint, "Protocol": s.protocol}
        for s in backend.subscriptions.values()
        if s.topic.arn == physical_id
    ]
    return _drop_none(
        {
            "TopicName": topic.name,
            "DisplayName": topic.display_name,
            "KmsMasterKeyId": topic.kms_master_key_id or None,
            "FifoTopic": topic.fifo_topic,
            "ContentBasedDeduplication": topic.content_based_deduplication,
            "Subscription": subscriptions,
            "Tags": _tags(getattr(topic, "_tags", {})),
        }
    )


def _sqs_queue(account: str, region: str, physical_id: str) -> dict[str, Any] | None:
    sqs_backends = moto_module("moto.sqs.models").sqs_backends

    name = physical_id.rstrip("/").rsplit("/", 1)[-1]
    queue = sqs_backends[account][region].queues.get(name)
    if queue is None:
        return None
    redrive = queue.redrive_policy
    if isinstance(redrive, str):
        redrive = json.loads(redrive)
    return _drop_none(
        {
            "QueueName": queue.name,
            "DelaySeconds": queue.delay_seconds,
            "VisibilityTimeout": queue.visibility_timeout,
            "MessageRetentionPeriod": queue.message_retention_period,
            "MaximumMessageSize": queue.maximum_message_size,
            "ReceiveMessageWaitTimeSeconds": queue.receive_message_wait_time_seconds,
            "FifoQueue": queue.fifo_queue,
            "ContentBasedDeduplication": queue.content_based_deduplication,
            "KmsMasterKeyId": queue.kms_master_key_id,
            "RedrivePolicy": redrive,
            "Tags": _tags(queue.tags),
        }
    )


def _s3_bucket(account: str, region: str, physical_id: str) -> dict[str, Any] | None:
    s3_backends = moto_module("moto.s3.models").s3_backends

    backend = s3_backends[account]["aws"]
    bucket = backend.buckets.get(physical_id)
    if bucket is None:
        return None
    status = bucket.versioning_status
    return _drop_none(
        {
            "BucketName": bucket.name,
            "VersioningConfiguration": {"Status": status} if status else None,
            "Tags": _tags(backend.tagger.get_tag_dict_for_resource(bucket.arn)),
        }
    )


def _rule(rule: Any, egress: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"IpProtocol": rule.ip_protocol}
    if rule.from_port is not None:
        out["FromPort"] = rule.from_port
        out["ToPort"] = rule.to_port
    if rule.ip_range.get("CidrIp"):
        out["CidrIp"] = rule.ip_range["CidrIp"]
    if rule.ip_range.get("CidrIpv6"):
        out["CidrIpv6"] = rule.ip_range["CidrIpv6"]
    if rule.ip_range.get("Description"):
        out["Description"] = rule.ip_range["Description"]
    if rule.source_group.get("GroupId"):
        key = "DestinationSecurityGroupId" if egress else "SourceSecurityGroupId"
        out[key] = rule.source_group["GroupId"]
    if rule.prefix_list_id:
        out["DestinationPrefixListId" if egress else "SourcePrefixListId"] = rule.prefix_list_id
    return out


def _security_group(account: str, region: str, physical_id: str) -> dict[str, Any] | None:
    ec2_backends = moto_module("moto.ec2.models").ec2_backends

    group = ec2_backends[account][region].get_security_group_from_id(physical_id)
    if group is None:
        return None
    return _drop_none(
        {
            "GroupName": group.name,
            "GroupDescription": group.description,
            "VpcId": group.vpc_id,
            "SecurityGroupIngress": [_rule(r, False) for r in group.ingress_rules],
            "SecurityGroupEgress": [_rule(r, True) for r in group.egress_rules],
            "Tags": _tags(group.get_tags()),
        }
    )


def _launch_template(account: str, region: str, physical_id: str) -> dict[str, Any] | None:
    ec2_backends = moto_module("moto.ec2.models").ec2_backends

    template = ec2_backends[account][region].launch_templates.get(physical_id)
    if template is None:
        return None
    version = template.default_version()
    return _drop_none(
        {
            "LaunchTemplateName": template.name,
            "LaunchTemplateData": _drop_none(dict(version.data)),
            "VersionDescription": version.description or None,
        }
    )


def _autoscaling_group(account: str, region: str, physical_id: str) -> dict[str, Any] | None:
    autoscaling_backends = moto_module("moto.autoscaling.models").autoscaling_backends

    group = autoscaling_backends[account][region].autoscaling_groups.get(physical_id)
    if group is None:
        return None
    launch_template = None
    if group.ec2_launch_template is not None:
        launch_template = {
            "LaunchTemplateId": group.ec2_launch_template.id,
            "LaunchTemplateName": group.ec2_launch_template.name,
            "Version": str(group.provided_launch_template_version),
        }
    subnets = [s for s in (group.vpc_zone_identifier or "").split(",") if s]
    return _drop_none(
        {
            "AutoScalingGroupName": group.name,
            "MinSize": str(group.min_size),
            "MaxSize": str(group.max_size),
            "DesiredCapacity": str(group.desired_capacity),
            "LaunchTemplate": launch_template,
            "LaunchConfigurationName": getattr(group.launch_config, "name", None),
            "VPCZoneIdentifier": subnets,
            "AvailabilityZones": list(group.availability_zones),
            "HealthCheckType": group.health_check_type,
            "HealthCheckGracePeriod": group.health_check_grace_period,
            "Cooldown": str(group.default_cooldown),
            "TargetGroupARNs": list(group.target_group_arns),
            "Tags": [
                {
                    "Key": _tag_field(t, "Key"),
                    "Value": _tag_field(t, "Value"),
                    "PropagateAtLaunch": str(_tag_field(t, "PropagateAtLaunch")).lower() == "true",
                }
                for t in group.tags
                if not str(_tag_field(t, "Key")).startswith("aws:")
            ],
        }
    )


def _tag_field(tag: dict[str, Any], name: str) -> Any:
    """moto keeps Auto Scaling tags as given (``Key``), older code used ``key``."""
    if name in tag:
        return tag[name]
    snake = {"Key": "key", "Value": "value", "PropagateAtLaunch": "propagate_at_launch"}[name]
    return tag.get(snake)


def _policy(doc: Any) -> Any:
    return json.loads(doc) if isinstance(doc, str) else doc


def _iam_role(account: str, region: str, physical_id: str) -> dict[str, Any] | None:
    iam_backends = moto_module("moto.iam.models").iam_backends

    backend = iam_backends[account]["global"]
    role = next((r for r in backend.roles.values() if r.name == physical_id), None)
    if role is None:
        return None
    return _drop_none(
        {
            "RoleName": role.name,
            "AssumeRolePolicyDocument": _policy(role.assume_role_policy_document),
            "Policies": [
                {"PolicyName": name, "PolicyDocument": _policy(doc)}
                for name, doc in role.policies.items()
            ],
            "ManagedPolicyArns": sorted(role.managed_policies),
            "Path": role.path,
            "Description": role.description or None,
            "MaxSessionDuration": role.max_session_duration,
            "PermissionsBoundary": role.permissions_boundary_arn or None,
            "Tags": _tags(
                role.tags
                if isinstance(role.tags, list)
                else backend.tagger.list_tags_for_resource(role.arn)["Tags"]
            ),
        }
    )


READERS: dict[str, Reader] = {
    "AWS::SSM::Parameter": _ssm_parameter,
    "AWS::SNS::Topic": _sns_topic,
    "AWS::SQS::Queue": _sqs_queue,
    "AWS::S3::Bucket": _s3_bucket,
    "AWS::EC2::SecurityGroup": _security_group,
    "AWS::EC2::LaunchTemplate": _launch_template,
    "AWS::AutoScaling::AutoScalingGroup": _autoscaling_group,
    "AWS::IAM::Role": _iam_role,
}


def read_actual(
    resource_type: str, account: str, region: str, physical_id: str
) -> dict[str, Any] | None:
    """Live properties of the resource, ``None`` if deleted; ``KeyError`` if unsupported."""
    return READERS[resource_type](account, region, physical_id)

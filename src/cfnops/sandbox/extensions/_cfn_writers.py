"""Write a resource's template values back (REVERT_DRIFT execution, moto's create gaps).

A writer sets, in moto's backends, the properties the template defines, leaving
every other property alone; it acts only where the live value differs. The
same writers run right after a stack is created or updated, because moto
ignores some template properties at creation (an S3 bucket's
``VersioningConfiguration``, an IAM role's AWS-managed ``ManagedPolicyArns``)
and those would otherwise show up as drift that AWS would never report.

Deleted resources are re-created by moto's own CloudFormation resource parser.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from typing import Any

from cfnops.sandbox.extensions._cfn_deploy import ExpectedResource
from cfnops.sandbox.extensions._cfn_readers import READERS, _rule
from cfnops.sandbox.extensions._moto import moto_module
from cfnops.sandbox.extensions.cfn_compare import _covers
from cfnops.sandbox.extensions.cfn_dynamic_refs import resolve_dynamic_references

__all__ = ["WRITERS", "recreate", "write_expected"]

Writer = Callable[[Any, ExpectedResource, dict[str, Any]], None]


def _tag_dict(tags: Any) -> dict[str, str]:
    if isinstance(tags, dict):
        return {str(k): str(v) for k, v in tags.items()}
    return {str(t["Key"]): str(t["Value"]) for t in tags or []}


def _ssm_parameter(stack: Any, res: ExpectedResource, props: dict[str, Any]) -> None:
    ssm_backends = moto_module("moto.ssm.models").ssm_backends

    backend = ssm_backends[stack.account_id][stack.region_name]
    current = backend.get_parameter(res.physical_id)
    backend.put_parameter(
        name=res.physical_id,
        description=props.get("Description", current.description if current else None),
        value=str(props.get("Value", current.value if current else "")),
        parameter_type=props.get("Type", current.parameter_type if current else "String"),
        allowed_pattern=props.get("AllowedPattern"),
        keyid=None,
        overwrite=True,
        tags=[],
        data_type=props.get("DataType", "text"),
        tier=props.get("Tier"),
        policies=None,
    )
    if isinstance(props.get("Tags"), dict):
        _set_parameter_tags(backend, str(res.physical_id), _tag_dict(props["Tags"]))


def _set_parameter_tags(backend: Any, name: str, wanted: dict[str, str]) -> None:
    """The parameter's own tags become the template's map (``aws:`` tags are AWS's)."""
    have = backend.list_tags_for_resource("Parameter", name)
    extra = [k for k in have if k not in wanted and not k.startswith("aws:")]
    if extra:
        backend.remove_tags_from_resource("Parameter", name, extra)
    if wanted:
        backend.add_tags_to_resource("Parameter", name, wanted)


def _sns_topic(stack: Any, res: ExpectedResource, props: dict[str, Any]) -> None:
    sns_backends = moto_module("moto.sns.models").sns_backends

    topic = sns_backends[stack.account_id][stack.region_name].topics[res.physical_id]
    if "DisplayName" in props:
        topic.display_name = str(props["DisplayName"])
    if "KmsMasterKeyId" in props:
        topic.kms_master_key_id = str(props["KmsMasterKeyId"])
    if "Tags" in props:
        topic._tags.update(_tag_dict(props["Tags"]))


_SQS_INTS = (
    "DelaySeconds",
    "VisibilityTimeout",
    "MessageRetentionPeriod",
    "MaximumMessageSize",
    "ReceiveMessageWaitTimeSeconds",
)


def _sqs_queue(stack: Any, res: ExpectedResource, props: dict[str, Any]) -> None:
    sqs_backends = moto_module("moto.sqs.models").sqs_backends

    name = str(res.physical_id).rstrip("/").rsplit("/", 1)[-1]
    queue = sqs_backends[stack.account_id][stack.region_name].queues[name]
    for key in _SQS_INTS:
        if key in props:
            setattr(queue, _snake(key), int(props[key]))
    if "RedrivePolicy" in props:
        queue.redrive_policy = props["RedrivePolicy"]
    if "Tags" in props:
        queue.tags.update(_tag_dict(props["Tags"]))


def _snake(name: str) -> str:
    out = "".join(f"_{c.lower()}" if c.isupper() else c for c in name)
    return out.lstrip("_")


def _s3_bucket(stack: Any, res: ExpectedResource, props: dict[str, Any]) -> None:
    s3_backends = moto_module("moto.s3.models").s3_backends

    backend = s3_backends[stack.account_id]["aws"]
    bucket = backend.buckets[res.physical_id]
    status = (props.get("VersioningConfiguration") or {}).get("Status")
    if status:
        bucket.versioning_status = str(status)
    if "Tags" in props:
        tags = backend.tagger.get_tag_dict_for_resource(bucket.arn)
        tags.update(_tag_dict(props["Tags"]))
        backend.put_bucket_tagging(bucket.name, tags)


def _rule_args(rule: dict[str, Any]) -> dict[str, Any]:
    ranges: list[dict[str, str]] = []
    for key in ("CidrIp", "CidrIpv6"):
        if key in rule:
            entry: dict[str, str] = {key: str(rule[key])}
            if "Description" in rule:
                entry["Description"] = str(rule["Description"])
            ranges.append(entry)
    groups = []
    for key in ("SourceSecurityGroupId", "DestinationSecurityGroupId"):
        if key in rule:
            groups.append({"GroupId": str(rule[key])})
    protocol = str(rule.get("IpProtocol", "-1"))
    return {
        "ip_protocol": protocol,
        "from_port": str(rule.get("FromPort", "-1")),
        "to_port": str(rule.get("ToPort", "-1")),
        "ip_ranges": ranges,
        "source_groups": groups,
    }


def _security_group(stack: Any, res: ExpectedResource, props: dict[str, Any]) -> None:
    ec2_backends = moto_module("moto.ec2.models").ec2_backends

    backend = ec2_backends[stack.account_id][stack.region_name]
    group = backend.get_security_group_from_id(res.physical_id)
    for key, egress in (("SecurityGroupIngress", False), ("SecurityGroupEgress", True)):
        if key not in props:
            continue
        wanted: list[dict[str, Any]] = list(props[key])
        attr = "egress_rules" if egress else "ingress_rules"
        kept, unmatched = [], list(wanted)
        for rule in getattr(group, attr):
            shape = _rule(rule, egress)
            hit = next((w for w in unmatched if _covers(w, shape)), None)
            if hit is not None:
                unmatched.remove(hit)
                kept.append(rule)
        setattr(group, attr, kept)
        add = (
            backend.authorize_security_group_egress
            if egress
            else backend.authorize_security_group_ingress
        )
        for rule in unmatched:
            add(group.id, vpc_id=group.vpc_id, **_rule_args(rule))


def _launch_template(stack: Any, res: ExpectedResource, props: dict[str, Any]) -> None:
    ec2_backends = moto_module("moto.ec2.models").ec2_backends

    template = ec2_backends[stack.account_id][stack.region_name].launch_templates[res.physical_id]
    data = props.get("LaunchTemplateData")
    if data is None or _covers(data, template.default_version().data):
        return
    # CloudFormation makes the version it creates the default one; moto's update
    # creates the version but leaves the default alone.
    if _covers(data, template.latest_version().data):
        template.default_version_number = template.latest_version_number
        return
    version = template.create_version(dict(data), props.get("VersionDescription", ""))
    template.default_version_number = version.number


def _autoscaling_group(stack: Any, res: ExpectedResource, props: dict[str, Any]) -> None:
    autoscaling_backends = moto_module("moto.autoscaling.models").autoscaling_backends
    ec2_backends = moto_module("moto.ec2.models").ec2_backends

    group = autoscaling_backends[stack.account_id][stack.region_name].autoscaling_groups[
        res.physical_id
    ]
    if "MinSize" in props:
        group.min_size = int(props["MinSize"])
    if "MaxSize" in props:
        group.max_size = int(props["MaxSize"])
    lt = props.get("LaunchTemplate")
    if lt:
        ec2 = ec2_backends[stack.account_id][stack.region_name]
        template = (
            ec2.launch_templates.get(lt["LaunchTemplateId"])
            if "LaunchTemplateId" in lt
            else ec2.get_launch_template_by_name(lt["LaunchTemplateName"])
        )
        if template is not None:
            group.ec2_launch_template = template
        version = str(lt.get("Version", "$Default"))
        group.provided_launch_template_version = version
        group.launch_template_version = version
    if "DesiredCapacity" in props:
        group.set_desired_capacity(int(props["DesiredCapacity"]))


def _attach_managed(backend: Any, arn: str, role_name: str) -> None:
    if not any(p.arn == arn for p in backend.managed_policies.values()) and ":aws:policy/" in arn:
        # moto loads AWS-managed policies only on request; CloudFormation attaches them.
        AWSManagedPolicy = moto_module("moto.iam.models").AWSManagedPolicy

        now = dt.datetime.now(dt.UTC).isoformat()
        name = arn.rsplit("/", 1)[-1]
        path = arn.split(":policy", 1)[1][: -len(name)] or "/"
        data = {
            "DefaultVersionId": "v1",
            "Path": path,
            "CreateDate": now,
            "UpdateDate": now,
            "Document": {"Version": "2012-10-17", "Statement": []},
        }
        policy = AWSManagedPolicy.from_data(name, backend.account_id, "us-east-1", data)
        backend.managed_policies[policy.arn] = policy
    backend.attach_role_policy(arn, role_name)


def _iam_role(stack: Any, res: ExpectedResource, props: dict[str, Any]) -> None:
    iam_backends = moto_module("moto.iam.models").iam_backends

    backend = iam_backends[stack.account_id]["global"]
    role = backend.get_role(res.physical_id)
    if "AssumeRolePolicyDocument" in props:
        doc = props["AssumeRolePolicyDocument"]
        role.assume_role_policy_document = doc if isinstance(doc, str) else json.dumps(doc)
    if "Policies" in props:
        wanted = {p["PolicyName"]: p["PolicyDocument"] for p in props["Policies"]}
        for name in list(role.policies):
            if name not in wanted:
                backend.delete_role_policy(role.name, name)
        for name, doc in wanted.items():
            backend.put_role_policy(
                role.name, name, doc if isinstance(doc, str) else json.dumps(doc)
            )
    if "ManagedPolicyArns" in props:
        wanted_arns = {str(a) for a in props["ManagedPolicyArns"]}
        for arn in list(role.managed_policies):
            if arn not in wanted_arns:
                backend.detach_role_policy(arn, role.name)
        for arn in sorted(wanted_arns - set(role.managed_policies)):
            _attach_managed(backend, arn, role.name)
    if "Description" in props:
        role.description = str(props["Description"])
    if "MaxSessionDuration" in props:
        role.max_session_duration = int(props["MaxSessionDuration"])


def _writers() -> dict[str, Writer]:
    """A writer for every type with a reader: the function of the reader's name here."""
    here = globals()
    return {kind: here[reader.__name__] for kind, reader in READERS.items()}


WRITERS: dict[str, Writer] = _writers()


def write_expected(
    stack: Any, res: ExpectedResource, properties: dict[str, Any] | None = None
) -> bool:
    """Set ``properties`` (default: the template's) on the live resource; False if no writer."""
    writer = WRITERS.get(res.resource_type)
    props = res.properties if properties is None else properties
    if writer is None or props is None or not res.physical_id:
        return False
    # CloudFormation writes the value a dynamic reference stands for, not its text
    props = resolve_dynamic_references(props, stack.account_id, stack.region_name)
    writer(stack, res, props)
    return True


def recreate(stack: Any, res: ExpectedResource) -> str | None:
    """Create a deleted resource again from its template entry; return the physical id."""
    parse_and_create_resource = moto_module("moto.cloudformation.parsing").parse_and_create_resource

    resource_map = stack.resource_map
    model = parse_and_create_resource(
        res.logical_id,
        res.template,
        resource_map,
        account_id=stack.account_id,
        region_name=stack.region_name,
    )
    if model is None:
        return None
    resource_map._parsed_resources[res.logical_id] = model
    physical = getattr(model, "physical_resource_id", None)
    return None if physical is None else str(physical)

"""Adapter to a deployed stack: GetTemplate, DescribeStacks, and the comparison change set.

The only module of :mod:`cfnops.diff` that calls AWS; it takes a CloudFormation
client built by :class:`cfnops.aws.AwsClients` (or a stubbed one in tests).
"""

from __future__ import annotations

import contextlib
import json
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import botocore.exceptions as bex

from cfnops.aws import error_message
from cfnops.diff._changeset import ChangeSetAnswer, merge_change_set
from cfnops.diff._engine import diff_templates
from cfnops.diff._load import check_template, parse_template
from cfnops.diff._model import TemplateDiff
from cfnops.diff._normalise import plain
from cfnops.diff._params import parameter_values
from cfnops.diff._pseudo import stack_pseudo_parameters
from cfnops.diff.errors import ChangeSetError, StackNotFound, StackTemplateError

if TYPE_CHECKING:
    from mypy_boto3_cloudformation import CloudFormationClient
    from mypy_boto3_cloudformation.literals import CapabilityType
    from mypy_boto3_cloudformation.type_defs import ParameterTypeDef

# CreateChangeSet takes TemplateBody up to 51,200 bytes (AWS docs: CloudFormation
# quotas, cloudformation-limits.html); larger templates need TemplateURL on S3.
TEMPLATE_BODY_LIMIT = 51_200
_CAPABILITIES: list[CapabilityType] = [
    "CAPABILITY_IAM",
    "CAPABILITY_NAMED_IAM",
    "CAPABILITY_AUTO_EXPAND",
]
_NO_CHANGES = ("didn't contain changes", "No updates are to be performed")


@dataclass(frozen=True)
class DeployedStack:
    """What a stack runs now: its original template and parameter values."""

    name: str
    stack_id: str
    template: dict[str, Any]
    parameters: dict[str, str]


def _client_error(stack: str, exc: bex.ClientError, action: str) -> StackTemplateError:
    message = error_message(exc, str(exc))
    if "does not exist" in message:
        return StackNotFound(
            stack, f"{action} failed: {message}", hint="check the stack name and --region"
        )
    return StackTemplateError(stack, f"{action} failed: {message}")


def fetch_stack(cfn: CloudFormationClient, stack: str) -> DeployedStack:
    """The deployed template (``TemplateStage=Original``) and parameter values of ``stack``."""
    try:
        described = cfn.describe_stacks(StackName=stack)["Stacks"][0]
        body = cfn.get_template(StackName=stack, TemplateStage="Original")["TemplateBody"]
    except bex.ClientError as exc:
        raise _client_error(stack, exc, "reading the stack") from exc
    source = f"stack {stack} (GetTemplate)"
    template = (
        parse_template(body, source)
        if isinstance(body, str)
        else check_template(plain(body), source)
    )
    params = {
        str(p["ParameterKey"]): str(p.get("ResolvedValue", p.get("ParameterValue", "")))
        for p in described.get("Parameters", []) or []
    }
    return DeployedStack(stack, str(described.get("StackId", stack)), template, params)


def change_set_answers(
    cfn: CloudFormationClient,
    stack: str,
    template: Mapping[str, Any],
    parameters: Mapping[str, str],
    *,
    previous: Mapping[str, str] | None = None,
    poll_seconds: float = 2.0,
    timeout_seconds: float = 600.0,
    sleep: Callable[[float], None] = time.sleep,
) -> list[ChangeSetAnswer]:
    """Create a change set of ``template`` against ``stack``, read it, delete it.

    Parameters named in ``parameters`` are passed as values; the others of the
    template that the stack already has use ``UsePreviousValue``.
    """
    body = json.dumps(template, separators=(",", ":"), default=str)
    name = f"cfnops-diff-{uuid.uuid4().hex[:12]}"
    if len(body.encode()) > TEMPLATE_BODY_LIMIT:
        raise ChangeSetError(
            stack,
            name,
            f"template is {len(body)} bytes, above the "
            f"{TEMPLATE_BODY_LIMIT}-byte TemplateBody limit",
        )
    declared = template.get("Parameters") or {}
    params: list[ParameterTypeDef] = []
    for key in declared if isinstance(declared, Mapping) else ():
        if key in parameters:
            params.append({"ParameterKey": key, "ParameterValue": parameters[key]})
        elif previous is not None and key in previous:
            params.append({"ParameterKey": key, "UsePreviousValue": True})
    try:
        cfn.create_change_set(
            StackName=stack,
            ChangeSetName=name,
            TemplateBody=body,
            Parameters=params,
            Capabilities=_CAPABILITIES,
            ChangeSetType="UPDATE",
            Description="cfnops diff --change-set (deleted after reading)",
        )
    except bex.ClientError as exc:
        raise ChangeSetError(stack, name, error_message(exc, str(exc))) from exc
    try:
        return _read(cfn, stack, name, poll_seconds, timeout_seconds, sleep)
    finally:
        # Best effort: an unexecuted change set costs nothing if the delete fails.
        with contextlib.suppress(bex.ClientError):
            cfn.delete_change_set(StackName=stack, ChangeSetName=name)


def _read(
    cfn: CloudFormationClient,
    stack: str,
    name: str,
    poll: float,
    timeout: float,
    sleep: Callable[[float], None],
) -> list[ChangeSetAnswer]:
    waited = 0.0
    while True:
        try:
            page = cfn.describe_change_set(StackName=stack, ChangeSetName=name)
        except bex.ClientError as exc:
            raise ChangeSetError(stack, name, error_message(exc, str(exc))) from exc
        status = page.get("Status")
        if status == "CREATE_COMPLETE":
            break
        if status == "FAILED":
            reason = str(page.get("StatusReason", ""))
            if any(text in reason for text in _NO_CHANGES):
                return []
            raise ChangeSetError(stack, name, f"change set failed: {reason}")
        if waited >= timeout:
            raise ChangeSetError(stack, name, f"still {status} after {timeout:.0f} s")
        sleep(poll)
        waited += poll
    answers: list[ChangeSetAnswer] = []
    while True:
        for change in page.get("Changes", []) or []:
            answer = ChangeSetAnswer.from_change(change)
            if answer is not None:
                answers.append(answer)
        token = page.get("NextToken")
        if not token:
            return answers
        page = cfn.describe_change_set(StackName=stack, ChangeSetName=name, NextToken=token)


def diff_against_stack(
    cfn: CloudFormationClient,
    stack: str,
    new: Mapping[str, Any],
    *,
    parameters: Mapping[str, str] | None = None,
    region: str | None = None,
    change_set: bool = False,
    sleep: Callable[[float], None] = time.sleep,
) -> TemplateDiff:
    """Diff ``new`` against the deployed ``stack`` (template and parameter values).

    With ``change_set=True`` a change set is created, its exact ``Replacement``
    answers merged into the report, and the change set deleted.
    """
    deployed = fetch_stack(cfn, stack)
    given = dict(parameters or {})
    values = parameter_values(deployed.template, new, given, deployed.parameters)
    table_region = region or getattr(getattr(cfn, "meta", None), "region_name", None)
    result = diff_templates(
        deployed.template,
        new,
        region=table_region or "us-east-1",
        parameter_values=values,
        pseudo_parameters=stack_pseudo_parameters(deployed.stack_id),
    )
    if change_set:
        answers = change_set_answers(
            cfn, stack, new, given, previous=deployed.parameters, sleep=sleep
        )
        result = merge_change_set(result, answers)
    return result

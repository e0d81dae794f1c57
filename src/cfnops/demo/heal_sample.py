"""The sample stack of ``cfnops demo heal``, the tests and the fleet benchmark.

One SSM parameter (``/drift-test/<suffix>`` = ``initial-value``); drifting it
means setting the parameter to ``updated-value`` outside CloudFormation.
"""

from __future__ import annotations

import contextlib
import json
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mypy_boto3_cloudformation import CloudFormationClient
    from mypy_boto3_iam import IAMClient
    from mypy_boto3_ssm import SSMClient

INITIAL_VALUE = "initial-value"
DRIFTED_VALUE = "updated-value"


def sample_template(parameter_name: str = "/drift-test/sample") -> str:
    return json.dumps(
        {
            "AWSTemplateFormatVersion": "2010-09-09",
            "Description": "cfnops heal sample: one SSM parameter",
            "Resources": {
                "SampleParameter": {
                    "Type": "AWS::SSM::Parameter",
                    "Properties": {
                        "Name": parameter_name,
                        "Type": "String",
                        "Value": INITIAL_VALUE,
                    },
                }
            },
        }
    )


def wait_stack(cfn: CloudFormationClient, stack: str, timeout: float = 60) -> str:
    """Wait until the stack leaves ``*_IN_PROGRESS``; its status."""
    deadline = time.monotonic() + timeout
    while True:
        status = str(cfn.describe_stacks(StackName=stack)["Stacks"][0]["StackStatus"])
        if not status.endswith("_IN_PROGRESS") or time.monotonic() > deadline:
            return status
        time.sleep(0.1)


def deploy_sample(
    cfn: CloudFormationClient,
    stack: str = "drift-test",
    parameter_name: str = "/drift-test/sample",
    tags: dict[str, str] | None = None,
) -> str:
    """Create the sample stack; its id."""
    made = cfn.create_stack(
        StackName=stack,
        TemplateBody=sample_template(parameter_name),
        Tags=[{"Key": k, "Value": v} for k, v in (tags or {}).items()],
    )
    wait_stack(cfn, stack)
    return str(made["StackId"])


def drift_sample(ssm: SSMClient, parameter_name: str = "/drift-test/sample") -> None:
    """Change the parameter outside CloudFormation."""
    ssm.put_parameter(Name=parameter_name, Value=DRIFTED_VALUE, Type="String", Overwrite=True)


def drift_as_user(
    iam: IAMClient,
    endpoint_url: str,
    region: str,
    parameter_name: str,
    user: str = "ops-alice",
    session: Any = None,
) -> None:
    """Drift the sample as IAM user ``user`` (created with an access key), so CloudTrail
    attribution has a person to name.

    ``session``: a ``boto3.Session`` to build the user's client from (its loaded
    endpoint and model data are reused: a new session parses them again, ~0.1 s).
    """
    import boto3

    with contextlib.suppress(iam.exceptions.EntityAlreadyExistsException):
        iam.create_user(UserName=user)
    key = iam.create_access_key(UserName=user)["AccessKey"]
    ssm = (session or boto3.session.Session()).client(
        "ssm",
        endpoint_url=endpoint_url,
        region_name=region,
        aws_access_key_id=key["AccessKeyId"],
        aws_secret_access_key=key["SecretAccessKey"],
    )
    drift_sample(ssm, parameter_name)

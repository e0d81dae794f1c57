"""The pattern 2 workflows run unchanged under the SDK's own test runner (Lambda protocol)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from ami_test_support import base_images, deploy, parameter_value, unique
from aws_durable_execution_sdk_python import DurableContext, durable_execution
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from cfnops.ami import build_request, rotate_one_stack
from cfnops.config import Settings
from cfnops.runtime import Runtime
from cfnops.sandbox import Sandbox


@pytest.mark.slow
def test_rotate_stack_on_the_lambda_runner(cfnops_sandbox: Sandbox, settings: Settings) -> None:
    old, new = base_images(cfnops_sandbox)
    stack = unique("ami-sdk")
    deploy(cfnops_sandbox, 2, stack, ImageId=old)
    request = build_request(settings, stack=stack, image_id=new)
    runtime = Runtime.from_settings(settings, aws=cfnops_sandbox.clients)

    @durable_execution
    def handler(event: dict[str, Any], context: DurableContext) -> dict[str, Any]:
        return rotate_one_stack(event, context, runtime)  # the workflow's own body

    with DurableFunctionTestRunner(handler=handler) as runner:
        result = runner.run(input=json.dumps(request), execution_timeout=120)
    assert result.status.name == "SUCCEEDED", result
    output = json.loads(result.result)
    assert (output["outcome"], output["PreviousImageId"]) == ("UPDATED", old)
    assert parameter_value(cfnops_sandbox, stack, "ImageId") == new
    names = [op.name for op in result.operations]
    assert names[0] == "image-available" and "update-stack" in names

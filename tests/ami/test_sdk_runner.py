"""The pattern 2 workflows run unchanged under the SDK's own test runner (Lambda protocol)."""

from __future__ import annotations

import json

import pytest
from ami_test_support import base_images, deploy, parameter_value, unique
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from cfnops.ami import build_request
from cfnops.ami._stack_workflow import rotate_stack
from cfnops.config import Settings
from cfnops.sandbox import Sandbox


@pytest.mark.slow
def test_rotate_stack_on_the_lambda_runner(cfnops_sandbox: Sandbox, settings: Settings) -> None:
    old, new = base_images(cfnops_sandbox)
    stack = unique("ami-sdk")
    deploy(cfnops_sandbox, 2, stack, ImageId=old)
    request = build_request(settings, stack=stack, image_id=new)
    with DurableFunctionTestRunner(handler=rotate_stack) as runner:
        result = runner.run(input=json.dumps(request), execution_timeout=120)
    assert result.status.name == "SUCCEEDED", result
    output = json.loads(result.result)
    assert (output["outcome"], output["PreviousImageId"]) == ("UPDATED", old)
    assert parameter_value(cfnops_sandbox, stack, "ImageId") == new
    names = [op.name for op in result.operations]
    assert names[0] == "image-available" and "update-stack" in names

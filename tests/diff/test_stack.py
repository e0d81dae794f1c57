"""--stack and --change-set against a botocore Stubber (request and response shapes validated)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.stub import ANY, Stubber

from cfnops.diff import ChangeSetError, Impact, StackTemplateError
from cfnops.diff.stack import change_set_answers, diff_against_stack, fetch_stack

STACK = "web"
STACK_ID = "arn:aws:cloudformation:us-east-1:111122223333:stack/web/1"
OLD = {
    "Parameters": {"Ami": {"Type": "String"}},
    "Resources": {
        "Bucket": {"Type": "AWS::S3::Bucket", "Properties": {"BucketName": "a"}},
        "Web": {
            "Type": "AWS::EC2::Instance",
            "Properties": {"ImageId": {"Ref": "Ami"}, "InstanceType": "t3.micro"},
        },
    },
}
NEW = {
    "Parameters": {"Ami": {"Type": "String"}},
    "Resources": {
        "Bucket": {"Type": "AWS::S3::Bucket", "Properties": {"BucketName": "b"}},
        "Web": {
            "Type": "AWS::EC2::Instance",
            "Properties": {"ImageId": {"Ref": "Ami"}, "InstanceType": "t3.large"},
        },
    },
}


@pytest.fixture
def cfn() -> Iterator[tuple[Any, Stubber]]:
    client = boto3.client(
        "cloudformation",
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    with Stubber(client) as stub:
        yield client, stub
        stub.assert_no_pending_responses()


def _stack_reads(stub: Stubber, body: Any) -> None:
    stub.add_response(
        "describe_stacks",
        {
            "Stacks": [
                {
                    "StackName": STACK,
                    "StackId": STACK_ID,
                    "StackStatus": "UPDATE_COMPLETE",
                    "CreationTime": "2025-01-01T00:00:00Z",
                    "Parameters": [{"ParameterKey": "Ami", "ParameterValue": "ami-1"}],
                }
            ]
        },
        {"StackName": STACK},
    )
    stub.add_response(
        "get_template",
        {"TemplateBody": body},
        {"StackName": STACK, "TemplateStage": "Original"},
    )


def test_fetch_stack_reads_template_and_parameters(cfn: tuple[Any, Stubber]) -> None:
    client, stub = cfn
    _stack_reads(
        stub, "Resources:\n  Q: {Type: AWS::SQS::Queue, Properties: {QueueName: !Ref X}}\n"
    )
    deployed = fetch_stack(client, STACK)
    assert deployed.parameters == {"Ami": "ami-1"}
    assert deployed.template["Resources"]["Q"]["Properties"]["QueueName"] == {"Ref": "X"}
    assert deployed.stack_id == STACK_ID


def test_missing_stack_is_reported(cfn: tuple[Any, Stubber]) -> None:
    client, stub = cfn
    stub.add_client_error(
        "describe_stacks",
        "ValidationError",
        "Stack with id nope does not exist",
        expected_params={"StackName": "nope"},
    )
    with pytest.raises(StackTemplateError, match="does not exist") as info:
        fetch_stack(client, "nope")
    assert "region" in (info.value.hint or "")


def test_offline_diff_against_stack_with_parameter_change(cfn: tuple[Any, Stubber]) -> None:
    client, stub = cfn
    _stack_reads(stub, json.dumps(OLD))
    result = diff_against_stack(client, STACK, NEW, parameters={"Ami": "ami-2"})
    web = result.resource("Web")
    assert web is not None and web.impact is Impact.WILL_REPLACE  # ImageId is create-only
    assert web.property("ImageId").parameter == "Ami"  # type: ignore[union-attr]
    assert result.resource("Bucket").impact is Impact.WILL_REPLACE  # type: ignore[union-attr]


def _change(logical_id: str, rtype: str, replacement: str, props: list[tuple[str, str]]) -> Any:
    return {
        "Type": "Resource",
        "ResourceChange": {
            "Action": "Modify",
            "LogicalResourceId": logical_id,
            "ResourceType": rtype,
            "PhysicalResourceId": f"{logical_id.lower()}-1",
            "Replacement": replacement,
            "Scope": ["Properties"],
            "Details": [
                {
                    "Target": {"Attribute": "Properties", "Name": name, "RequiresRecreation": rec},
                    "Evaluation": "Static",
                    "ChangeSource": "DirectModification",
                }
                for name, rec in props
            ],
        },
    }


def test_change_set_answers_are_merged_and_the_change_set_deleted(
    cfn: tuple[Any, Stubber],
) -> None:
    client, stub = cfn
    _stack_reads(stub, json.dumps(OLD))
    stub.add_response(
        "create_change_set",
        {"Id": "arn:cs", "StackId": STACK_ID},
        {
            "StackName": STACK,
            "ChangeSetName": ANY,
            "TemplateBody": ANY,
            "Parameters": [{"ParameterKey": "Ami", "UsePreviousValue": True}],
            "Capabilities": ANY,
            "ChangeSetType": "UPDATE",
            "Description": ANY,
        },
    )
    stub.add_response(
        "describe_change_set",
        {"Status": "CREATE_IN_PROGRESS", "Changes": []},
        {"StackName": STACK, "ChangeSetName": ANY},
    )
    stub.add_response(
        "describe_change_set",
        {
            "Status": "CREATE_COMPLETE",
            "NextToken": "t1",
            "Changes": [_change("Web", "AWS::EC2::Instance", "False", [("InstanceType", "Never")])],
        },
        {"StackName": STACK, "ChangeSetName": ANY},
    )
    stub.add_response(
        "describe_change_set",
        {
            "Status": "CREATE_COMPLETE",
            "Changes": [_change("Bucket", "AWS::S3::Bucket", "True", [("BucketName", "Always")])],
        },
        {"StackName": STACK, "ChangeSetName": ANY, "NextToken": "t1"},
    )
    stub.add_response("delete_change_set", {}, {"StackName": STACK, "ChangeSetName": ANY})
    sleeps: list[float] = []
    result = diff_against_stack(client, STACK, NEW, change_set=True, sleep=sleeps.append)
    assert sleeps == [2.0]
    web = result.resource("Web")
    assert web is not None and web.impact is Impact.WILL_UPDATE  # exact answer wins
    assert "offline: MAY_REPLACE" in web.reason
    assert web.property("InstanceType").impact is Impact.WILL_UPDATE  # type: ignore[union-attr]
    assert result.resource("Bucket").impact is Impact.WILL_REPLACE  # type: ignore[union-attr]
    assert any("change set" in n for n in result.notes)


def test_failed_change_set_is_deleted_and_reported(cfn: tuple[Any, Stubber]) -> None:
    client, stub = cfn
    stub.add_response("create_change_set", {"Id": "arn:cs"}, None)
    stub.add_response(
        "describe_change_set", {"Status": "FAILED", "StatusReason": "Template format error"}, None
    )
    stub.add_response("delete_change_set", {}, None)
    with pytest.raises(ChangeSetError, match="Template format error"):
        change_set_answers(client, STACK, NEW, {}, sleep=lambda _s: None)


def test_no_changes_is_an_empty_answer(cfn: tuple[Any, Stubber]) -> None:
    client, stub = cfn
    stub.add_response("create_change_set", {"Id": "arn:cs"}, None)
    stub.add_response(
        "describe_change_set",
        {"Status": "FAILED", "StatusReason": "The submitted information didn't contain changes."},
        None,
    )
    stub.add_response("delete_change_set", {}, None)
    assert change_set_answers(client, STACK, NEW, {}, sleep=lambda _s: None) == []

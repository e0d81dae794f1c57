"""A realistic large template for the benchmarks: many resource types, nested properties.

``realistic(n)`` builds ``n`` resources cycling through 16 shapes modelled on the
examples of the AWS resource reference pages (S3 bucket encryption and lifecycle
rules, IAM roles with inline policies, Lambda functions with environment and VPC
settings, DynamoDB tables with global secondary indexes, ECS task definitions,
security groups, alarms, queues with redrive policies, state machines ...), wired
together with ``Ref``/``Fn::GetAtt``/``Fn::Sub``. About 500 bytes a resource as
JSON (2,000 resources: ~1 MB). ``edited(template)`` is a deploy's worth of edits:
~2 % of the resources change (mutable values, some create-only names), a few are
added and removed. Deterministic: the same input gives the same templates.
"""

from __future__ import annotations

import copy
import json
from typing import Any

_RUNBOOKS = "https://wiki.example.com/operations/runbooks"
_POLICY = {
    "Version": "2012-10-17",
    "Statement": [
        {
            "Effect": "Allow",
            "Principal": {"Service": ["lambda.amazonaws.com"]},
            "Action": ["sts:AssumeRole"],
        }
    ],
}


def _tags(i: int) -> list[dict[str, str]]:
    return [
        {"Key": "team", "Value": f"team-{i % 7}"},
        {"Key": "cost-center", "Value": f"cc-{1000 + i % 13}"},
        {"Key": "stage", "Value": {"Ref": "Stage"}},  # type: ignore[dict-item]
    ]


def _bucket(i: int) -> dict[str, Any]:
    return {
        "Type": "AWS::S3::Bucket",
        "DeletionPolicy": "Retain",
        "Properties": {
            "BucketName": {"Fn::Sub": f"${{AWS::StackName}}-data-{i}"},
            "BucketEncryption": {
                "ServerSideEncryptionConfiguration": [
                    {
                        "ServerSideEncryptionByDefault": {
                            "SSEAlgorithm": "aws:kms",
                            "KMSMasterKeyID": {"Fn::GetAtt": [f"Key{i}", "Arn"]},
                        },
                        "BucketKeyEnabled": True,
                    }
                ]
            },
            "VersioningConfiguration": {"Status": "Enabled"},
            "LifecycleConfiguration": {
                "Rules": [
                    {
                        "Id": "archive",
                        "Status": "Enabled",
                        "Transitions": [{"StorageClass": "GLACIER", "TransitionInDays": 90}],
                        "NoncurrentVersionExpiration": {"NoncurrentDays": 30},
                    }
                ]
            },
            "PublicAccessBlockConfiguration": {
                "BlockPublicAcls": True,
                "BlockPublicPolicy": True,
                "IgnorePublicAcls": True,
                "RestrictPublicBuckets": True,
            },
            "Tags": _tags(i),
        },
    }


def _role(i: int) -> dict[str, Any]:
    return {
        "Type": "AWS::IAM::Role",
        "Properties": {
            "AssumeRolePolicyDocument": _POLICY,
            "ManagedPolicyArns": [
                {
                    "Fn::Sub": "arn:${AWS::Partition}:iam::aws:policy/service-role/"
                    "AWSLambdaBasicExecutionRole"
                }
            ],
            "Policies": [
                {
                    "PolicyName": "data",
                    "PolicyDocument": {
                        "Version": "2012-10-17",
                        "Statement": [
                            {
                                "Effect": "Allow",
                                "Action": ["s3:GetObject", "s3:PutObject"],
                                "Resource": {"Fn::Sub": f"${{Bucket{i}.Arn}}/*"},
                            },
                            {
                                "Effect": "Allow",
                                "Action": ["sqs:SendMessage"],
                                "Resource": {"Fn::GetAtt": [f"Queue{i}", "Arn"]},
                            },
                        ],
                    },
                }
            ],
        },
    }


def _function(i: int) -> dict[str, Any]:
    return {
        "Type": "AWS::Lambda::Function",
        "Properties": {
            "FunctionName": {"Fn::Sub": f"${{AWS::StackName}}-fn-{i}"},
            "Runtime": "python3.12",
            "Handler": "index.handler",
            "Role": {"Fn::GetAtt": [f"Role{i}", "Arn"]},
            "MemorySize": 256,
            "Timeout": 30,
            "Code": {"S3Bucket": "artifacts-bucket", "S3Key": f"functions/fn-{i}.zip"},
            "Environment": {
                "Variables": {
                    "TABLE": {"Ref": f"Table{i}"},
                    "QUEUE_URL": {"Ref": f"Queue{i}"},
                    "LOG_LEVEL": "INFO",
                }
            },
            "TracingConfig": {"Mode": "Active"},
            "Tags": _tags(i),
        },
    }


def _queue(i: int) -> dict[str, Any]:
    return {
        "Type": "AWS::SQS::Queue",
        "Properties": {
            "QueueName": {"Fn::Sub": f"${{AWS::StackName}}-q-{i}"},
            "VisibilityTimeout": 180,
            "MessageRetentionPeriod": 1209600,
            "RedrivePolicy": {
                "deadLetterTargetArn": {"Fn::GetAtt": [f"Dlq{i}", "Arn"]},
                "maxReceiveCount": 5,
            },
            "SqsManagedSseEnabled": True,
        },
    }


def _table(i: int) -> dict[str, Any]:
    return {
        "Type": "AWS::DynamoDB::Table",
        "Properties": {
            "TableName": {"Fn::Sub": f"${{AWS::StackName}}-t-{i}"},
            "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "sk", "AttributeType": "S"},
                {"AttributeName": "gsi1pk", "AttributeType": "S"},
            ],
            "KeySchema": [
                {"AttributeName": "pk", "KeyType": "HASH"},
                {"AttributeName": "sk", "KeyType": "RANGE"},
            ],
            "GlobalSecondaryIndexes": [
                {
                    "IndexName": "gsi1",
                    "KeySchema": [{"AttributeName": "gsi1pk", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "ALL"},
                }
            ],
            "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True},
            "Tags": _tags(i),
        },
    }


def _dlq(i: int) -> dict[str, Any]:
    return {"Type": "AWS::SQS::Queue", "Properties": {"MessageRetentionPeriod": 1209600}}


def _security_group(i: int) -> dict[str, Any]:
    return {
        "Type": "AWS::EC2::SecurityGroup",
        "Properties": {
            "GroupDescription": f"service {i}",
            "VpcId": {"Ref": "VpcId"},
            "SecurityGroupIngress": [
                {"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "CidrIp": "10.0.0.0/8"},
                {
                    "IpProtocol": "tcp",
                    "FromPort": 8080,
                    "ToPort": 8080,
                    "SourceSecurityGroupId": {
                        "Fn::GetAtt": [f"Sg{i - 16 if i >= 16 else i}", "GroupId"]
                    },
                },
            ],
            "SecurityGroupEgress": [{"IpProtocol": "-1", "CidrIp": "0.0.0.0/0"}],
            "Tags": _tags(i),
        },
    }


def _task(i: int) -> dict[str, Any]:
    return {
        "Type": "AWS::ECS::TaskDefinition",
        "Properties": {
            "Family": f"svc-{i}",
            "Cpu": "512",
            "Memory": "1024",
            "NetworkMode": "awsvpc",
            "RequiresCompatibilities": ["FARGATE"],
            "ExecutionRoleArn": {"Fn::GetAtt": [f"Role{i}", "Arn"]},
            "ContainerDefinitions": [
                {
                    "Name": "app",
                    "Image": {
                        "Fn::Sub": "${AWS::AccountId}.dkr.ecr.${AWS::Region}.amazonaws.com/app:1"
                    },
                    "PortMappings": [{"ContainerPort": 8080, "Protocol": "tcp"}],
                    "Environment": [
                        {"Name": "QUEUE", "Value": {"Ref": f"Queue{i}"}},
                        {"Name": "MODE", "Value": "worker"},
                    ],
                    "LogConfiguration": {
                        "LogDriver": "awslogs",
                        "Options": {
                            "awslogs-group": {"Ref": f"LogsA{i}"},
                            "awslogs-region": {"Ref": "AWS::Region"},
                            "awslogs-stream-prefix": "app",
                        },
                    },
                }
            ],
        },
    }


def _logs(i: int, kind: str = "app") -> dict[str, Any]:
    return {
        "Type": "AWS::Logs::LogGroup",
        "Properties": {"LogGroupName": f"/svc/{i}/{kind}", "RetentionInDays": 30},
    }


def _alarm(i: int) -> dict[str, Any]:
    return {
        "Type": "AWS::CloudWatch::Alarm",
        "Properties": {
            "AlarmDescription": f"queue depth {i}",
            "Namespace": "AWS/SQS",
            "MetricName": "ApproximateNumberOfMessagesVisible",
            "Dimensions": [
                {"Name": "QueueName", "Value": {"Fn::GetAtt": [f"Queue{i}", "QueueName"]}}
            ],
            "Statistic": "Maximum",
            "Period": 60,
            "EvaluationPeriods": 5,
            "Threshold": 100,
            "ComparisonOperator": "GreaterThanThreshold",
            "AlarmActions": [{"Ref": f"Topic{i}"}],
        },
    }


def _topic(i: int) -> dict[str, Any]:
    return {
        "Type": "AWS::SNS::Topic",
        "Properties": {
            "TopicName": {"Fn::Sub": f"${{AWS::StackName}}-alerts-{i}"},
            "KmsMasterKeyId": "alias/aws/sns",
            "Subscription": [{"Protocol": "sqs", "Endpoint": {"Fn::GetAtt": [f"Dlq{i}", "Arn"]}}],
        },
    }


def _machine(i: int) -> dict[str, Any]:
    definition = {
        "StartAt": "Work",
        "States": {
            "Work": {
                "Type": "Task",
                "Resource": "${Fn}",
                "Retry": [{"ErrorEquals": ["States.ALL"], "MaxAttempts": 2}],
                "End": True,
            }
        },
    }
    return {
        "Type": "AWS::StepFunctions::StateMachine",
        "Properties": {
            "RoleArn": {"Fn::GetAtt": [f"Role{i}", "Arn"]},
            "DefinitionString": {
                "Fn::Sub": [json.dumps(definition), {"Fn": {"Fn::GetAtt": [f"Fn{i}", "Arn"]}}]
            },
        },
    }


def _parameter(i: int) -> dict[str, Any]:
    return {
        "Type": "AWS::SSM::Parameter",
        "Properties": {
            "Name": f"/svc/{i}/endpoint",
            "Type": "String",
            "Value": {"Fn::GetAtt": [f"Queue{i}", "QueueUrl"]},
            "Tier": "Standard",
        },
    }


def _key(i: int) -> dict[str, Any]:
    return {
        "Type": "AWS::KMS::Key",
        "Properties": {
            "EnableKeyRotation": True,
            "KeyPolicy": {
                "Version": "2012-10-17",
                "Statement": [
                    {
                        "Effect": "Allow",
                        "Principal": {
                            "AWS": {"Fn::Sub": "arn:${AWS::Partition}:iam::${AWS::AccountId}:root"}
                        },
                        "Action": "kms:*",
                        "Resource": "*",
                    }
                ],
            },
        },
    }


# position in a block of 16 -> (logical id prefix, builder)
_SHAPES = (
    ("Bucket", _bucket),
    ("Role", _role),
    ("Fn", _function),
    ("Queue", _queue),
    ("Table", _table),
    ("Dlq", _dlq),
    ("Sg", _security_group),
    ("LogsA", _logs),
    ("Task", _task),
    ("LogsB", lambda i: _logs(i, "audit")),
    ("Alarm", _alarm),
    ("Topic", _topic),
    ("Machine", _machine),
    ("Param", _parameter),
    ("QueueB", _queue),
    ("Key", _key),
)


def realistic(n: int) -> dict[str, Any]:
    """A template of about ``n`` resources (rounded up to a multiple of 16)."""
    resources: dict[str, Any] = {}
    block = 0
    while len(resources) < n:  # block k: one of each shape, referring to each other
        for prefix, build in _SHAPES:
            resource = build(block)
            resource["Metadata"] = {
                "owner": {"team": f"team-{block % 7}", "runbook": f"{_RUNBOOKS}/svc-{block}"},
            }
            resources[f"{prefix}{block}"] = resource
        block += 1
    return {
        "AWSTemplateFormatVersion": "2010-09-09",
        "Description": f"benchmark template: {n} resources of {len(_SHAPES)} shapes",
        "Parameters": {
            "Stage": {"Type": "String", "Default": "prod", "AllowedValues": ["prod", "test"]},
            "VpcId": {"Type": "AWS::EC2::VPC::Id"},
        },
        "Resources": resources,
        "Outputs": {"FirstBucket": {"Value": {"Ref": "Bucket0"}}},
    }


def _targets(value: Any) -> list[str]:
    found: list[str] = []
    if isinstance(value, dict):
        if "Ref" in value and isinstance(value["Ref"], str) and len(value) == 1:
            if not value["Ref"].startswith("AWS::") and value["Ref"] not in ("Stage", "VpcId"):
                found.append(value["Ref"])
        elif "Fn::GetAtt" in value and len(value) == 1:
            found.append(value["Fn::GetAtt"][0])
        else:
            for sub in value.values():
                found.extend(_targets(sub))
    elif isinstance(value, list):
        for sub in value:
            found.extend(_targets(sub))
    return found


def edited(template: dict[str, Any]) -> dict[str, Any]:
    """A deploy's worth of edits to ``realistic(n)`` (about 2 % of the resources)."""
    new = copy.deepcopy(template)
    resources = new["Resources"]
    for index, rid in enumerate(sorted(resources)):
        res = resources[rid]
        props = res.get("Properties", {})
        if index % 50 == 0 and res["Type"] == "AWS::SQS::Queue":
            props["VisibilityTimeout"] = 300  # mutable
        elif index % 50 == 1 and res["Type"] == "AWS::Logs::LogGroup":
            props["LogGroupName"] += "-v2"  # create-only: replaced
        elif index % 50 == 2 and "Tags" in props:
            props["Tags"] = [*props["Tags"], {"Key": "owner", "Value": "platform"}]
        elif index % 50 == 3 and res["Type"] == "AWS::Lambda::Function":
            props["MemorySize"] = 512
    for rid in sorted(resources)[::400]:
        if resources[rid]["Type"] == "AWS::SSM::Parameter":
            del resources[rid]
    resources["AddedQueue"] = {"Type": "AWS::SQS::Queue", "Properties": {"DelaySeconds": 5}}
    return new

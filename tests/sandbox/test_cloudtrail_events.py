"""The sandbox records a CloudTrail event per mutating call and answers LookupEvents over HTTP.

Shapes are checked against botocore's model (raw body and parsed response);
filters, the time window and paging follow the LookupEvents API reference.
"""

from __future__ import annotations

import datetime as dt
import json
import time
import uuid
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from cfnops.sandbox import Sandbox
from cfnops.sandbox.shapecheck import RawShapeChecker, assert_matches_output_shape


def _name() -> str:
    return f"/ct-{uuid.uuid4().hex[:8]}"


def _client_as(sandbox: Sandbox, service: str, key: dict[str, str]) -> Any:
    session = boto3.session.Session(
        aws_access_key_id=key["AccessKeyId"],
        aws_secret_access_key=key["SecretAccessKey"],
        region_name="us-east-1",
    )
    return session.client(service, endpoint_url=sandbox.endpoint_url)


def _by_resource(ct: Any, name: str, **kw: Any) -> list[dict[str, Any]]:
    attrs = [{"AttributeKey": "ResourceName", "AttributeValue": name}]
    return list(ct.lookup_events(LookupAttributes=attrs, **kw)["Events"])


def test_mutating_calls_are_recorded_with_identity_and_read_calls_are_not(
    cfnops_sandbox: Sandbox,
) -> None:
    ssm, ct, iam = (cfnops_sandbox.client(s) for s in ("ssm", "cloudtrail", "iam"))
    user = f"u-{uuid.uuid4().hex[:6]}"
    iam.create_user(UserName=user)
    key = iam.create_access_key(UserName=user)["AccessKey"]
    name = _name()
    ssm.put_parameter(Name=name, Value="one", Type="String")
    _client_as(cfnops_sandbox, "ssm", key).put_parameter(
        Name=name, Value="two", Type="String", Overwrite=True
    )
    ssm.get_parameter(Name=name)
    with pytest.raises(ClientError):  # a failed call is not an event
        ssm.put_parameter(Name=name, Value="three", Type="String")
    with RawShapeChecker(ct) as raw:
        found = _by_resource(ct, name)
    raw.assert_clean()
    assert [(e["EventName"], e["Username"]) for e in found] == [
        ("PutParameter", user),
        ("PutParameter", "root"),
    ]
    newest = found[0]
    assert newest["EventSource"] == "ssm.amazonaws.com" and newest["ReadOnly"] == "false"
    assert newest["AccessKeyId"] == key["AccessKeyId"]
    assert newest["Resources"] == [{"ResourceType": "AWS::SSM::Parameter", "ResourceName": name}]
    record = json.loads(newest["CloudTrailEvent"])
    assert record["userIdentity"]["arn"] == f"arn:aws:iam::123456789012:user/{user}"
    assert record["userIdentity"]["type"] == "IAMUser"
    assert record["sourceIPAddress"] == "127.0.0.1"
    assert record["requestParameters"]["Name"] == name
    assert record["requestParameters"]["Value"] == "HIDDEN_DUE_TO_SECURITY_REASONS"
    assert json.loads(found[1]["CloudTrailEvent"])["userIdentity"]["type"] == "Root"
    assert_matches_output_shape(ct, "LookupEvents", {"Events": found})


def test_each_lookup_attribute_filters(cfnops_sandbox: Sandbox) -> None:
    ssm, ct = cfnops_sandbox.client("ssm"), cfnops_sandbox.client("cloudtrail")
    start = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1)
    name = _name()
    ssm.put_parameter(Name=name, Value="v", Type="String")
    (event,) = _by_resource(ct, name)
    for key in ("EventId", "EventName", "ReadOnly", "Username", "EventSource", "AccessKeyId"):
        value = str(event[key])
        found = ct.lookup_events(
            LookupAttributes=[{"AttributeKey": key, "AttributeValue": value}], StartTime=start
        )["Events"]
        assert event["EventId"] in [e["EventId"] for e in found], key
        assert all(str(e[key]) == value for e in found), key
    by_type = ct.lookup_events(
        LookupAttributes=[
            {"AttributeKey": "ResourceType", "AttributeValue": "AWS::SSM::Parameter"}
        ],
        StartTime=start,
    )["Events"]
    assert event["EventId"] in [e["EventId"] for e in by_type]
    assert _by_resource(ct, "/no-such-parameter") == []


def test_time_window_and_errors(cfnops_sandbox: Sandbox) -> None:
    ssm, ct = cfnops_sandbox.client("ssm"), cfnops_sandbox.client("cloudtrail")
    name = _name()
    ssm.put_parameter(Name=name, Value="v", Type="String")
    now = dt.datetime.now(dt.UTC)
    assert len(_by_resource(ct, name, StartTime=now - dt.timedelta(minutes=1))) == 1
    later = now + dt.timedelta(minutes=1)
    assert _by_resource(ct, name, StartTime=later, EndTime=later + dt.timedelta(minutes=1)) == []
    assert _by_resource(ct, name, EndTime=now - dt.timedelta(minutes=1)) == []
    with pytest.raises(ClientError) as err:
        _by_resource(ct, name, StartTime=now, EndTime=now - dt.timedelta(hours=1))
    assert err.value.response["Error"]["Code"] == "InvalidTimeRangeException"
    two = [
        {"AttributeKey": "ResourceName", "AttributeValue": name},
        {"AttributeKey": "EventName", "AttributeValue": "PutParameter"},
    ]
    with pytest.raises(ClientError) as err:
        ct.lookup_events(LookupAttributes=two)
    assert err.value.response["Error"]["Code"] == "InvalidLookupAttributesException"
    with pytest.raises(ClientError) as err:
        ct.lookup_events(NextToken="not-a-token")
    assert err.value.response["Error"]["Code"] == "InvalidNextTokenException"


def test_paging_newest_first_and_tokens_bound_to_their_query(cfnops_sandbox: Sandbox) -> None:
    ssm, ct = cfnops_sandbox.client("ssm"), cfnops_sandbox.client("cloudtrail")
    name = _name()
    ssm.put_parameter(Name=name, Value="0", Type="String")
    for i in range(1, 7):
        ssm.put_parameter(Name=name, Value=str(i), Type="String", Overwrite=True)
        time.sleep(0.002)
    attrs = [{"AttributeKey": "ResourceName", "AttributeValue": name}]
    pages, kwargs = [], {"LookupAttributes": attrs, "MaxResults": 3}
    while True:
        page = ct.lookup_events(**kwargs)
        pages.append(page["Events"])
        if "NextToken" not in page:
            break
        kwargs["NextToken"] = page["NextToken"]
    assert [len(p) for p in pages] == [3, 3, 1]
    times = [e["EventTime"] for p in pages for e in p]
    assert times == sorted(times, reverse=True)
    assert len({e["EventId"] for p in pages for e in p}) == 7
    token = ct.lookup_events(LookupAttributes=attrs, MaxResults=3)["NextToken"]
    other = [{"AttributeKey": "EventName", "AttributeValue": "PutParameter"}]
    with pytest.raises(ClientError) as err:
        ct.lookup_events(LookupAttributes=other, MaxResults=3, NextToken=token)
    assert err.value.response["Error"]["Code"] == "InvalidNextTokenException"
    paginated = ct.get_paginator("lookup_events").paginate(
        LookupAttributes=attrs, PaginationConfig={"PageSize": 2}
    )
    assert sum(len(p["Events"]) for p in paginated) == 7


def test_assumed_role_identity(cfnops_sandbox: Sandbox) -> None:
    iam, sts = cfnops_sandbox.client("iam"), cfnops_sandbox.client("sts")
    role = f"r-{uuid.uuid4().hex[:6]}"
    trust = {"Version": "2012-10-17", "Statement": []}
    arn = iam.create_role(RoleName=role, AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
    creds = sts.assume_role(RoleArn=arn, RoleSessionName="heal-test")["Credentials"]
    key = {"AccessKeyId": creds["AccessKeyId"], "SecretAccessKey": creds["SecretAccessKey"]}
    name = _name()
    session = boto3.session.Session(
        aws_session_token=creds["SessionToken"], region_name="us-east-1", **{
            "aws_access_key_id": key["AccessKeyId"],
            "aws_secret_access_key": key["SecretAccessKey"],
        }
    )  # fmt: skip
    session.client("ssm", endpoint_url=cfnops_sandbox.endpoint_url).put_parameter(
        Name=name, Value="v", Type="String"
    )
    (event,) = _by_resource(cfnops_sandbox.client("cloudtrail"), name)
    identity = json.loads(event["CloudTrailEvent"])["userIdentity"]
    assert identity["type"] == "AssumedRole" and f"assumed-role/{role}/" in identity["arn"]

"""The botocore output-shape check catches what botocore's parser would hide."""

from __future__ import annotations

import datetime as dt
from typing import Any

import boto3
import pytest

from cfnops.sandbox.shapecheck import (
    ShapeMismatch,
    assert_matches_output_shape,
    output_shape_problems,
    raw_body_problems,
)


@pytest.fixture(scope="module")
def cfn() -> Any:
    return boto3.session.Session(
        aws_access_key_id="x", aws_secret_access_key="x", region_name="us-east-1"
    ).client("cloudformation")


def test_parsed_response_fields_types_and_enums(cfn: Any) -> None:
    good = {
        "StackResourceDrifts": [
            {
                "StackId": "s",
                "LogicalResourceId": "P",
                "ResourceType": "AWS::SSM::Parameter",
                "StackResourceDriftStatus": "MODIFIED",
                "Timestamp": dt.datetime.now(dt.UTC),
                "PropertyDifferences": [
                    {
                        "PropertyPath": "/Value",
                        "ExpectedValue": "a",
                        "ActualValue": "b",
                        "DifferenceType": "NOT_EQUAL",
                    }
                ],
            }
        ],
        "ResponseMetadata": {},
    }
    assert output_shape_problems(cfn, "DescribeStackResourceDrifts", good) == []
    bad = {
        "StackResourceDrifts": [
            {"StackResourceDriftStatus": "SORT_OF", "Timestamp": "yesterday", "Extra": 1}
        ]
    }
    problems = output_shape_problems(cfn, "DescribeStackResourceDrifts", bad)
    assert any("/StackResourceDrifts/0/Extra: not a member" in p for p in problems)
    assert any("'SORT_OF' is not one of" in p for p in problems)
    assert any("Timestamp: expected timestamp" in p for p in problems)
    with pytest.raises(ShapeMismatch, match="DescribeStackResourceDrifts"):
        assert_matches_output_shape(cfn, "DescribeStackResourceDrifts", bad)


def test_raw_xml_bodies_are_checked(cfn: Any) -> None:
    model = cfn.meta.service_model.operation_model("DescribeStackDriftDetectionStatus")
    ok = (
        b'<DescribeStackDriftDetectionStatusResponse xmlns="x">'
        b"<DescribeStackDriftDetectionStatusResult>"
        b"<StackId>s</StackId><DetectionStatus>DETECTION_COMPLETE</DetectionStatus>"
        b"</DescribeStackDriftDetectionStatusResult><ResponseMetadata><RequestId>r</RequestId>"
        b"</ResponseMetadata></DescribeStackDriftDetectionStatusResponse>"
    )
    assert raw_body_problems(model, ok) == []
    bad = ok.replace(b"<StackId>s</StackId>", b"<StackIdentifier>s</StackIdentifier>").replace(
        b"DETECTION_COMPLETE", b"DONE"
    )
    problems = raw_body_problems(model, bad)
    assert any("/StackIdentifier: not a member" in p for p in problems)
    assert any("'DONE' is not one of" in p for p in problems)

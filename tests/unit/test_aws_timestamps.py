"""cfnops.aws.parse_timestamp gives botocore's answer, faster, and is what clients use."""

from __future__ import annotations

import datetime as dt
from typing import Any

import boto3
import botocore.utils
import pytest

from cfnops.aws import AwsClients, parse_timestamp
from cfnops.config import AwsSettings


@pytest.mark.parametrize(
    "value",
    [
        "2026-11-24T21:57:21.123Z",
        "2026-11-24T21:57:21Z",
        "2026-11-24T21:57:21.123456+00:00",
        "2026-11-24T23:57:21+02:00",
        "2026-11-24T21:57:21.1234567Z",
        "Tue, 24 Nov 2026 21:57:21 GMT",
        1700000000,
        "1700000000.5",
    ],
    ids=[
        "millis-z",
        "z",
        "offset-0",
        "offset-2",
        "7-digit-fraction",
        "rfc822",
        "epoch",
        "text-epoch",
    ],
)
def test_same_instant_as_botocore(value: Any) -> None:
    ours, theirs = parse_timestamp(value), botocore.utils.parse_timestamp(value)
    assert ours == theirs
    assert ours.utcoffset() == theirs.utcoffset()


def test_text_without_a_zone_follows_botocore() -> None:
    assert parse_timestamp("2026-11-24T21:57:21") == botocore.utils.parse_timestamp(
        "2026-11-24T21:57:21"
    )


def test_clients_parse_response_timestamps_with_it() -> None:
    session = boto3.session.Session(
        aws_access_key_id="k", aws_secret_access_key="s", region_name="eu-west-1"
    )
    cfn = AwsClients(AwsSettings(), session=session).client("cloudformation")
    # Assumed-role sessions are built by AwsClients too: same parser.
    assumed = AwsClients(AwsSettings(), session=session).assumed(
        {"AccessKeyId": "a", "SecretAccessKey": "b", "SessionToken": "c"}, "eu-west-1"
    )
    for client in (cfn, assumed.client("cloudformation")):
        # The endpoint parses every answer with a parser from this factory.
        parser = client._endpoint._response_parser_factory.create_parser("query")
        assert parser._timestamp_parser is parse_timestamp
    got = parse_timestamp("2026-11-24T21:57:21.5Z")
    assert got == dt.datetime(2026, 11, 24, 21, 57, 21, 500000, tzinfo=dt.UTC)

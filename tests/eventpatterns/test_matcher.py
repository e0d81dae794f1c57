"""EventBridge event-pattern semantics (pure; no sandbox).

Cases follow the EventBridge User Guide pages "Creating event patterns",
"Content filtering in event patterns" and "Matching events on null values and
empty strings".
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cfnops.errors import UsageError
from cfnops.eventpatterns import (
    InvalidEventPattern,
    matches,
    parse_pattern,
    validate_pattern,
)

EVENT: dict[str, Any] = {
    "version": "0",
    "id": "6a7e8feb-b491-4cf7-a9f1-bf3703467718",
    "detail-type": "EC2 Instance State-change Notification",
    "source": "aws.ec2",
    "account": "111122223333",
    "time": "2017-12-22T18:43:48Z",
    "region": "us-west-1",
    "resources": ["arn:aws:ec2:us-west-1:123456789012:instance/i-1234567890abcdef0"],
    "detail": {
        "instance-id": "i-1234567890abcdef0",
        "state": "terminated",
        "c-count": 5,
        "d-count": 3.0e2,
        "x-limit": 301.8,
        "source-ip": "10.0.0.123",
        "eventVersion": "",
        "responseElements": None,
        "tags": ["prod", "web"],
        "flag": True,
        "location": {"city": "Seattle", "zones": [{"name": "a"}, {"name": "b"}]},
        "FileName": "report.PNG",
    },
}

MATCHING = {
    "exact source": {"source": ["aws.ec2"]},
    "one of several": {"source": ["aws.s3", "aws.ec2"]},
    "nested exact": {"detail": {"state": ["terminated"]}},
    "and of keys": {"source": ["aws.ec2"], "detail": {"state": ["terminated"]}},
    "prefix": {"time": [{"prefix": "2017-12-22"}]},
    "prefix ignore case": {"detail": {"state": [{"prefix": {"equals-ignore-case": "TERM"}}]}},
    "suffix": {"detail": {"FileName": [{"suffix": ".PNG"}]}},
    "suffix ignore case": {"detail": {"FileName": [{"suffix": {"equals-ignore-case": ".png"}}]}},
    "equals-ignore-case": {"detail": {"state": [{"equals-ignore-case": "TERMINATED"}]}},
    "anything-but string": {"detail": {"state": [{"anything-but": "running"}]}},
    "anything-but list": {"detail": {"state": [{"anything-but": ["running", "pending"]}]}},
    "anything-but number": {"detail": {"c-count": [{"anything-but": 4}]}},
    "anything-but prefix": {"detail": {"state": [{"anything-but": {"prefix": "run"}}]}},
    "anything-but suffix": {"detail": {"FileName": [{"anything-but": {"suffix": ".jpg"}}]}},
    "anything-but ignore case": {
        "detail": {"state": [{"anything-but": {"equals-ignore-case": ["RUNNING", "Pending"]}}]}
    },
    "anything-but wildcard": {"detail": {"FileName": [{"anything-but": {"wildcard": "*.jpg"}}]}},
    "numeric range": {"detail": {"c-count": [{"numeric": [">", 0, "<=", 5]}]}},
    "numeric equals exponent": {"detail": {"d-count": [{"numeric": ["=", 300]}]}},
    "numeric float": {"detail": {"x-limit": [{"numeric": [">=", 300, "<", 302]}]}},
    "number exact equals float": {"detail": {"d-count": [300]}},
    "cidr": {"detail": {"source-ip": [{"cidr": "10.0.0.0/24"}]}},
    "exists true": {"detail": {"state": [{"exists": True}]}},
    "exists false": {"detail": {"missing": [{"exists": False}]}},
    "empty string": {"detail": {"eventVersion": [""]}},
    "null": {"detail": {"responseElements": [None]}},
    "array element": {"detail": {"tags": ["web"]}},
    "resources array": {"resources": [{"prefix": "arn:aws:ec2:us-west-1"}]},
    "boolean": {"detail": {"flag": [True]}},
    "array of objects": {"detail": {"location": {"zones": {"name": ["b"]}}}},
    "wildcard": {"detail": {"instance-id": [{"wildcard": "i-*def0"}]}},
    "wildcard middle": {"detail": {"location": {"city": [{"wildcard": "S*tt*e"}]}}},
    "or": {"$or": [{"source": ["aws.s3"]}, {"detail": {"c-count": [{"numeric": [">", 4]}]}}]},
    "or nested": {"detail": {"$or": [{"state": ["running"]}, {"flag": [True]}]}},
}

NOT_MATCHING = {
    "wrong source": {"source": ["aws.s3"]},
    "case matters": {"detail": {"state": ["TERMINATED"]}},
    "one key fails the and": {"source": ["aws.ec2"], "detail": {"state": ["running"]}},
    "prefix": {"time": [{"prefix": "2018"}]},
    "suffix case": {"detail": {"FileName": [{"suffix": ".png"}]}},
    "anything-but same": {"detail": {"state": [{"anything-but": "terminated"}]}},
    "anything-but missing field": {"detail": {"missing": [{"anything-but": "x"}]}},
    "anything-but prefix": {"detail": {"state": [{"anything-but": {"prefix": "term"}}]}},
    "numeric out of range": {"detail": {"c-count": [{"numeric": [">", 5]}]}},
    "numeric on string": {"detail": {"state": [{"numeric": [">", 0]}]}},
    "string is not number": {"detail": {"c-count": ["5"]}},
    "cidr": {"detail": {"source-ip": [{"cidr": "10.0.1.0/24"}]}},
    "exists true on missing": {"detail": {"missing": [{"exists": True}]}},
    "exists false on present": {"detail": {"state": [{"exists": False}]}},
    "exists on an object": {"detail": {"location": [{"exists": True}]}},
    "empty string is not null": {"detail": {"responseElements": [""]}},
    "null is not empty string": {"detail": {"eventVersion": [None]}},
    "array without element": {"detail": {"tags": ["db"]}},
    "boolean is not 1": {"detail": {"flag": [1]}},
    "wildcard": {"detail": {"instance-id": [{"wildcard": "i-*abc"}]}},
    "or none": {"$or": [{"source": ["aws.s3"]}, {"detail": {"state": ["running"]}}]},
    "nested key missing": {"detail": {"location": {"country": ["US"]}}},
}


@pytest.mark.parametrize("pattern", MATCHING.values(), ids=MATCHING.keys())
def test_pattern_matches(pattern: dict[str, Any]) -> None:
    assert matches(pattern, EVENT) is True


@pytest.mark.parametrize("pattern", NOT_MATCHING.values(), ids=NOT_MATCHING.keys())
def test_pattern_does_not_match(pattern: dict[str, Any]) -> None:
    assert matches(pattern, EVENT) is False


def test_wildcard_escaped_star_is_literal() -> None:
    event = {"detail": {"name": "a*b"}}
    assert matches({"detail": {"name": [{"wildcard": "a\\*b"}]}}, event)
    assert not matches({"detail": {"name": [{"wildcard": "a\\*b"}]}}, {"detail": {"name": "axb"}})


def test_json_text_patterns_are_parsed() -> None:
    assert matches('{"source": ["aws.ec2"]}', EVENT)
    assert parse_pattern('{"source": ["aws.ec2"]}') == {"source": ["aws.ec2"]}


INVALID = {
    "not an object": [],
    "empty object": {},
    "scalar leaf": {"source": "aws.ec2"},
    "empty array": {"source": []},
    "unknown filter": {"source": [{"contains": "ec2"}]},
    "two keys in a filter": {"source": [{"prefix": "a", "suffix": "b"}]},
    "exists not bool": {"source": [{"exists": "yes"}]},
    "numeric bad operator": {"n": [{"numeric": ["!=", 1]}]},
    "numeric odd length": {"n": [{"numeric": [">", 1, "<"]}]},
    "numeric not a number": {"n": [{"numeric": [">", "1"]}]},
    "mixed anything-but list": {"s": [{"anything-but": ["a", 1]}]},
    "anything-but unknown": {"s": [{"anything-but": {"numeric": [">", 1]}}]},
    "double wildcard": {"s": [{"wildcard": "a**b"}]},
    "bad cidr": {"ip": [{"cidr": "10.0.0.0/99"}]},
    "or with one member": {"$or": [{"source": ["a"]}]},
    "empty nested object": {"detail": {}},
}


@pytest.mark.parametrize("pattern", INVALID.values(), ids=INVALID.keys())
def test_invalid_patterns_are_refused(pattern: Any) -> None:
    with pytest.raises(InvalidEventPattern) as info:
        validate_pattern(pattern)
    assert isinstance(info.value, UsageError)
    assert "event pattern is not valid" in str(info.value)


def test_invalid_json_text_names_the_problem() -> None:
    with pytest.raises(InvalidEventPattern, match="not JSON"):
        parse_pattern("{source: aws.ec2}")


def test_error_names_the_json_pointer() -> None:
    with pytest.raises(InvalidEventPattern) as info:
        validate_pattern({"detail": {"state": "x"}})
    assert info.value.path == "/detail/state"


_scalars = st.one_of(
    st.text(max_size=8),
    st.integers(min_value=-1000, max_value=1000),
    st.booleans(),
    st.none(),
)
# "$or" is pattern syntax, not a field name a pattern can match.
_keys = st.text(min_size=1, max_size=6).filter(lambda k: k != "$or")
_events = st.dictionaries(_keys, _scalars, min_size=1, max_size=5)


@given(_events)
def test_an_event_matches_the_pattern_of_its_own_values(detail: dict[str, Any]) -> None:
    event = {"source": "prop", "detail": detail}
    assert matches({"detail": {k: [v] for k, v in detail.items()}}, event)
    assert matches({"detail": {k: [{"exists": True}] for k in detail}}, event)


@given(_events)
def test_anything_but_its_own_value_never_matches(detail: dict[str, Any]) -> None:
    event = {"detail": detail}
    for key, value in detail.items():
        if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
            assert not matches({"detail": {key: [{"anything-but": value}]}}, event)

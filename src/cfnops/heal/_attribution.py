"""Drift attribution: who changed a drifted resource, when, and with which call.

For each drifted resource, CloudTrail ``LookupEvents`` by resource name (its
physical id) within the window since the stack's last deployment
(https://docs.aws.amazon.com/awscloudtrail/latest/APIReference/API_LookupEvents.html;
one lookup attribute per call, every page). The newest write that CloudFormation
did not make itself is the change. CloudTrail answers at most 2 LookupEvents per
second per account and region, so lookups retry throttling like every other call.
:func:`pick` is pure; :func:`attribute` is the adapter.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import botocore.exceptions

from cfnops.aws import error_code

if TYPE_CHECKING:
    from mypy_boto3_cloudtrail import CloudTrailClient

_CLOUDFORMATION = "cloudformation.amazonaws.com"
MAX_PAGES = 10


@dataclass(frozen=True)
class Attribution:
    """The change behind one drifted resource (or why it could not be told)."""

    logical_id: str
    who: str | None = None  # the identity's ARN
    user: str | None = None
    at: str | None = None  # ISO 8601, UTC
    via: str | None = None  # "ssm:PutParameter"
    source_ip: str | None = None
    access_key: str | None = None
    event_id: str | None = None
    unknown: str | None = None  # why there is no answer

    def text(self) -> str:
        if self.unknown:
            return f"{self.logical_id}: change not attributed ({self.unknown})"
        where = f" from {self.source_ip}" if self.source_ip else ""
        return f"{self.logical_id} changed by {self.who} at {self.at} via {self.via}{where}"

    def to_json(self) -> dict[str, Any]:
        return {
            "logicalId": self.logical_id,
            "who": self.who,
            "user": self.user,
            "at": self.at,
            "via": self.via,
            "sourceIp": self.source_ip,
            "accessKeyId": self.access_key,
            "eventId": self.event_id,
            "unknown": self.unknown,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Attribution:
        return cls(
            data["logicalId"],
            data.get("who"),
            data.get("user"),
            data.get("at"),
            data.get("via"),
            data.get("sourceIp"),
            data.get("accessKeyId"),
            data.get("eventId"),
            data.get("unknown"),
        )


def _iso(value: Any) -> str:
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return str(value)


def pick(logical_id: str, events: Iterable[dict[str, Any]]) -> Attribution:
    """The newest write not made by CloudFormation among ``events`` (any order)."""
    best: tuple[Any, dict[str, Any], dict[str, Any]] | None = None
    for event in events:
        if str(event.get("ReadOnly", "false")).lower() == "true":
            continue
        record: dict[str, Any] = {}
        try:
            record = json.loads(event.get("CloudTrailEvent") or "{}")
        except ValueError:
            record = {}
        identity = record.get("userIdentity") or {}
        if event.get("EventSource") == _CLOUDFORMATION or identity.get("invokedBy") == (
            _CLOUDFORMATION
        ):
            continue
        when = event.get("EventTime")
        if best is None or (when is not None and when > best[0]):
            best = (when, event, record)
    if best is None:
        return Attribution(logical_id, unknown="no write in CloudTrail since the last deployment")
    when, event, record = best
    identity = record.get("userIdentity") or {}
    service = str(event.get("EventSource", "")).split(".", 1)[0]
    return Attribution(
        logical_id,
        who=str(identity.get("arn") or event.get("Username") or "unknown"),
        user=event.get("Username"),
        at=_iso(when),
        via=f"{service}:{event.get('EventName')}",
        source_ip=record.get("sourceIPAddress"),
        access_key=event.get("AccessKeyId"),
        event_id=event.get("EventId"),
    )


def _json(event: Mapping[str, Any]) -> dict[str, Any]:
    """One CloudTrail event as the plain dict the heal journal records."""
    return dict(event)


def lookup_resource(
    cloudtrail: CloudTrailClient, name: str, since: dt.datetime, until: dt.datetime
) -> list[dict[str, Any]]:
    """Every event naming ``name`` in the window (all pages, at most :data:`MAX_PAGES`)."""
    kwargs: dict[str, Any] = {
        "LookupAttributes": [{"AttributeKey": "ResourceName", "AttributeValue": name}],
        "StartTime": since,
        "EndTime": until,
    }
    out: list[dict[str, Any]] = []
    for _ in range(MAX_PAGES):
        page = cloudtrail.lookup_events(**kwargs)
        out.extend(map(_json, page.get("Events", [])))
        token = page.get("NextToken")
        if not token:
            break
        kwargs["NextToken"] = token
    return out


def attribute(
    cloudtrail: CloudTrailClient,
    resources: Sequence[tuple[str, str | None]],
    since: dt.datetime,
    *,
    until: dt.datetime | None = None,
    call: Callable[[Callable[[], list[dict[str, Any]]]], list[dict[str, Any]]] | None = None,
) -> dict[str, Attribution]:
    """Attribution of each ``(logical id, physical id)``; failures are reported, not raised.

    ``call`` wraps each lookup (the heal workflow passes its throttling retry).
    """
    end = until or dt.datetime.now(dt.UTC)
    out: dict[str, Attribution] = {}
    for logical_id, physical_id in resources:
        if not physical_id:
            out[logical_id] = Attribution(logical_id, unknown="no physical id to look up")
            continue
        name = physical_id

        def lookup(name: str = name) -> list[dict[str, Any]]:
            return lookup_resource(cloudtrail, name, since, end)

        try:
            events = call(lookup) if call is not None else lookup()
        except botocore.exceptions.ClientError as exc:
            code = error_code(exc, "error")
            out[logical_id] = Attribution(logical_id, unknown=f"LookupEvents failed: {code}")
            continue
        except botocore.exceptions.BotoCoreError as exc:
            out[logical_id] = Attribution(logical_id, unknown=f"LookupEvents failed: {exc}")
            continue
        out[logical_id] = pick(logical_id, events)
    return out


def parse_time(value: str | None) -> dt.datetime | None:
    if not value:
        return None
    parsed = dt.datetime.fromisoformat(value)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)

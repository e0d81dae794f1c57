"""CloudTrail management events: every mutating call the sandbox serves, and LookupEvents.

moto has no event history. Here each successful call that is not read-only
(operations named ``Describe*``, ``Get*``, ``List*``, … are read-only) is
recorded as a CloudTrail management event of its account and region: event id
and name, event source (``ssm.amazonaws.com``), time, access key, user name, the
resources named in the request, and the full record (``CloudTrailEvent``: a JSON
string with ``userIdentity``, ``sourceIPAddress``, ``requestParameters``). The
identity comes from the request's access key: an IAM user's key → that user, a
key from STS AssumeRole → the assumed role, anything else → the account root.

``LookupEvents`` answers as the API reference describes
(https://docs.aws.amazon.com/awscloudtrail/latest/APIReference/API_LookupEvents.html):
at most one lookup attribute (``EventId``, ``EventName``, ``ReadOnly``,
``Username``, ``ResourceType``, ``ResourceName``, ``EventSource``,
``AccessKeyId``), ``StartTime``/``EndTime`` inclusive (default: the last 90
days; start after end → ``InvalidTimeRangeException``), newest first,
``MaxResults`` 1 to 50 (default 50), and a ``NextToken`` valid only for the same
query (``InvalidNextTokenException`` otherwise).
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import io
import json
import re
import threading
import uuid
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import parse_qs

from cfnops.sandbox._control import register_control, register_middleware
from cfnops.sandbox._state import current_state
from cfnops.sandbox.extensions._request_info import identify

__all__ = ["events", "install", "record"]

_KEY = "cloudtrail.events"
_READ_ONLY = re.compile(
    r"^(Describe|Get|List|Lookup|Head|BatchGet|Search|Query|Scan|Select|Validate|Estimate|"
    r"Preview|Test|Check|Filter|Detect|Receive)"
)
_ATTRIBUTES = (
    "EventId",
    "EventName",
    "ReadOnly",
    "Username",
    "ResourceType",
    "ResourceName",
    "EventSource",
    "AccessKeyId",
)
# Request parameter → resource type, for the resources an event names.
_RESOURCE_PARAMS = {
    "ssm": {"Name": "AWS::SSM::Parameter", "ResourceId": "AWS::SSM::Parameter"},
    "sqs": {"QueueUrl": "AWS::SQS::Queue", "QueueName": "AWS::SQS::Queue"},
    "sns": {"TopicArn": "AWS::SNS::Topic", "Name": "AWS::SNS::Topic"},
    "cloudformation": {"StackName": "AWS::CloudFormation::Stack"},
    "ec2": {
        "GroupId": "AWS::EC2::SecurityGroup",
        "InstanceId.1": "AWS::EC2::Instance",
        "LaunchTemplateId": "AWS::EC2::LaunchTemplate",
        "VpcId": "AWS::EC2::VPC",
    },
    "logs": {"logGroupName": "AWS::Logs::LogGroup"},
    "lambda": {"FunctionName": "AWS::Lambda::Function"},
    "dynamodb": {"TableName": "AWS::DynamoDB::Table"},
    "autoscaling": {"AutoScalingGroupName": "AWS::AutoScaling::AutoScalingGroup"},
    "iam": {"RoleName": "AWS::IAM::Role", "UserName": "AWS::IAM::User"},
    "events": {"Name": "AWS::Events::Rule"},
}
_lock = threading.Lock()


def _store() -> dict[tuple[str, str], list[dict[str, Any]]]:
    found: dict[tuple[str, str], list[dict[str, Any]]] = current_state().extras.setdefault(_KEY, {})
    return found


def events(account: str, region: str) -> list[dict[str, Any]]:
    """The recorded events of ``account`` / ``region``, oldest first (a copy)."""
    with current_state().lock:
        return list(_store().get((account, region), []))


# -- identity and resources -----------------------------------------------------------


def _identity(access_key: str) -> tuple[str, dict[str, Any]]:
    """The account and CloudTrail ``userIdentity`` of ``access_key``."""
    from moto.iam.models import get_account_id_from, iam_backends

    account = get_account_id_from(access_key)
    key = None
    try:
        key = iam_backends[account]["aws"].access_keys.get(access_key)
    except Exception:  # IAM backend not initialised for that account
        key = None
    base = {"accountId": account, "accessKeyId": access_key}
    if key is not None and getattr(key, "role_arn", None):
        role = str(key.role_arn).split("/")[-1]
        arn = f"arn:aws:sts::{account}:assumed-role/{role}/{access_key}"
        return account, {**base, "type": "AssumedRole", "arn": arn, "userName": role}
    if key is not None and getattr(key, "user_name", None):
        user = str(key.user_name)
        arn = f"arn:aws:iam::{account}:user/{user}"
        return account, {**base, "type": "IAMUser", "arn": arn, "userName": user}
    arn = f"arn:aws:iam::{account}:root"
    return account, {**base, "type": "Root", "arn": arn, "userName": "root"}


def _resources(service: str, params: dict[str, Any]) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for key, resource_type in _RESOURCE_PARAMS.get(service, {}).items():
        value = params.get(key)
        if isinstance(value, str) and value:
            out.append({"ResourceType": resource_type, "ResourceName": value})
            if key == "QueueUrl":
                out.append(
                    {"ResourceType": resource_type, "ResourceName": value.rsplit("/", 1)[-1]}
                )
    return out


def _params(protocol: str, body: bytes, query: str) -> dict[str, Any]:
    if protocol in ("json", "rest-json") and body:
        try:
            loaded = json.loads(body)
        except ValueError:
            return {}
        return loaded if isinstance(loaded, dict) else {}
    if protocol in ("query", "ec2"):
        parsed = parse_qs(body.decode("utf-8", "replace") or query)
        return {k: v[0] for k, v in parsed.items() if k not in ("Action", "Version")}
    return {}


def record(
    *,
    service: str,
    operation: str,
    region: str,
    access_key: str,
    source_ip: str,
    params: dict[str, Any],
    at: dt.datetime | None = None,
) -> dict[str, Any]:
    """Record one management event (what the middleware does for each mutating call)."""
    account, identity = _identity(access_key)
    when = at or dt.datetime.now(dt.UTC)
    event_id = str(uuid.uuid4())
    source = f"{service}.amazonaws.com"
    resources = _resources(service, params)
    full = {
        "eventVersion": "1.08",
        "userIdentity": identity,
        "eventTime": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "eventSource": source,
        "eventName": operation,
        "awsRegion": region,
        "sourceIPAddress": source_ip,
        "userAgent": "cfnops-sandbox",
        "requestParameters": {
            k: ("HIDDEN_DUE_TO_SECURITY_REASONS" if "Value" in k else v) for k, v in params.items()
        },
        "eventID": event_id,
        "readOnly": False,
        "eventType": "AwsApiCall",
        "managementEvent": True,
        "recipientAccountId": account,
    }
    event = {
        "EventId": event_id,
        "EventName": operation,
        "ReadOnly": "false",
        "AccessKeyId": access_key,
        "EventTime": when,
        "EventSource": source,
        "Username": identity["userName"],
        "Resources": resources,
        "CloudTrailEvent": json.dumps(full),
    }
    with current_state().lock:
        _store().setdefault((account, region), []).append(event)
    return event


# -- LookupEvents -------------------------------------------------------------------


class LookupError_(ValueError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _time(value: Any, name: str) -> dt.datetime | None:
    if value is None:
        return None
    try:
        return dt.datetime.fromtimestamp(float(value), dt.UTC)
    except (TypeError, ValueError) as exc:
        raise LookupError_("ValidationException", f"{name} must be a timestamp") from exc


def _matches(event: dict[str, Any], key: str, value: str) -> bool:
    if key in ("ResourceType", "ResourceName"):
        return any(r.get(key) == value for r in event["Resources"])
    return str(event.get(key)) == value


def lookup(account: str, region: str, request: dict[str, Any]) -> dict[str, Any]:
    """The ``LookupEvents`` answer for ``request`` (raises :class:`LookupError_`)."""
    attributes = request.get("LookupAttributes") or []
    if len(attributes) > 1:
        raise LookupError_(
            "InvalidLookupAttributesException", "You can only specify one lookup attribute."
        )
    for attr in attributes:
        if attr.get("AttributeKey") not in _ATTRIBUTES or not attr.get("AttributeValue"):
            raise LookupError_(
                "InvalidLookupAttributesException",
                f"Invalid lookup attribute {attr}: AttributeKey one of {', '.join(_ATTRIBUTES)} "
                "and a non-empty AttributeValue",
            )
    now = dt.datetime.now(dt.UTC)
    start = _time(request.get("StartTime"), "StartTime") or now - dt.timedelta(days=90)
    end = _time(request.get("EndTime"), "EndTime") or now
    if start > end:
        raise LookupError_("InvalidTimeRangeException", "Start time must be before end time.")
    limit = int(request.get("MaxResults") or 50)
    if not 1 <= limit <= 50:
        raise LookupError_("InvalidMaxResultsException", "MaxResults must be between 1 and 50.")
    category = request.get("EventCategory")
    if category not in (None, "insight"):
        raise LookupError_("InvalidEventCategoryException", f"Invalid EventCategory {category}")
    query = {
        k: request.get(k) for k in ("LookupAttributes", "StartTime", "EndTime", "EventCategory")
    }
    digest = hashlib.sha256(json.dumps(query, sort_keys=True, default=str).encode()).hexdigest()
    offset = 0
    if request.get("NextToken"):
        try:
            token = json.loads(base64.urlsafe_b64decode(str(request["NextToken"])))
            offset, token_digest = int(token["o"]), str(token["q"])
        except (ValueError, KeyError, TypeError) as exc:
            raise LookupError_("InvalidNextTokenException", "Invalid NextToken.") from exc
        if token_digest != digest[:16]:
            raise LookupError_(
                "InvalidNextTokenException", "The NextToken does not match this query."
            )
    found = [] if category == "insight" else events(account, region)
    selected = [
        e
        for e in reversed(found)
        if start <= e["EventTime"] <= end
        and all(_matches(e, a["AttributeKey"], str(a["AttributeValue"])) for a in attributes)
    ]
    page = selected[offset : offset + limit]
    out: dict[str, Any] = {"Events": [{**e, "EventTime": e["EventTime"].timestamp()} for e in page]}
    if offset + limit < len(selected):
        token = {"o": offset + limit, "q": digest[:16]}
        out["NextToken"] = base64.urlsafe_b64encode(json.dumps(token).encode()).decode()
    return out


# -- the middleware -----------------------------------------------------------------


def _body(environ: dict[str, Any]) -> bytes:
    stream = environ["wsgi.input"]
    if isinstance(stream, io.BytesIO):
        data = stream.getvalue()
    else:
        length = int(environ.get("CONTENT_LENGTH") or 0)
        data = stream.read(length) if length else b""
    environ["wsgi.input"] = io.BytesIO(data)
    return data


def _json_answer(
    start_response: Callable[..., Any], status: str, payload: dict[str, Any]
) -> list[bytes]:
    data = json.dumps(payload).encode()
    start_response(
        status,
        [
            ("Content-Type", "application/x-amz-json-1.1"),
            ("Content-Length", str(len(data))),
            ("x-amzn-RequestId", str(uuid.uuid4())),
        ],
    )
    return [data]


_CREDENTIAL = re.compile(r"Credential=([^/]+)/")


def _middleware(
    environ: dict[str, Any],
    start_response: Callable[..., Any],
    next_app: Callable[..., Iterable[bytes]],
) -> Iterable[bytes]:
    info = identify(environ)
    if info is None or not info.operation:
        return next_app(environ, start_response)
    found = _CREDENTIAL.search(str(environ.get("HTTP_AUTHORIZATION", "")))
    access_key = found.group(1) if found else ""
    if info.service == "cloudtrail" and info.operation == "LookupEvents":
        try:
            request = json.loads(_body(environ) or b"{}")
            account, _ = _identity(access_key)
            answer = lookup(account, info.region, request)
        except LookupError_ as exc:
            payload = {"__type": exc.code, "message": str(exc)}
            return _json_answer(start_response, "400 Bad Request", payload)
        except ValueError as exc:
            payload = {"__type": "ValidationException", "message": str(exc)}
            return _json_answer(start_response, "400 Bad Request", payload)
        return _json_answer(start_response, "200 OK", answer)
    if _READ_ONLY.match(info.operation):
        return next_app(environ, start_response)
    body = _body(environ)
    seen: dict[str, int] = {}

    def capture(status: str, headers: Any, *rest: Any) -> Any:
        seen["status"] = int(status.split(" ", 1)[0])
        return start_response(status, headers, *rest)

    response = next_app(environ, capture)
    if seen.get("status", 500) < 400:
        forwarded = str(environ.get("HTTP_X_FORWARDED_FOR", "")).split(",")[0].strip()
        record(
            service=info.service,
            operation=info.operation,
            region=info.region,
            access_key=access_key,
            source_ip=forwarded or str(environ.get("REMOTE_ADDR", "127.0.0.1")),
            params=_params(info.protocol, body, str(environ.get("QUERY_STRING", ""))),
        )
    return response


def _control(request: dict[str, Any]) -> dict[str, Any]:
    """``{"account": "123456789012", "region": "us-east-1"}`` → the recorded events."""
    account = str(request.get("account", "123456789012"))
    region = str(request.get("region", "us-east-1"))
    return {
        "events": [{**e, "EventTime": e["EventTime"].isoformat()} for e in events(account, region)]
    }


def install() -> None:
    """Register the recording middleware and the ``cloudtrail`` control route (idempotent)."""
    with _lock:
        register_middleware(_middleware)
        register_control("cloudtrail", _control)

"""What the language front ends extract from handler code, for the rules to judge.

The Python and JavaScript interpreters run a handler once per request type
(Create, Update, Delete) with an abstract value domain: a value is the set of
*labels* saying where it may come from (the incoming PhysicalResourceId, the
log stream name, a random uuid, ...). They record every place a physical id is
reported to CloudFormation (an :class:`IdSink`), every side-effecting call made
on the Delete path, and whether the Delete path reads the incoming id.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

CREATE, UPDATE, DELETE = "Create", "Update", "Delete"
REQUEST_TYPES = (CREATE, UPDATE, DELETE)

# Labels of values.
INCOMING_ID = "incoming_id"  # event["PhysicalResourceId"] itself
FROM_ID = "from_id"  # something computed from the incoming id
NONE = "none"  # None / undefined / argument not given
OTHER = "other"  # anything else (properties, literals combined, unknown calls)
LITERAL = "literal"  # a constant written in the code
TRUE, FALSE = "bool:true", "bool:false"  # outcome of a comparison decided for this request
LOG_STREAM = "log_stream"
REQUEST_ID = "request_id"
TIME = "time"
RANDOM = "random"
REQUEST_TYPE = "request_type"  # event["RequestType"]
AWS = "aws"  # an AWS SDK module, client, resource or command
CFN_RESPONSE = "cfn_response"  # the cfn-response module
CFN_SEND = "cfn_send"  # its send function
CRHELPER_CLASS = "crhelper_class"  # crhelper.CfnResource
CRHELPER = "crhelper"  # an instance of it
STR_PREFIX = "str:"  # "str:Delete": a known string constant
EXACT = "exact"  # functions picked from a dispatch table for this request type
FROM_REQUEST_TYPE = "from_request_type"  # text built from RequestType ("on_" + rt.lower())
CLASS = "class"  # a class of the handler's module
INSTANCE = "instance"  # an instance of one (self, Provider())
MOD_PREFIX = "mod:"  # "mod:uuid.uuid4": a name imported from a module
RESPONSE_URL = "response_url"  # event["ResponseURL"], or a request/URL built from it

UNKNOWN_STATUS = "?"

VOLATILE = frozenset({LOG_STREAM, REQUEST_ID, TIME, RANDOM})
VOLATILE_WHY = {
    LOG_STREAM: "the Lambda log stream name",
    REQUEST_ID: "the request id",
    TIME: "the current time",
    RANDOM: "a random value",
}
_DATA_KEEP = VOLATILE | {FROM_ID, RESPONSE_URL}


@dataclass(frozen=True)
class Val:
    """An abstract value: where it may come from, and which local functions it may be."""

    labels: frozenset[str] = frozenset()
    funcs: frozenset[str] = frozenset()
    # a dispatch table: (key, function) of a mapping literal whose values are functions
    keyed: frozenset[tuple[str, str]] = frozenset()

    def __or__(self, other: Val) -> Val:
        return Val(self.labels | other.labels, self.funcs | other.funcs, self.keyed | other.keyed)

    def pick(self, key: Val, request_type: str) -> Val | None:
        """The functions a dispatch table gives for ``key`` (``None``: not a table lookup).

        A key built from ``RequestType`` selects the entries named after this request
        type (any case); a known string selects its entry. The result is marked
        :data:`EXACT`: these are the functions that run, whatever their names say.
        """
        if not self.keyed:
            return None
        if key.has(REQUEST_TYPE):
            wanted = {request_type.lower()}
        elif key.strings():
            wanted = {k.lower() for k in key.strings()}
        else:
            return None
        found = frozenset(f for k, f in self.keyed if k.lower() in wanted)
        return Val(frozenset({EXACT}), found)

    def has(self, label: str) -> bool:
        return label in self.labels

    def strings(self) -> frozenset[str]:
        return frozenset(x[len(STR_PREFIX) :] for x in self.labels if x.startswith(STR_PREFIX))


def lab(*labels: str) -> Val:
    return Val(frozenset(labels))


def union(values: Iterable[Val]) -> Val:
    out = Val()
    for value in values:
        out = out | value
    return out


def derived(values: Iterable[Val]) -> Val:
    """A value computed from others (string formatting, a call, slicing).

    It is no longer the incoming id itself, but keeps what makes it volatile.
    """
    labels: set[str] = {OTHER}
    for value in values:
        labels |= value.labels & _DATA_KEEP
        if INCOMING_ID in value.labels:
            labels.add(FROM_ID)
        if REQUEST_TYPE in value.labels or FROM_REQUEST_TYPE in value.labels:
            labels.add(FROM_REQUEST_TYPE)
    return Val(frozenset(labels))


def field_value(name: str, request_type: str) -> Val | None:
    """The value of a well-known request/context field, or None if not one."""
    if name == "PhysicalResourceId":
        # Create requests carry no PhysicalResourceId.
        return lab(NONE) if request_type == CREATE else lab(INCOMING_ID)
    if name == "RequestType":
        return lab(REQUEST_TYPE)
    if name == "ResponseURL":
        return lab(RESPONSE_URL)
    if name in ("RequestId", "aws_request_id", "awsRequestId"):
        return lab(REQUEST_ID)
    if name in ("log_stream_name", "logStreamName"):
        return lab(LOG_STREAM)
    return None


def name_hint(function_name: str) -> frozenset[str]:
    """Request types a function's name suggests it handles (all if it says nothing)."""
    lowered = function_name.lower()
    hinted = {rt for rt in REQUEST_TYPES if rt.lower() in lowered}
    return frozenset(hinted) if hinted else frozenset(REQUEST_TYPES)


_READ_PREFIXES = ("get", "describe", "list", "head", "batch_get", "batchget", "query", "scan")
# Promise plumbing and boto3 collection/paginator/waiter helpers: they change nothing.
_NOT_ACTIONS = {
    "promise",
    "then",
    "catch",
    "finally",
    "paginate",
    "wait",
    "all",
    "filter",
    "limit",
    "page_size",
    "load",
    "reload",
    "search",
    "build_full_result",
}
DESTRUCTIVE_VERBS = (
    "delete",
    "remove",
    "destroy",
    "terminate",
    "deregister",
    "detach",
    "disassociate",
    "revoke",
    "purge",
    "drop",
    "rmtree",
    "unlink",
)


def is_aws_action(method: str) -> bool:
    """Whether calling ``method`` on an AWS client changes something."""
    if not method or method[0].isupper() or method in _NOT_ACTIONS:
        return False  # sub-resource constructors (s3.Bucket) and promise plumbing
    lowered = method.lower()
    if lowered in ("client", "resource", "session", "get_waiter", "get_paginator"):
        return False
    return not lowered.startswith(_READ_PREFIXES)


def to_response_url(*values: Val) -> bool:
    """Whether a call involves the ResponseURL: the handler answering CloudFormation.

    The response is a PUT to a pre-signed S3 URL (AWS docs, "Custom resource
    responses": .../crpg-ref-responses.html), made with any HTTP client, botocore's
    own (``AWSRequest`` + ``URLLib3Session().send(request.prepare())``) included.
    It changes no AWS resource, so it is never an action of the Delete path.
    """
    return any(RESPONSE_URL in value.labels for value in values)


def is_destructive_name(name: str) -> bool:
    lowered = name.lower().lstrip("_")
    return lowered.startswith(DESTRUCTIVE_VERBS)


@dataclass(frozen=True)
class IdSink:
    """A place the handler tells CloudFormation the physical id."""

    kind: str  # "cfn_response" | "response_body" | "crhelper_return"
    line: int
    request_type: str
    value: Val
    status: frozenset[str]  # "SUCCESS", "FAILED", or UNKNOWN_STATUS


@dataclass(frozen=True)
class Action:
    """A side-effecting call made while handling a Delete request."""

    line: int
    what: str


@dataclass(frozen=True)
class HandlerFacts:
    """Everything the rules need to know about one handler."""

    language: str
    entry_found: bool
    uses_crhelper: bool
    sinks: tuple[IdSink, ...]
    delete_actions: tuple[Action, ...]
    delete_id_reads: tuple[int, ...]


@dataclass
class Recorder:
    """Collects facts during one abstract run (one request type)."""

    request_type: str
    sinks: list[IdSink] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)
    id_reads: list[int] = field(default_factory=list)

    def sink(self, kind: str, line: int, value: Val, status: Val | None) -> None:
        if kind == "cfn_response" and STR_PREFIX in value.labels:
            # cfn-response sends ``physicalResourceId || context.logStreamName`` (Python:
            # ``or``): an empty string is the default id, the log stream name.
            value = value | lab(NONE)
        known = status.strings() & {"SUCCESS", "FAILED"} if status else frozenset()
        statuses = known if known else frozenset({UNKNOWN_STATUS})
        self.sinks.append(IdSink(kind, line, self.request_type, value, statuses))

    def action(self, line: int, what: str) -> None:
        if self.request_type == DELETE:
            self.actions.append(Action(line, what))

    def use(self, value: Val, line: int) -> None:
        if self.request_type == DELETE and (INCOMING_ID in value.labels or FROM_ID in value.labels):
            self.id_reads.append(line)


def merge_runs(
    language: str, entry_found: bool, uses_crhelper: bool, runs: Iterable[Recorder]
) -> HandlerFacts:
    sinks: dict[tuple[str, int, str], IdSink] = {}
    actions: dict[int, Action] = {}
    reads: set[int] = set()
    for run in runs:
        for sink in run.sinks:
            key = (sink.kind, sink.line, sink.request_type)
            old = sinks.get(key)
            if old is not None:
                sink = IdSink(
                    sink.kind,
                    sink.line,
                    sink.request_type,
                    old.value | sink.value,
                    old.status | sink.status,
                )
            sinks[key] = sink
        for action in run.actions:
            actions.setdefault(action.line, action)
        reads.update(run.id_reads)
    return HandlerFacts(
        language=language,
        entry_found=entry_found,
        uses_crhelper=uses_crhelper,
        sinks=tuple(sorted(sinks.values(), key=lambda s: (s.line, s.kind, s.request_type))),
        delete_actions=tuple(sorted(actions.values(), key=lambda a: a.line)),
        delete_id_reads=tuple(sorted(reads)),
    )

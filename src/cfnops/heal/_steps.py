"""Step bodies of the heal workflow: each is one checkpoint, idempotent, JSON in and out."""

from __future__ import annotations

import datetime as dt
import re
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeVar

import botocore.exceptions
from aws_durable_execution_sdk_python.config import Duration, StepConfig
from aws_durable_execution_sdk_python.retries import RetryDecision
from aws_durable_execution_sdk_python.waits import WaitForConditionDecision

from cfnops.aws import error_code, error_message
from cfnops.config import HealSettings
from cfnops.heal import _cfn, _nested
from cfnops.heal._accepted import AcceptedDrift, AcceptedStore, mark
from cfnops.heal._attribution import attribute, parse_time
from cfnops.heal._changeview import ChangeView
from cfnops.heal._ignore import apply_ignore
from cfnops.heal._model import StackDriftReport
from cfnops.heal._policy import GateDecision, GatePolicy, decide
from cfnops.heal._runtime import HealAccount
from cfnops.heal._verify import detected_from_json
from cfnops.notify import Notification
from cfnops.schemas import load_table

_THROTTLING = frozenset(
    {
        "Throttling",
        "ThrottlingException",
        "TooManyRequestsException",
        "RequestLimitExceeded",
        "InternalFailure",
        "ServiceUnavailable",
    }
)
_IN_PROGRESS = re.compile(r"in progress|IN_PROGRESS", re.IGNORECASE)
MAX_STEP_ATTEMPTS = 6
_T = TypeVar("_T")


def aws_retry(exc: Exception, attempt: int) -> RetryDecision:
    """Retry throttling, 5xx and "operation in progress" with capped exponential backoff.

    Deterministic delays (no jitter) so a replay on any engine decides the same.
    Everything else fails the step at once: retrying a ValidationError cannot help.
    """
    if attempt >= MAX_STEP_ATTEMPTS:
        return RetryDecision.no_retry()
    retry = False
    if isinstance(exc, botocore.exceptions.ClientError):
        code = error_code(exc)
        status = int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0) or 0)
        message = error_message(exc)
        retry = code in _THROTTLING or status >= 500
        retry = retry or (code == "ValidationError" and bool(_IN_PROGRESS.search(message)))
    elif isinstance(exc, botocore.exceptions.BotoCoreError | ConnectionError | TimeoutError):
        retry = True
    if not retry:
        return RetryDecision.no_retry()
    return RetryDecision.retry(Duration.from_seconds(min(30, 2**attempt)))


AWS_STEP = StepConfig(retry_strategy=aws_retry)


def _retrying(call: Callable[[], _T]) -> _T:
    """Retry throttling inside a poll (polls are steps without retries of their own)."""
    attempt = 1
    while True:
        try:
            return call()
        except Exception as exc:
            decision = aws_retry(exc, attempt)
            if not decision.should_retry:
                raise
            time.sleep(min(8, decision.delay_seconds))
            attempt += 1


def poll_delay(seconds: float) -> Duration:
    """A poll interval as the SDK's ``Duration``: whole seconds, or a fraction below 1 s.

    The SDK declares whole seconds (AWS Lambda durable functions wait whole
    seconds, and its SDK raises anything under 1 s to 1 s); cfnops's engine waits
    a fraction below 1 s as given (``[heal]`` settings allow 0.1-1 s for the
    local sandbox and whole seconds above).
    """
    if seconds >= 1:
        return Duration.from_seconds(seconds)
    return Duration(seconds=seconds)  # type: ignore[arg-type]


def poll_until(
    done: Callable[[dict[str, Any]], bool], seconds: float, max_attempts: int
) -> Callable[[dict[str, Any], int], WaitForConditionDecision]:
    """Stop when ``done`` or after ``max_attempts`` polls; the caller raises on a timeout."""
    delay = poll_delay(seconds)

    def strategy(state: dict[str, Any], attempts: int) -> WaitForConditionDecision:
        if done(state) or attempts >= max_attempts:
            return WaitForConditionDecision.stop_polling()
        return WaitForConditionDecision.continue_waiting(delay)

    return strategy


def check_stack(rt: HealAccount, stack: str, region: str | None) -> dict[str, Any]:
    found = _cfn.describe_stack(rt.cfn(region), stack)
    return found or {"StackId": "", "StackName": stack, "StackStatus": "NOT_FOUND"}


def poll_stack(
    rt: HealAccount, stack: str, region: str | None
) -> Callable[[dict[str, Any], Any], Any]:
    def check(state: dict[str, Any], _: Any) -> dict[str, Any]:
        found = _retrying(lambda: check_stack(rt, stack, region))
        return {**found, "polls": int(state.get("polls", 0)) + 1}

    return check


def detect_drift(rt: HealAccount, stack: str, region: str | None) -> dict[str, Any]:
    """Look the stack up and, when it is idle in a checkable status, start drift detection.

    ``{"stack": {StackId, StackName, StackStatus}, "detectionId": id}``; without
    ``detectionId`` when the stack is missing, busy or in a status that forbids
    detection (the workflow decides what that means). One checkpoint for both
    calls: a re-run after a crash starts a fresh detection, which is harmless.
    """
    info = check_stack(rt, stack, region)
    status = info["StackStatus"]
    if info.get("RootId"):
        return {"stack": info}  # a nested stack: the workflow says to heal its root
    if status == "NOT_FOUND" or status.endswith("_IN_PROGRESS") or status not in _cfn.CHECKABLE:
        return {"stack": info}
    cfn = rt.cfn(region)
    detection_id = _cfn.start_detection(cfn, info["StackId"])
    nested = _nested.start_detections(cfn, info["StackId"])
    return {"stack": info, "detectionId": detection_id, "nested": nested}


def poll_detection(
    rt: HealAccount,
    detection_id: str,
    stack_name: str,
    region: str | None,
    heal: HealSettings,
    deployed_at: str | None = None,
    nested: list[dict[str, Any]] | None = None,
) -> Callable[[dict[str, Any], Any], Any]:
    """Poll the detection; the poll that sees it complete also reads the resources.

    With ``nested`` (the nested stacks' detections, :mod:`cfnops.heal._nested`),
    the detection ends when every one of them has; their drift is merged in.

    Reading them in the same checkpoint saves one write per heal; the result is
    in the final poll's state under ``"drifted"``, ``"statuses"`` and
    ``"coverage"`` (read for in-sync stacks too: a stack can read IN_SYNC while
    resources were not checked).
    """

    def check(state: dict[str, Any], _: Any) -> dict[str, Any]:
        cfn = rt.cfn(region)
        status = _retrying(lambda: _cfn.detection_status(cfn, detection_id))
        out = {**status, "polls": int(state.get("polls", 0)) + 1}
        stack_id = str(status["StackId"])

        def read_root() -> dict[str, Any]:
            return _retrying(
                lambda: read_drift(rt, stack_name, stack_id, region, heal, deployed_at)
            )

        if nested:
            return _retrying(
                lambda: _nested.combine(
                    out,
                    nested,
                    cfn,
                    read_root,
                    lambda name, sid: read_drift(rt, name, sid, region, heal),
                )
            )
        if status["DetectionStatus"] == "DETECTION_COMPLETE":
            out.update(read_root())
        return out

    return check


def read_drift(
    rt: HealAccount,
    stack_name: str,
    stack_id: str,
    region: str | None,
    heal: HealSettings,
    deployed_at: str | None = None,
) -> dict[str, Any]:
    """``"drifted"``: drifted resources (MODIFIED/DELETED) with ignore rules marked, as
    JSON; ``"statuses"``: every resource's drift status (the gate's verification);
    ``"coverage"``: checked / not checked / unsupported counts. With
    ``heal.attribution``, each drifted resource carries who changed it
    (CloudTrail LookupEvents since ``deployed_at``, throttling retried)."""
    resources = _cfn.resource_drifts(rt.cfn(region), stack_id)
    report = apply_ignore(
        StackDriftReport(stack_name, stack_id, "DRIFTED", resources=resources), heal.ignore
    )
    if report.drifted():
        report = with_accepted(rt, report, region)
    if heal.attribution and report.drifted():
        cloudtrail = rt.clients_for(region).client("cloudtrail")
        since = parse_time(deployed_at) or dt.datetime.now(dt.UTC) - dt.timedelta(days=90)
        found = attribute(
            cloudtrail,
            [(r.logical_id, r.physical_id) for r in report.drifted()],
            since,
            call=_retrying,
        )
        report = report.with_resources(
            tuple(replace(r, attribution=found.get(r.logical_id)) for r in report.resources)
        )
    return {
        "drifted": [r.to_json() for r in report.resources if r.status in ("MODIFIED", "DELETED")],
        "statuses": {r.logical_id: r.status for r in report.resources},
        "coverage": report.coverage.to_json(),
    }


_ACCEPTED_TTL = 2.0  # seconds an acceptance list is reused by a busy fleet
_accepted_cache: dict[str, tuple[float, list[AcceptedDrift]]] = {}


def with_accepted(
    rt: HealAccount, report: StackDriftReport, region: str | None
) -> StackDriftReport:
    """The report with active acceptances (``cfnops drift accept``) marked.

    The list is read from the run database at most every two seconds per process
    (a fleet heal would otherwise query it for every drifted stack), so a new
    acceptance applies to runs that read drift two seconds after it.
    """
    settings, database = rt.settings, rt.runtime.database
    now = time.monotonic()
    cached = _accepted_cache.get(database.url)
    if cached is None or now - cached[0] > _ACCEPTED_TTL:
        cached = (now, AcceptedStore(database).list())
        _accepted_cache[database.url] = cached
    wanted = region or settings.aws.region
    entries = cached[1]
    account = rt.account_id(region) if any(e.account for e in entries) else None
    return mark(report, entries, dt.datetime.now(dt.UTC), wanted, account)


def create_change_set(
    rt: HealAccount, stack_id: str, name: str, token: str, region: str | None, nested: bool = False
) -> dict[str, str]:
    cfn = rt.cfn(region)
    return _cfn.create_revert_change_set(cfn, stack_id, name, token, nested)


def poll_change_set(
    rt: HealAccount, stack_id: str, change_set_id: str, region: str | None
) -> Callable[[dict[str, Any], Any], Any]:
    def check(state: dict[str, Any], _: Any) -> dict[str, Any]:
        cfn = rt.cfn(region)
        status = _retrying(lambda: _cfn.change_set_status(cfn, stack_id, change_set_id))
        return {**status, "polls": int(state.get("polls", 0)) + 1}

    return check


def poll_created_change_set(
    rt: HealAccount,
    stack_name: str,
    stack_id: str,
    change_set_id: str,
    region: str | None,
    gating: HealSettings | None,
    detection: dict[str, Any] | None = None,
) -> Callable[[dict[str, Any], Any], Any]:
    """Poll a change set being created; the poll that sees CREATE_COMPLETE runs the gate.

    With ``gating`` (omitted in review mode), that poll reads the whole change
    set (every page; the first is the poll's own response) and stores the
    gate's decision under ``"gate"``: one checkpoint and one call fewer than a
    separate gate step. ``detection`` (the detection poll's ``drifted`` and
    ``statuses``) lets the gate verify each change against the detected drift.
    """

    def check(state: dict[str, Any], _: Any) -> dict[str, Any]:
        cfn = rt.cfn(region)
        whole = _retrying(lambda: _cfn.describe_change_set(cfn, stack_id, change_set_id))
        out = {**_cfn.status_of(whole), "polls": int(state.get("polls", 0)) + 1}
        if gating is not None and out["Status"] == "CREATE_COMPLETE":
            subs = _retrying(lambda: _nested.nested_change_sets(cfn, whole))
            out["gate"] = gate(stack_name, whole, gating, detection, subs)
        return out

    return check


def gate(
    stack_name: str,
    whole: dict[str, Any],
    heal: HealSettings,
    detection: dict[str, Any] | None = None,
    nested: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Decide on the whole change set (every page merged): EXECUTE, HOLD or SKIP.

    ``nested`` (path → nested change set) gates each nested change set against
    the detection of its own stack (``detection["nested"][path]``), then merges.
    """
    if not nested:
        return _gate_one(stack_name, list(whole.get("Changes", [])), heal, detection)[0]
    parts: list[tuple[str, GateDecision, list[dict[str, Any]]]] = []
    own = [
        c
        for c in whole.get("Changes", [])
        if not _nested.is_container(c)
        or str(c.get("ResourceChange", c).get("LogicalResourceId")) not in nested
    ]
    if own:
        parts.append(("", *_gate_one(stack_name, own, heal, detection)[1:]))
    by_path = dict((detection or {}).get("nested", {}))
    for path, sub in nested.items():
        changes = [c for c in sub.get("Changes", []) if not _nested.is_container(c)]
        if not changes:
            continue
        found = by_path.get(path)
        sub_detection = None if detection is None else (found or {"drifted": [], "statuses": {}})
        name = str((found or {}).get("stackName") or sub.get("StackName") or path)
        parts.append((path, *_gate_one(name, changes, heal, sub_detection)[1:]))
    return _nested.merge(parts)


def _gate_one(
    stack_name: str,
    api_changes: list[dict[str, Any]],
    heal: HealSettings,
    detection: dict[str, Any] | None,
) -> tuple[dict[str, Any], GateDecision, list[dict[str, Any]]]:
    changes = tuple(ChangeView.from_api(c) for c in api_changes)
    accepted = accepted_paths(list((detection or {}).get("drifted", [])))
    policy = GatePolicy(heal.protected_types, heal.ignore, stack_name, accepted)
    detected = None
    if detection is not None:
        detected = detected_from_json(
            list(detection.get("drifted", [])), dict(detection.get("statuses", {}))
        )
    decision = decide(changes, policy, detected, schema_recreation(changes))
    views = [c.to_json() for c in changes]
    return {**decision.to_json(), "changes": views}, decision, views


def accepted_paths(drifted: list[dict[str, Any]]) -> tuple[tuple[str, str], ...]:
    """(logical id, path) of the accepted drift in the detection (``""``: whole resource)."""
    out: list[tuple[str, str]] = []
    for d in drifted:
        if d.get("accepted") and d.get("status") == "DELETED":
            out.append((str(d["logicalId"]), ""))
        out.extend(
            (str(d["logicalId"]), str(p["path"]))
            for p in d.get("properties", [])
            if p.get("accepted")
        )
    return tuple(out)


def schema_recreation(changes: tuple[ChangeView, ...]) -> dict[str, str]:
    """``"Type/Property"`` → the registry schema's RequiresRecreation, for replacing details."""
    wanted = {
        (c.resource_type, d.name)
        for c in changes
        for d in c.details
        if d.requires_recreation in ("Always", "Conditionally")
    }
    if not wanted:
        return {}
    table = load_table("us-east-1")
    out: dict[str, str] = {}
    for resource_type, prop in wanted:
        behaviour = table.get(resource_type)
        if behaviour is None:
            continue
        if any(p[:1] == (prop,) for p in behaviour.create_only):
            out[f"{resource_type}/{prop}"] = "Always"
        elif any(p[:1] == (prop,) for p in behaviour.conditional_create_only):
            out[f"{resource_type}/{prop}"] = "Conditionally"
        else:
            out[f"{resource_type}/{prop}"] = "Never"
    return out


def execute(
    rt: HealAccount, stack_id: str, change_set_id: str, token: str, region: str | None
) -> str:
    return _cfn.execute_change_set(rt.cfn(region), stack_id, change_set_id, token)


def delete(rt: HealAccount, stack_id: str, change_set_id: str, region: str | None) -> bool:
    return _cfn.delete_change_set(rt.cfn(region), stack_id, change_set_id)


def send(rt: HealAccount, notification: Notification, region: str | None) -> list[dict[str, Any]]:
    deliveries = rt.notify(notification, region)
    return [{"channel": d.channel, "ok": d.ok, "attempts": d.attempts} for d in deliveries]

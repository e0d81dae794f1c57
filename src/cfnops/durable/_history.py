"""The Lambda durable-execution backend's state machine: checkpoints → operations + history.

Pure functions on a plain, JSON-able execution record (``dict``): what the Lambda service
does when ``CheckpointDurableExecution`` receives operation updates, when a timer fires
(a wait ends, a retry is due, a callback times out), when an external caller completes a
callback, and when an invocation ends. Each transition appends the event
``GetDurableExecutionHistory`` would return, numbered from 1 (``ExecutionStarted``).

Operations are kept in the shape ``Operation.to_json_dict`` of the SDK writes (times in
epoch milliseconds); events in the shape of the Lambda API's ``Event`` (times in epoch
milliseconds here, converted at the API edge).

See https://docs.aws.amazon.com/lambda/latest/api/API_GetDurableExecutionHistory.html
and https://docs.aws.amazon.com/lambda/latest/api/API_CheckpointDurableExecution.html
"""

from __future__ import annotations

import base64
import json
from typing import Any

Record = dict[str, Any]

TERMINAL = ("SUCCEEDED", "FAILED", "TIMED_OUT", "STOPPED")
_OP_DONE = ("SUCCEEDED", "FAILED", "CANCELLED", "TIMED_OUT", "STOPPED")


def new_record(
    arn: str, function: str, name: str, input_payload: str, now: int, *, timeout: int = 0
) -> Record:
    """A RUNNING execution with its EXECUTION operation and ``ExecutionStarted`` event."""
    exec_id = arn.rsplit("/", 1)[-1]
    record: Record = {
        "arn": arn,
        "function": function,
        "name": name,
        "status": "RUNNING",
        "input": input_payload,
        "result": None,
        "error": None,
        "start": now,
        "end": None,
        "ops": {
            exec_id: {
                "Id": exec_id,
                "Type": "EXECUTION",
                "Status": "STARTED",
                "StartTimestamp": now,
                "ExecutionDetails": {"InputPayload": input_payload},
            }
        },
        "events": [],
        "token": 0,
        "invocations": 0,
        "wake": True,
        "updated": [],
        "news": [],
        "stop": None,
        "parent": None,
    }
    details: Record = {"Input": {"Payload": input_payload}}
    if timeout:
        details["ExecutionTimeout"] = timeout
    _event(record, "ExecutionStarted", now, None, details)
    return record


def callback_id(arn: str, op_id: str) -> str:
    """An opaque callback id that names its execution (no lookup table needed)."""
    raw = json.dumps([arn, op_id], separators=(",", ":")).encode()
    return base64.b64encode(raw).decode()  # the API's CallbackId pattern: base64


def parse_callback_id(value: str) -> tuple[str, str] | None:
    try:
        raw = base64.b64decode(value, validate=True)
        arn, op_id = json.loads(raw)
    except (ValueError, TypeError):
        return None
    if not isinstance(arn, str) or not isinstance(op_id, str):
        return None
    return arn, op_id


def _event(
    record: Record, event_type: str, now: int, op: Record | None, details: Record | None
) -> Record:
    event: Record = {"EventType": event_type, "EventId": len(record["events"]) + 1}
    if op is not None:
        if op.get("SubType"):
            event["SubType"] = op["SubType"]
        event["Id"] = op["Id"]
        if op.get("Name"):
            event["Name"] = op["Name"]
        if op.get("ParentId"):
            event["ParentId"] = op["ParentId"]
    event["EventTimestamp"] = now
    event[f"{event_type}Details"] = details if details is not None else {}
    record["events"].append(event)
    return event


def _error(err: Record | None) -> Record:
    return {"Payload": dict(err or {}), "Truncated": False}


def _result(payload: str | None) -> Record:
    """An ``EventResult``: the payload (whole: nothing is truncated locally)."""
    return {} if payload is None else {"Payload": payload, "Truncated": False}


def _touch(record: Record, op_id: str, *, wake: bool) -> None:
    for key in ("updated", "news"):
        if op_id not in record[key]:
            record[key].append(op_id)
    if wake:
        record["wake"] = True


# -- checkpoints ----------------------------------------------------------------


def apply_updates(record: Record, updates: list[Record], now: int) -> list[Record]:
    """Apply one ``CheckpointDurableExecution`` batch; return the operations it changed.

    Chained invokes to start are queued in ``record["pending_invokes"]`` for the caller.
    """
    changed: list[Record] = []
    for update in updates:
        op = _apply(record, update, now)
        if op is not None:
            changed.append(op)
    return changed


def _apply(record: Record, update: Record, now: int) -> Record | None:
    kind = update["Type"]
    action = update["Action"]
    if kind == "EXECUTION":
        if action == "SUCCEED":
            finish(record, "SUCCEEDED", now, result=update.get("Payload", ""))
        elif action == "FAIL":
            finish(record, "FAILED", now, error=update.get("Error"))
        return None
    op_id = update["Id"]
    op: Record | None = record["ops"].get(op_id)
    if op is None:
        op = {"Id": op_id, "Type": kind, "Status": "STARTED", "StartTimestamp": now}
        for key in ("ParentId", "Name", "SubType"):
            if update.get(key):
                op[key] = update[key]
        record["ops"][op_id] = op
    handler = _HANDLERS.get((kind, action))
    if handler is None:
        return op
    handler(record, op, update, now)
    return op


def _step_start(record: Record, op: Record, update: Record, now: int) -> None:
    op["Status"] = "STARTED"
    details = op.setdefault("StepDetails", {"Attempt": 0})
    details.pop("NextAttemptTimestamp", None)
    _event(record, "StepStarted", now, op, {})


def _step_retry(record: Record, op: Record, update: Record, now: int) -> None:
    details = op.setdefault("StepDetails", {"Attempt": 0})
    details["Attempt"] = int(details.get("Attempt", 0)) + 1
    delay = int((update.get("StepOptions") or {}).get("NextAttemptDelaySeconds", 0))
    details["NextAttemptTimestamp"] = now + delay * 1000
    op["Status"] = "PENDING"
    if update.get("Payload") is not None:
        details["Result"] = update["Payload"]
    if update.get("Error"):
        details["Error"] = update["Error"]
        _event(
            record,
            "StepFailed",
            now,
            op,
            {
                "Error": _error(update["Error"]),
                "RetryDetails": {
                    "CurrentAttempt": details["Attempt"],
                    "NextAttemptDelaySeconds": delay,
                },
            },
        )
    else:  # wait_for_condition: a poll that asks for another one
        details.pop("Error", None)
        result = _result(update.get("Payload"))
        _event(
            record,
            "StepSucceeded",
            now,
            op,
            {
                "Result": result,
                "RetryDetails": {
                    "CurrentAttempt": details["Attempt"],
                    "NextAttemptDelaySeconds": delay,
                },
            },
        )


def _step_end(record: Record, op: Record, update: Record, now: int) -> None:
    details = op.setdefault("StepDetails", {"Attempt": 0})
    details["Attempt"] = int(details.get("Attempt", 0)) + 1
    details.pop("NextAttemptTimestamp", None)
    op["EndTimestamp"] = now
    retry = {"CurrentAttempt": details["Attempt"]}
    if update["Action"] == "SUCCEED":
        op["Status"] = "SUCCEEDED"
        details.pop("Error", None)
        if update.get("Payload") is not None:
            details["Result"] = update["Payload"]
        result = _result(update.get("Payload"))
        _event(record, "StepSucceeded", now, op, {"Result": result, "RetryDetails": retry})
    else:
        op["Status"] = "FAILED"
        details["Error"] = update.get("Error") or {}
        _event(
            record,
            "StepFailed",
            now,
            op,
            {"Error": _error(update.get("Error")), "RetryDetails": retry},
        )


def _wait_start(record: Record, op: Record, update: Record, now: int) -> None:
    seconds = int((update.get("WaitOptions") or {}).get("WaitSeconds", 1))
    end = now + seconds * 1000
    op["Status"] = "STARTED"
    op["WaitDetails"] = {"ScheduledEndTimestamp": end, "Duration": seconds}
    _event(record, "WaitStarted", now, op, {"Duration": seconds, "ScheduledEndTimestamp": end})


def _wait_cancel(record: Record, op: Record, update: Record, now: int) -> None:
    if op["Status"] in _OP_DONE:
        return
    op["Status"] = "CANCELLED"
    op["EndTimestamp"] = now
    _event(record, "WaitCancelled", now, op, {"Error": _error(update.get("Error"))})


def _callback_start(record: Record, op: Record, update: Record, now: int) -> None:
    options = update.get("CallbackOptions") or {}
    timeout = int(options.get("TimeoutSeconds", 0) or 0)
    heartbeat = int(options.get("HeartbeatTimeoutSeconds", 0) or 0)
    op["Status"] = "STARTED"
    op["CallbackDetails"] = {"CallbackId": callback_id(record["arn"], op["Id"])}
    op["_timers"] = {
        "timeout": now + timeout * 1000 if timeout else None,
        "heartbeat": now + heartbeat * 1000 if heartbeat else None,
        "heartbeat_seconds": heartbeat,
    }
    details: Record = {"CallbackId": op["CallbackDetails"]["CallbackId"]}
    if heartbeat:
        details["HeartbeatTimeout"] = heartbeat
    if timeout:
        details["Timeout"] = timeout
    _event(record, "CallbackStarted", now, op, details)


def _invoke_start(record: Record, op: Record, update: Record, now: int) -> None:
    options = update.get("ChainedInvokeOptions") or {}
    op["Status"] = "STARTED"
    op["ChainedInvokeDetails"] = {}
    payload = update.get("Payload")
    op["_invoke"] = {
        "function": options.get("FunctionName", ""),
        "tenant": options.get("TenantId"),
        "payload": payload,
    }
    record.setdefault("pending_invokes", []).append(op["Id"])


def invoke_started(record: Record, op_id: str, child_arn: str, now: int) -> None:
    """The chained execution of ``op_id`` has been created as ``child_arn``."""
    op = record["ops"][op_id]
    info = op["_invoke"]
    info["arn"] = child_arn
    details: Record = {"FunctionName": info["function"]}
    if info.get("tenant"):
        details["TenantId"] = info["tenant"]
    details["Input"] = {"Payload": info["payload"]} if info.get("payload") is not None else {}
    details["ExecutedVersion"] = "$LATEST"
    details["DurableExecutionArn"] = child_arn
    _event(record, "ChainedInvokeStarted", now, op, details)


def invoke_finished(
    record: Record, op_id: str, status: str, now: int, *, result: Any = None, error: Any = None
) -> bool:
    """The chained execution of ``op_id`` ended; False when it had already been settled."""
    op = record["ops"].get(op_id)
    if op is None or op["Status"] in _OP_DONE:
        return False
    op["Status"] = status
    op["EndTimestamp"] = now
    if status == "SUCCEEDED":
        if result is not None:
            op["ChainedInvokeDetails"] = {"Result": result}
        _event(record, "ChainedInvokeSucceeded", now, op, {"Result": _result(result)})
    else:
        op["ChainedInvokeDetails"] = {"Error": error or {}}
        kind = {"TIMED_OUT": "ChainedInvokeTimedOut", "STOPPED": "ChainedInvokeStopped"}
        _event(record, kind.get(status, "ChainedInvokeFailed"), now, op, {"Error": _error(error)})
    _touch(record, op_id, wake=True)
    return True


def _context_start(record: Record, op: Record, update: Record, now: int) -> None:
    op["Status"] = "STARTED"
    _event(record, "ContextStarted", now, op, {})


def _context_end(record: Record, op: Record, update: Record, now: int) -> None:
    details: Record = {}
    options = update.get("ContextOptions") or {}
    if options.get("ReplayChildren"):
        details["ReplayChildren"] = True
    op["EndTimestamp"] = now
    if update["Action"] == "SUCCEED":
        op["Status"] = "SUCCEEDED"
        details["Result"] = update.get("Payload")
        op["ContextDetails"] = details
        _event(record, "ContextSucceeded", now, op, {"Result": _result(update.get("Payload"))})
    else:
        op["Status"] = "FAILED"
        details["Error"] = update.get("Error") or {}
        op["ContextDetails"] = details
        _event(record, "ContextFailed", now, op, {"Error": _error(update.get("Error"))})


_HANDLERS: dict[tuple[str, str], Any] = {
    ("STEP", "START"): _step_start,
    ("STEP", "RETRY"): _step_retry,
    ("STEP", "SUCCEED"): _step_end,
    ("STEP", "FAIL"): _step_end,
    ("WAIT", "START"): _wait_start,
    ("WAIT", "CANCEL"): _wait_cancel,
    ("CALLBACK", "START"): _callback_start,
    ("CHAINED_INVOKE", "START"): _invoke_start,
    ("CONTEXT", "START"): _context_start,
    ("CONTEXT", "SUCCEED"): _context_end,
    ("CONTEXT", "FAIL"): _context_end,
}


# -- callbacks ------------------------------------------------------------------


def complete_callback(
    record: Record, op_id: str, outcome: str, now: int, *, result: str | None, error: Record | None
) -> str:
    """Apply ``SendDurableExecutionCallback{Success,Failure,Heartbeat}``.

    Returns ``"ok"``, or why it was refused: ``"unknown"`` (no such callback),
    ``"closed"`` (it has already ended).
    """
    op = record["ops"].get(op_id)
    if op is None or op["Type"] != "CALLBACK":
        return "unknown"
    if op["Status"] in _OP_DONE or record["status"] != "RUNNING":
        return "closed"
    timers = op.get("_timers") or {}
    if outcome == "heartbeat":
        if timers.get("heartbeat_seconds"):
            timers["heartbeat"] = now + int(timers["heartbeat_seconds"]) * 1000
        return "ok"
    op["EndTimestamp"] = now
    details = op.setdefault("CallbackDetails", {})
    if outcome == "success":
        op["Status"] = "SUCCEEDED"
        if result is not None:
            details["Result"] = result
        _event(record, "CallbackSucceeded", now, op, {"Result": _result(result)})
    else:
        op["Status"] = "FAILED"
        details["Error"] = error or {}
        _event(record, "CallbackFailed", now, op, {"Error": _error(error)})
    _touch(record, op_id, wake=True)
    return "ok"


# -- timers ---------------------------------------------------------------------


def fire_timers(record: Record, now: int) -> bool:
    """Complete every wait, retry and callback deadline due at ``now``; True if any fired."""
    fired = False
    for op in list(record["ops"].values()):
        status = op["Status"]
        if op["Type"] == "WAIT" and status == "STARTED":
            wait = op.get("WaitDetails") or {}
            if wait.get("ScheduledEndTimestamp", 0) <= now:
                op["Status"] = "SUCCEEDED"
                op["EndTimestamp"] = now
                _event(record, "WaitSucceeded", now, op, {"Duration": wait.get("Duration")})
                _touch(record, op["Id"], wake=True)
                fired = True
        elif op["Type"] == "STEP" and status == "PENDING":
            due = (op.get("StepDetails") or {}).get("NextAttemptTimestamp", 0)
            if due <= now:
                op["Status"] = "READY"
                _touch(record, op["Id"], wake=True)
                fired = True
        elif op["Type"] == "CALLBACK" and status == "STARTED":
            timers = op.get("_timers") or {}
            for key, kind in (("timeout", "Callback.Timeout"), ("heartbeat", "Callback.Heartbeat")):
                due = timers.get(key)
                if due is not None and due <= now:
                    err = {"ErrorType": kind, "ErrorMessage": f"Callback timed out ({key})"}
                    op["Status"] = "TIMED_OUT"
                    op["EndTimestamp"] = now
                    op.setdefault("CallbackDetails", {})["Error"] = err
                    _event(record, "CallbackTimedOut", now, op, {"Error": _error(err)})
                    _touch(record, op["Id"], wake=True)
                    fired = True
                    break
    return fired


def next_timer(record: Record) -> int | None:
    """Epoch ms of the earliest pending deadline, or None."""
    due: list[int] = []
    for op in record["ops"].values():
        if op["Type"] == "WAIT" and op["Status"] == "STARTED":
            due.append(int((op.get("WaitDetails") or {}).get("ScheduledEndTimestamp", 0)))
        elif op["Type"] == "STEP" and op["Status"] == "PENDING":
            due.append(int((op.get("StepDetails") or {}).get("NextAttemptTimestamp", 0)))
        elif op["Type"] == "CALLBACK" and op["Status"] == "STARTED":
            timers = op.get("_timers") or {}
            due.extend(int(t) for t in (timers.get("timeout"), timers.get("heartbeat")) if t)
    return min(due) if due else None


# -- invocations and the end ----------------------------------------------------


def invocation_completed(
    record: Record, start: int, now: int, request_id: str, error: Record | None = None
) -> None:
    details: Record = {"StartTimestamp": start, "EndTimestamp": now, "RequestId": request_id}
    if error:
        details["Error"] = _error(error)
    _event(record, "InvocationCompleted", now, None, details)


def finish(
    record: Record, status: str, now: int, *, result: str | None = None, error: Any = None
) -> bool:
    """End the execution (once): status, output and the terminal event."""
    if record["status"] != "RUNNING":
        return False
    record["status"] = status
    record["end"] = now
    record["result"] = result
    record["error"] = error
    exec_op = record["ops"].get(record["arn"].rsplit("/", 1)[-1])
    if exec_op is not None:
        exec_op["Status"] = status
        exec_op["EndTimestamp"] = now
    kind = {
        "SUCCEEDED": "ExecutionSucceeded",
        "FAILED": "ExecutionFailed",
        "STOPPED": "ExecutionStopped",
        "TIMED_OUT": "ExecutionTimedOut",
    }[status]
    if status == "SUCCEEDED":
        details: Record = {"Result": _result(result)}
    else:
        details = {"Error": _error(error)}
    _event(record, kind, now, None, details)
    return True


def public_operations(record: Record, ids: list[str] | None = None) -> list[Record]:
    """Operations as the API returns them (the backend's private keys removed)."""
    chosen = record["ops"].values() if ids is None else [record["ops"][i] for i in ids]
    return [{k: v for k, v in op.items() if not k.startswith("_")} for op in chosen]

"""Any run's execution history in the shape ``GetDurableExecutionHistory`` returns.

A Lambda durable execution (:class:`cfnops.durable.LocalLambda`) records its events as
the service does, checkpoint by checkpoint: they are returned as recorded. A run of a
DBOS-native workflow (``@workflow``: heal, ami, job-nets) has step records instead;
its history is derived from them with the same event vocabulary (``ExecutionStarted``,
``StepStarted``/``StepSucceeded``/``StepFailed``, ``WaitStarted``/``WaitSucceeded``,
``ContextStarted``/``ContextSucceeded``, then the terminal event), times in epoch
milliseconds. See
https://docs.aws.amazon.com/lambda/latest/api/API_GetDurableExecutionHistory.html
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from cfnops.database import Database
from cfnops.durable._lambda_store import TABLE, ExecutionStore
from cfnops.durable._records import RunRecord, RunStore, StepRecord
from cfnops.durable.errors import UnknownExecution

_KINDS = {"step": "Step", "wait": "Wait", "child": "Context", "message": "Callback"}
_SUBTYPES = {"step": "Step", "wait": "Wait", "child": "RunInChildContext", "message": "Callback"}
_TERMINAL = {
    "SUCCEEDED": "ExecutionSucceeded",
    "FAILED": "ExecutionFailed",
    "CANCELLED": "ExecutionStopped",
}


def run_history(database: Database, run: str) -> list[dict[str, Any]]:
    """The history of ``run`` (a run id or a durable execution's ARN) in ``database``
    (``runtime.database``)."""
    # Reading never creates the executions table (a console may read with a role
    # that cannot): without it there is no durable execution to find.
    executions = ExecutionStore(database) if database.has_table(TABLE) else None
    arn = run if run.startswith("arn:") else None
    if arn is None and executions is not None:
        arn = executions.arn_of_run(run)
    if arn is not None:
        found = executions.get(arn) if executions is not None else None
        if found is None:
            raise UnknownExecution(arn)
        return list(found["events"])
    with RunStore(database) as store:
        record = store.get(run)
        steps = store.steps(run)
    return derived_history(record, steps)


def _ms(when: datetime | None) -> int | None:
    return None if when is None else int(when.timestamp() * 1000)


def derived_history(record: RunRecord, steps: list[StepRecord]) -> list[dict[str, Any]]:
    """Events for a DBOS-native run, from its run and step records."""
    events: list[dict[str, Any]] = []

    def add(kind: str, when: int | None, details: dict[str, Any], **ids: Any) -> None:
        event = {"EventType": kind, "EventId": len(events) + 1, **ids, "EventTimestamp": when}
        event[f"{kind}Details"] = details
        events.append(event)

    payload = json.dumps(record.input)
    add("ExecutionStarted", _ms(record.created), {"Input": {"Payload": payload}})
    for step in steps:
        base = _KINDS.get(step.kind, "Step")
        ids = {
            "SubType": _SUBTYPES.get(step.kind, "Step"),
            "Id": str(step.index),
            "Name": step.name,
        }
        add(f"{base}Started", _ms(step.started), {}, **ids)
        if step.ended is None:
            continue
        if step.error:
            err = {"Payload": {"ErrorType": "StepError", "ErrorMessage": step.error}}
            add(f"{base}Failed", _ms(step.ended), {"Error": err}, **ids)
        else:
            result = {"Payload": json.dumps(step.result)} if step.result is not None else {}
            add(f"{base}Succeeded", _ms(step.ended), {"Result": result}, **ids)
    terminal = _TERMINAL.get(record.status)
    if terminal == "ExecutionSucceeded":
        add(terminal, _ms(record.updated), {"Result": {"Payload": json.dumps(record.output)}})
    elif terminal is not None:
        err = {"Payload": {"ErrorType": record.status, "ErrorMessage": record.error or ""}}
        add(terminal, _ms(record.updated), {"Error": err})
    return events

"""A local backend for AWS Lambda durable functions, on cfnops's durable engine.

:class:`LocalLambda` is the Lambda service's side of a durable function: it starts an
execution (``Invoke`` with a ``DurableExecutionName``), invokes the handler with the
execution's operations, takes its checkpoints (:mod:`cfnops.durable._lambda_client`),
fires waits, retries and callback timeouts, answers callbacks, runs chained invokes, and
re-invokes the handler whenever something it waits on has happened, until the handler
returns or fails. The SDK in the handler does what it does on AWS (operation ids,
replay, retries, map/parallel concurrency, serialisation, plugins): cfnops only plays
the service.

Each execution is driven by one DBOS workflow (``cfnops.lambda``) whose run id is the
execution id, so a process killed with ``kill -9`` loses nothing: the run is recovered
like any other, reads the execution from the store and re-invokes the handler, which
replays from its checkpoints (as Lambda re-invokes after a crashed invocation).

See https://docs.aws.amazon.com/lambda/latest/dg/durable-execution-sdk.html
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from cfnops.config import Settings
from cfnops.durable import _history as h
from cfnops.durable._lambda_client import (
    LocalLambdaContext,
    LocalServiceClient,
    now_ms,
    to_operations,
)
from cfnops.durable._lambda_functions import LambdaFunction, function_name, get_function
from cfnops.durable._lambda_store import ExecutionStore
from cfnops.durable._registry import register_workflow
from cfnops.durable.errors import CallbackClosed, UnknownExecution
from cfnops.runtime import Runtime

LAMBDA_WORKFLOW = "cfnops.lambda"
REGION = "us-east-1"
ACCOUNT = "123456789012"
# How often an idle driver looks at its execution for news from other processes
# (callbacks answered elsewhere); news from this process wakes it at once.
POLL_SECONDS = 0.1
MAX_INVOCATION_ATTEMPTS = 3


def function_arn(name: str) -> str:
    return f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{function_name(name)}"


def execution_arn(function: str, name: str, exec_id: str) -> str:
    return f"{function_arn(function)}:$LATEST/durable-execution/{name}/{exec_id}"


class LocalLambda:
    """The Lambda durable-execution API over a runtime's run database.

    The engine that drives executions owns one (:meth:`Engine.local_lambda
    <cfnops.durable.Engine.local_lambda>`): a callback answered through it wakes the
    driver at once. Another instance on the same database (a process that only reads
    and answers, with no engine) works too; its news reaches drivers at their next poll.
    """

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.store = ExecutionStore(runtime.database)
        self.client = LocalServiceClient(self.store, self._start_chained)
        self._news = threading.Condition()

    @property
    def settings(self) -> Settings:
        return self.runtime.settings

    # -- starting ----------------------------------------------------------------

    def start_execution(
        self,
        function: str,
        payload: Any = None,
        *,
        name: str | None = None,
        raw_payload: str | None = None,
    ) -> str:
        """Start a durable execution of ``function``; its ARN (the same name again: the same)."""
        fn = get_function(function)
        name = name or uuid.uuid4().hex
        exec_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{fn.name}/{name}"))
        arn = execution_arn(fn.name, name, exec_id)
        text = raw_payload if raw_payload is not None else json.dumps(payload)
        record = h.new_record(arn, fn.name, name, text, now_ms())
        self.store.insert(record, exec_id)
        self._launch(exec_id, arn)
        return arn

    def _start_chained(self, parent: dict[str, Any], conn: Any, op_id: str) -> None:
        op = parent["ops"][op_id]
        info = op["_invoke"]
        parent_id = parent["arn"].rsplit("/", 1)[-1]
        name = f"{parent_id}-{op_id[:16]}"
        try:
            fn = get_function(info["function"])
        except Exception as exc:  # unknown target: the invoke fails, as on Lambda
            h.invoke_started(parent, op_id, "", now_ms())
            err = {"ErrorType": "ResourceNotFoundException", "ErrorMessage": str(exc)}
            h.invoke_finished(parent, op_id, "FAILED", now_ms(), error=err)
            return
        exec_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{fn.name}/{name}"))
        arn = execution_arn(fn.name, name, exec_id)
        payload = info.get("payload")
        record = h.new_record(arn, fn.name, name, payload if payload is not None else "", now_ms())
        record["parent"] = {"arn": parent["arn"], "op": op_id}
        self.store.insert(record, exec_id, conn)
        h.invoke_started(parent, op_id, arn, now_ms())
        parent.setdefault("children", []).append([exec_id, arn])

    def _launch(self, run_id: str, arn: str) -> None:
        from cfnops.durable._engine import Engine

        # The running engine as it is (its runtime may be newer than this backend's);
        # none yet: launched on this backend's runtime.
        engine = Engine.current() or Engine.start_process(self.runtime)
        # A fresh thread: never inside the caller's DBOS workflow (a chained execution is
        # a run of its own, not a child step of its parent's run).
        thread = threading.Thread(
            target=engine.start, args=(LAMBDA_WORKFLOW, {"arn": arn}), kwargs={"run_id": run_id}
        )
        thread.start()
        thread.join()

    # -- reading -------------------------------------------------------------------

    def record(self, arn: str) -> dict[str, Any]:
        found = self.store.get(arn)
        if found is None:
            raise UnknownExecution(arn)
        return found

    def wait(self, arn: str, timeout: float = 60.0) -> dict[str, Any]:
        """Block until the execution has ended (or ``timeout``); its record."""
        deadline = time.monotonic() + timeout
        while True:
            record = self.record(arn)
            if record["status"] != "RUNNING" or time.monotonic() > deadline:
                return record
            with self._news:
                self._news.wait(0.05)

    # -- control -------------------------------------------------------------------

    def stop(self, arn: str, error: dict[str, Any] | None = None) -> int:
        now = now_ms()
        with self.store.update(arn) as found:
            if found is None:
                raise UnknownExecution(arn)
            record, _ = found
            h.finish(record, "STOPPED", now, error=error or {"ErrorType": "Stopped"})
        self._notify()
        return now

    def send_callback(
        self,
        callback: str,
        outcome: str,
        *,
        result: str | None = None,
        error: dict[str, Any] | None = None,
    ) -> None:
        """Answer a callback: ``success`` (with ``result``), ``failure`` or ``heartbeat``."""
        where = h.parse_callback_id(callback)
        if where is None:
            raise UnknownExecution(f"with callback id {callback!r}")
        arn, op_id = where
        with self.store.update(arn) as found:
            if found is None:
                raise UnknownExecution(f"with callback id {callback!r}")
            answer = h.complete_callback(
                found[0], op_id, outcome, now_ms(), result=result, error=error
            )
        if answer == "unknown":
            raise UnknownExecution(f"with callback id {callback!r}")
        if answer == "closed":
            raise CallbackClosed(callback)
        self._notify()

    def _notify(self) -> None:
        with self._news:
            self._news.notify_all()

    # -- the driver ----------------------------------------------------------------

    def drive(self, arn: str) -> dict[str, Any]:
        """Run the execution to its end (the body of its DBOS workflow)."""
        fn = get_function(self.record(arn)["function"])
        # A driver that starts (or restarts after a crash: an invocation may have died
        # half-way) begins with an invocation, as Lambda re-invokes a crashed one.
        with self.store.update(arn) as found:
            if found is not None and found[0]["status"] == "RUNNING":
                found[0]["wake"] = True
        self._resume_children(arn)
        crashes = 0
        while True:
            begun = self._begin_invocation(arn)
            if begun is None:
                record = self.record(arn)
                if record["status"] != "RUNNING":
                    self._report_to_parent(record)
                    return {"status": record["status"]}
                self._idle(record)
                continue
            crashed = self._invoke(fn, arn, begun)
            crashes = crashes + 1 if crashed else 0
            if crashed and crashes >= MAX_INVOCATION_ATTEMPTS:
                with self.store.update(arn) as found:
                    if found is not None:
                        h.finish(found[0], "FAILED", now_ms(), error=crashed)
            self._resume_children(arn)
            self._notify()

    @contextmanager
    def _running(self, arn: str) -> Iterator[dict[str, Any] | None]:
        """The execution's record under the store's lock; None once the execution ended."""
        with self.store.update(arn) as found:
            if found is None:
                raise UnknownExecution(arn)
            record, _ = found
            yield record if record["status"] == "RUNNING" else None

    def _begin_invocation(self, arn: str) -> dict[str, Any] | None:
        with self._running(arn) as record:
            if record is None:
                return None
            h.fire_timers(record, now_ms())
            if not record["wake"]:
                return None
            record["wake"] = False
            updated, record["updated"], record["news"] = record["updated"], [], []
            record["invocations"] += 1
            record["token"] += 1
            return {
                "ops": h.public_operations(record),
                "updated": updated,
                "token": f"{record['arn'].rsplit('/', 1)[-1]}.{record['token']}",
                "input": record["input"],
                "function": record["function"],
            }

    def _idle(self, record: dict[str, Any]) -> None:
        due = h.next_timer(record)
        pause = POLL_SECONDS
        if due is not None:
            pause = min(pause, max(0.0, (due - now_ms()) / 1000))
        with self._news:
            self._news.wait(pause)

    def _invoke(self, fn: LambdaFunction, arn: str, begun: dict[str, Any]) -> dict[str, Any] | None:
        """One invocation; returns the error when it crashed (to be invoked again)."""
        from aws_durable_execution_sdk_python.execution import (
            DurableExecutionInvocationInputWithClient,
            InitialExecutionState,
        )

        ctx = LocalLambdaContext(fn.name, function_arn(fn.name))
        start = now_ms()
        crash: dict[str, Any] | None = None
        output: dict[str, Any] = {}
        try:
            if fn.durable:
                event = DurableExecutionInvocationInputWithClient(
                    durable_execution_arn=arn,
                    checkpoint_token=begun["token"],
                    initial_execution_state=InitialExecutionState(
                        operations=to_operations(begun["ops"]), next_marker=""
                    ),
                    updated_operation_ids=begun["updated"],
                    service_client=self.client,
                )
                output = dict(fn.handler(event, ctx))
            else:
                text = begun["input"]
                value = fn.handler(json.loads(text) if text else None, ctx)
                output = {"Status": "SUCCEEDED", "Result": json.dumps(value)}
        except BaseException as exc:  # a crashed invocation (the SDK lets only these out)
            if isinstance(exc, KeyboardInterrupt):
                raise
            crash = _crash_error(exc)
            if not fn.durable:
                output = {"Status": "FAILED", "Error": crash}
                crash = None
        with self._running(arn) as record:
            if record is None:
                return None
            h.invocation_completed(record, start, now_ms(), ctx.aws_request_id, crash)
            status = output.get("Status")
            if crash is not None:
                record["wake"] = True
            elif status == "SUCCEEDED":
                h.finish(record, "SUCCEEDED", now_ms(), result=output.get("Result"))
            elif status == "FAILED":
                h.finish(record, "FAILED", now_ms(), error=output.get("Error") or {})
        return crash

    def _resume_children(self, arn: str) -> None:
        """Make sure every chained execution this one started has its run (after a crash)."""
        record = self.record(arn)
        for exec_id, child_arn in record.get("children", []):
            child = self.store.get(child_arn)
            if child is not None and child["status"] == "RUNNING":
                self._launch(exec_id, child_arn)
            elif child is not None:
                self._report_to_parent(child)

    def _report_to_parent(self, record: dict[str, Any]) -> None:
        parent = record.get("parent")
        if not parent:
            return
        status = record["status"]
        with self.store.update(parent["arn"]) as found:
            if found is None:
                return
            h.invoke_finished(
                found[0],
                parent["op"],
                status,
                now_ms(),
                result=record.get("result"),
                error=record.get("error"),
            )
        self._notify()


def _crash_error(exc: BaseException) -> dict[str, Any]:
    """How Lambda reports an invocation that ended without an answer."""
    if isinstance(exc, SystemExit):  # the handler exited the runtime (process.exit)
        return {
            "ErrorType": "Runtime.ExitError",
            "ErrorMessage": f"RequestId: Error: Runtime exited with error: exit status {exc.code}",
        }
    return {"ErrorType": type(exc).__name__, "ErrorMessage": str(exc)}


def _run_execution(event: Any, context: Any) -> Any:
    """The DBOS workflow body of one durable execution."""
    from cfnops.durable._engine import Engine

    engine = Engine.current()
    if engine is None:  # pragma: no cover - DBOS runs workflows only in a launched engine
        raise RuntimeError("cfnops.lambda needs a launched cfnops.durable.Engine")
    return engine.local_lambda().drive(str(event["arn"]))


register_workflow(LAMBDA_WORKFLOW, _run_execution, context=False)

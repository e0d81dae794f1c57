"""The task integrations: a :class:`cfnops.asl.TaskInvoker` for job-nets.

Resources (see "Integrating services with Step Functions",
https://docs.aws.amazon.com/step-functions/latest/dg/integrate-services.html):

- ``arn:aws:states:::aws-sdk:<service>:<apiAction>`` — any API through boto3;
- ``arn:aws:states:::lambda:invoke`` and ``arn:aws:lambda:…:function:NAME`` — a local
  Python callable registered with :func:`register_function`, else AWS Lambda;
- ``arn:aws:states:::sns:publish``; ``arn:aws:states:::http:invoke``;
- ``arn:aws:states:::states:startExecution`` (``.sync``, ``.sync:2``): child job-nets run
  on the cfnops engine (the definition comes from :func:`register_state_machine` or from
  Step Functions' DescribeStateMachine);
- any of them with ``.waitForTaskToken``: the call is made, then the task waits for
  ``cfnops job send-task-success|send-task-failure TOKEN``.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Mapping
from typing import Any

from cfnops.asl import TaskContext
from cfnops.asl.errors import TaskFailure
from cfnops.aws import AwsClients
from cfnops.config import Settings
from cfnops.errors import is_host_fault
from cfnops.http import HttpTransport
from cfnops.jobs._functions import LocalFunction, call_local, functions
from cfnops.jobs._http import SLACK_ALIAS, UrllibTransport, call_http
from cfnops.jobs._runner import JobResult
from cfnops.jobs._store import JobStore

__all__ = ["JobInvoker", "register_function", "register_state_machine"]

_machines: dict[str, Mapping[str, Any]] = {}
_lock = threading.Lock()
_SERVICE = "arn:aws:states:::"

ChildRunner = Callable[[str, str, Mapping[str, Any], Any, bool], JobResult]


def register_function(name: str, fn: LocalFunction) -> None:
    """Make ``fn(payload, context)`` answer Lambda tasks for function ``name`` (offline runs)."""
    functions.register(name, fn)


def register_state_machine(name: str, definition: Mapping[str, Any]) -> None:
    """Make ``startExecution`` tasks for a state machine named ``name`` run ``definition``."""
    with _lock:
        _machines[name] = definition


def call_aws_sdk(clients: AwsClients, service: str, action: str, payload: Any) -> Any:
    """:func:`cfnops.jobs._aws_sdk.call_aws_sdk`, loaded (with botocore) by the first AWS task."""
    from cfnops.jobs._aws_sdk import call_aws_sdk as call

    return call(clients, service, action, payload)


class JobInvoker:
    """Dispatches a Task's resource to its integration."""

    def __init__(
        self,
        settings: Settings,
        clients: AwsClients,
        store: JobStore,
        run_child: ChildRunner,
        parent_run_id: str,
        *,
        account: str,
        http: HttpTransport | None = None,
    ) -> None:
        self.account = account
        # http:invoke tasks: the runtime's transport, else plain HTTPS
        self.http = http if http is not None else UrllibTransport()
        self.settings = settings
        self.clients = clients
        self.store = store
        self.run_child = run_child
        self.parent_run_id = parent_run_id

    def invoke(
        self, resource: str, payload: Any, *, timeout: float | None, context: TaskContext
    ) -> Any:
        try:
            if resource.endswith(".waitForTaskToken"):
                return self._with_token(
                    resource.removesuffix(".waitForTaskToken"), payload, context
                )
            return self._call(resource, payload, context)
        except TaskFailure:
            raise
        except Exception as exc:  # an integration bug or an unexpected answer
            if is_host_fault(exc):  # the run's database failed, not the Task
                raise
            raise TaskFailure("States.TaskFailed", f"{type(exc).__name__}: {exc}") from exc

    # -- dispatch ------------------------------------------------------------------------
    def _call(self, resource: str, payload: Any, context: TaskContext) -> Any:
        if resource.startswith("arn:") and ":lambda:" in resource and ":function:" in resource:
            return self._legacy_lambda(resource, payload, context)
        if not resource.startswith(_SERVICE):
            raise TaskFailure("States.Runtime", f"Unsupported resource: {resource}")
        rest = resource[len(_SERVICE) :]
        if rest.startswith("aws-sdk:"):
            _, service, action = rest.split(":", 2)
            return call_aws_sdk(self.clients, service, action, payload)
        if rest == "lambda:invoke":
            return self._lambda_invoke(payload, context)
        if rest == "sns:publish":
            return self._sns_publish(payload)
        if rest == "http:invoke":
            return call_http(payload, self._alias, self.http)
        if rest.startswith("states:startExecution"):
            return self._start_execution(
                rest.removeprefix("states:startExecution"), payload, context
            )
        raise TaskFailure("States.Runtime", f"Unsupported resource: {resource}")

    # -- lambda --------------------------------------------------------------------------
    def _legacy_lambda(self, resource: str, payload: Any, context: TaskContext) -> Any:
        local = functions.lookup(resource)
        if local is not None:
            return call_local(local, payload, context, compact=False)
        out = self._lambda_invoke({"FunctionName": resource, "Payload": payload}, context)
        return out["Payload"]

    def _lambda_invoke(self, payload: Any, context: TaskContext) -> Any:
        if not isinstance(payload, Mapping) or "FunctionName" not in payload:
            raise TaskFailure("States.Runtime", "lambda:invoke needs FunctionName")
        local = functions.lookup(str(payload["FunctionName"]))
        if local is not None:
            body: Any = call_local(local, payload.get("Payload"), context, compact=True)
            response: dict[str, Any] = {"StatusCode": 200}
        else:
            params = {
                "FunctionName": payload["FunctionName"],
                "Payload": json.dumps(payload.get("Payload")).encode(),
            }
            for key in ("Qualifier", "InvocationType", "ClientContext", "LogType"):
                if key in payload:
                    params[key] = payload[key]
            response = call_aws_sdk(self.clients, "lambda", "invoke", params)
            raw = response.get("Payload") or ""
            body = json.loads(raw) if raw else None
            if response.get("FunctionError"):
                error = body.get("errorType", "Error") if isinstance(body, dict) else "Error"
                raise TaskFailure(str(error), raw)
        # https://docs.aws.amazon.com/step-functions/latest/dg/connect-lambda.html
        return {
            "ExecutedVersion": response.get("ExecutedVersion", "$LATEST"),
            "Payload": body,
            "StatusCode": response.get("StatusCode", 200),
            "SdkHttpMetadata": {"HttpStatusCode": response.get("StatusCode", 200)},
            "SdkResponseMetadata": {},
        }

    # -- sns -----------------------------------------------------------------------------
    def _sns_publish(self, payload: Any) -> Any:
        if not isinstance(payload, Mapping) or "Message" not in payload:
            raise TaskFailure("States.Runtime", "sns:publish needs Message")
        params = dict(payload)
        if not isinstance(params["Message"], str):
            params["Message"] = json.dumps(params["Message"], ensure_ascii=False)
        result = call_aws_sdk(self.clients, "sns", "publish", params)
        return {**result, "SdkHttpMetadata": {"HttpStatusCode": 200}, "SdkResponseMetadata": {}}

    # -- http ----------------------------------------------------------------------------
    def _alias(self, endpoint: str) -> str:
        if endpoint != SLACK_ALIAS:
            raise TaskFailure("States.Runtime", f"Unknown endpoint alias {endpoint}")
        notify = self.settings.notify
        if notify.slack_webhook_url is not None:
            return notify.slack_webhook_url.get_secret_value()
        ref = notify.slack_webhook_ref
        if ref and ref.startswith("secretsmanager:"):
            got = call_aws_sdk(
                self.clients,
                "secretsmanager",
                "getSecretValue",
                {"SecretId": ref.removeprefix("secretsmanager:")},
            )
            return str(got["SecretString"]).strip()
        if ref and ref.startswith("ssm:"):
            got = call_aws_sdk(
                self.clients,
                "ssm",
                "getParameter",
                {"Name": ref.removeprefix("ssm:"), "WithDecryption": True},
            )
            return str(got["Parameter"]["Value"]).strip()
        raise TaskFailure("States.Runtime", "No Slack webhook configured (notify settings)")

    # -- child job-nets ------------------------------------------------------------------
    def _start_execution(self, pattern: str, payload: Any, context: TaskContext) -> Any:
        if not isinstance(payload, Mapping) or "StateMachineArn" not in payload:
            raise TaskFailure("States.Runtime", "startExecution needs StateMachineArn")
        arn = str(payload["StateMachineArn"])
        name = arn.rsplit(":", 1)[-1]
        with _lock:
            definition = _machines.get(name)
        if definition is None:
            # Step Functions' own API names its members in camelCase (stateMachineArn).
            described = call_aws_sdk(
                self.clients, "sfn", "describeStateMachine", {"stateMachineArn": arn}
            )
            definition = json.loads(described["definition"])
        value = payload.get("Input", {})
        if isinstance(value, str):
            value = json.loads(value)
        digest = hashlib.sha256(f"{context.task_token}".encode()).hexdigest()[:10]
        child_id = str(payload.get("Name") or f"{self.parent_run_id}-{name}-{digest}")
        wait = pattern in (".sync", ".sync:2")
        result = self.run_child(child_id, name, definition, value, wait)
        exec_arn = f"arn:aws:states:{context.region}:{self.account}:execution:{name}:{child_id}"
        if not wait:
            return {"ExecutionArn": exec_arn, "StartDate": None}
        described_child = {
            "ExecutionArn": exec_arn,
            "Input": json.dumps(value),
            "Name": child_id,
            "StateMachineArn": arn,
            "Status": result.status,
            "Output": result.output if pattern == ".sync:2" else json.dumps(result.output),
        }
        if result.status != "SUCCEEDED":
            described_child.update(Error=result.error, Cause=result.cause)
            raise TaskFailure("States.TaskFailed", json.dumps(described_child))
        return described_child

    # -- callbacks -----------------------------------------------------------------------
    def _with_token(self, resource: str, payload: Any, context: TaskContext) -> Any:
        token = context.task_token
        if token is None:
            raise TaskFailure("States.Runtime", "No task token for this task")
        found = self.store.get_callback(token)
        if found is None:
            self.store.open_callback(token, self.parent_run_id)
        elif context.attempt > 0 and found.status != "WAITING":
            self.store.rearm_callback(token)
        self._call(resource, payload, context)
        while True:
            row = self.store.get_callback(token)
            if row is not None and row.status == "SUCCEEDED":
                return row.output
            if row is not None and row.status == "FAILED":
                raise TaskFailure(row.error, row.cause)
            if context.cancel.wait(0.2):
                raise TaskFailure("States.Aborted", "the task was abandoned")


def local_function_names() -> frozenset[str]:
    """Names of the local callables registered with :func:`register_function`."""
    return functions.names()

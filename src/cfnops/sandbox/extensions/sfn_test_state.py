"""Step Functions TestState: one state tested on cfnops's ASL interpreter.

moto has no TestState. Here ``stepfunctions:TestState`` answers as the API reference
documents it (https://docs.aws.amazon.com/step-functions/latest/apireference/API_TestState.html):
``definition`` (a state, or a state machine with ``stateName``), ``input``, ``variables``,
``mock`` (``result`` or ``errorOutput``), ``stateConfiguration``, ``inspectionLevel``; the
answer carries ``output``, ``error``, ``cause``, ``inspectionData``, ``nextState`` and
``status``. A request TestState refuses answers the API's error (``InvalidDefinition``,
``ValidationException``, ``InvalidExecutionInput``) with HTTP 400. The sandbox calls no
service for a Task but an HTTP Task (``arn:aws:states:::http:invoke``) given without a mock:
that one is sent, its ``Authentication.ConnectionArn`` read from the sandbox's EventBridge
connections, and TRACE shows the exchange (``revealSecrets``: with the connection's
additions). Any other Task needs its answer in ``mock`` (see :mod:`cfnops.asl._teststate`
and docs/jobs.md, "TestState on the sandbox").

botocore sends TestState to the ``sync-`` host prefix; a client aimed at the sandbox by
``endpoint_url`` needs ``Config(inject_host_prefix=False)`` (cfnops's own clients set it
whenever an endpoint URL is configured).
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from typing import Any

from cfnops.asl.errors import TaskFailure
from cfnops.http import HttpRequest, HttpResponse
from cfnops.sandbox.extensions._patching import replace
from cfnops.sandbox.extensions._sfn_mock_check import mock_problem

__all__ = ["install"]

_lock = threading.Lock()
_installed = False


class _UrllibTransport:
    """An HTTP Task's request through the standard library (30 s, no retries)."""

    def send(self, request: HttpRequest) -> HttpResponse:
        req = urllib.request.Request(
            request.url, data=request.body, headers=dict(request.headers), method=request.method
        )
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return HttpResponse(resp.status, dict(resp.headers), resp.read().decode())
        except urllib.error.HTTPError as exc:
            return HttpResponse(exc.code, dict(exc.headers), exc.read().decode(errors="replace"))
        except (urllib.error.URLError, TimeoutError) as exc:
            raise TaskFailure("States.Http.Socket", f"{type(exc).__name__}: {exc}") from None


def _connection(arn: str) -> dict[str, Any] | None:
    """CreateConnection's AuthParameters of the sandbox's EventBridge connection ``arn``."""
    from moto.events.models import events_backends

    parts = arn.split(":", 5)
    if len(parts) < 6 or not parts[5].startswith("connection/"):
        return None
    name = parts[5].split("/")[1]
    try:
        found = events_backends[parts[4]][parts[3]].connections.get(name)
    except KeyError:
        return None
    return dict(found.auth_parameters) if found is not None else None


def _test_state(self: Any) -> Any:
    from cfnops.asl import TestStateError, test_state

    try:
        request = json.loads(self.body or "{}")
        if not isinstance(request, dict) or not isinstance(request.get("definition"), str):
            raise TestStateError("ValidationException", "definition is required")
        # checks the request (definition, input) first
        answer = test_state(request, http=_UrllibTransport(), connections=_connection)
        problem = mock_problem(request)
        if problem is not None:
            raise TestStateError("ValidationException", problem)
        return json.dumps(answer)
    except TestStateError as exc:
        body = json.dumps({"__type": exc.code, "message": exc.message})
        return 400, {"status": 400, "Content-Type": "application/x-amz-json-1.0"}, body
    except ValueError as exc:
        body = json.dumps({"__type": "ValidationException", "message": f"not JSON: {exc}"})
        return 400, {"status": 400, "Content-Type": "application/x-amz-json-1.0"}, body


def install() -> None:
    """Add TestState to moto's Step Functions responses (once per process)."""
    global _installed
    from moto.stepfunctions.responses import StepFunctionResponse

    with _lock:
        if _installed:
            return
        replace(StepFunctionResponse, "test_state", _test_state)
        _installed = True

"""Step Functions TestState: one state tested on cfnops's ASL interpreter.

moto has no TestState. Here ``stepfunctions:TestState`` answers as the API reference
documents it (https://docs.aws.amazon.com/step-functions/latest/apireference/API_TestState.html):
``definition`` (a state, or a state machine with ``stateName``), ``input``, ``variables``,
``mock`` (``result`` or ``errorOutput``), ``stateConfiguration``, ``inspectionLevel``; the
answer carries ``output``, ``error``, ``cause``, ``inspectionData``, ``nextState`` and
``status``. A request TestState refuses answers the API's error (``InvalidDefinition``,
``ValidationException``, ``InvalidExecutionInput``) with HTTP 400. The sandbox calls no
service for a Task: give its answer in ``mock`` (see :mod:`cfnops.asl._teststate` and
docs/jobs.md, "TestState on the sandbox").

botocore sends TestState to the ``sync-`` host prefix; a client aimed at the sandbox by
``endpoint_url`` needs ``Config(inject_host_prefix=False)`` (cfnops's own clients set it
whenever an endpoint URL is configured).
"""

from __future__ import annotations

import json
import threading
from typing import Any

from cfnops.sandbox.extensions._patching import replace
from cfnops.sandbox.extensions._sfn_mock_check import mock_problem

__all__ = ["install"]

_lock = threading.Lock()
_installed = False


def _test_state(self: Any) -> Any:
    from cfnops.asl import TestStateError, test_state

    try:
        request = json.loads(self.body or "{}")
        if not isinstance(request, dict) or not isinstance(request.get("definition"), str):
            raise TestStateError("ValidationException", "definition is required")
        answer = test_state(request)  # checks the request (definition, input) first
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

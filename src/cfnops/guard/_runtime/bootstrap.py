"""Run one Lambda invocation of a Python handler, as ``cfnops guard --exercise`` does.

Started in a fresh child process per event (a new execution environment, as
after a code update or a cold start). ``CFNOPS_EXERCISE`` (JSON) names the code
root, the module, the handler, the event file and the result file. The Lambda
context object follows the Python runtime's documented attributes (AWS docs,
"Using the Lambda context object to retrieve Python function information":
https://docs.aws.amazon.com/lambda/latest/dg/python-context.html).
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import time
import traceback
from typing import Any


class LambdaContext:
    def __init__(self, spec: dict[str, Any]) -> None:
        self.function_name: str = spec["function"]
        self.function_version = "$LATEST"
        self.invoked_function_arn: str = spec["function_arn"]
        self.memory_limit_in_mb: int = spec["memory"]
        self.aws_request_id: str = spec["request_id"]
        self.log_group_name: str = f"/aws/lambda/{self.function_name}"
        self.log_stream_name: str = spec["log_stream"]
        self._deadline = time.monotonic() + float(spec["timeout"])

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)
    return value


def _failure(exc: BaseException) -> dict[str, Any]:
    frames = traceback.extract_tb(exc.__traceback__)
    where = f"{frames[-1].filename}:{frames[-1].lineno}" if frames else ""
    missing = exc.name if isinstance(exc, ModuleNotFoundError) else None
    return {
        "ok": False,
        "error": f"{type(exc).__name__}: {exc}",
        "where": where,
        "missing": missing,
    }


def main() -> None:
    spec = json.loads(os.environ["CFNOPS_EXERCISE"])
    with open(spec["event"], encoding="utf-8") as handle:
        event = json.load(handle)
    sys.path[:0] = [spec["root"], spec["shims"]]
    try:
        module = importlib.import_module(spec["module"])
        handler = getattr(module, spec["entry"])
        result: dict[str, Any] = {
            "ok": True,
            "returned": _jsonable(handler(event, LambdaContext(spec))),
        }
    except BaseException as exc:  # the handler's failure is the result, whatever it is
        result = _failure(exc)
    with open(spec["result"], "w", encoding="utf-8") as handle:
        json.dump(result, handle)


if __name__ == "__main__":
    main()

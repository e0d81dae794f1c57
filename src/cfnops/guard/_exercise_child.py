"""Run a handler once per event in a child process, the way Lambda would call it.

moto's Lambda (the sandbox's) runs function code in Docker containers of the Lambda
runtime images; ``--exercise`` does not need Docker: each invocation is a fresh
``python3`` or ``node`` process on this machine (a new execution environment, as
after a code update or a cold start) started with a small bootstrap
(``_runtime/bootstrap.py``, ``_runtime/bootstrap.js``), the ``cfnresponse`` /
``cfn-response`` module Lambda gives inline code, and an environment that sends
every AWS SDK call to the exercise listener (``AWS_ENDPOINT_URL``), with throw-away
credentials and no access to the user's AWS configuration.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cfnops.guard._exercise_http import AwsCall, Listener
from cfnops.guard._py_parse import python2_to_3

_RUNTIME = Path(__file__).resolve().parent / "_runtime"
_MAX_FILES = 2000  # a code folder larger than this is not copied for a Python 2 translation


@dataclass(frozen=True)
class Handler:
    """Where a handler's code is and how Lambda would call it."""

    function: str  # the function's logical id
    language: str  # "python" | "nodejs"
    runtime: str
    root: Path  # the folder Lambda would unpack the code into
    module: str  # "index", "pkg/module"
    entry: str  # the exported function's name
    environment: dict[str, str]
    timeout: float


@dataclass(frozen=True)
class Invocation:
    """What one event did: the response it PUT, its AWS calls, and how it ended."""

    answer: dict[str, Any] | None
    answers: int
    returned: Any
    error: str
    missing: str  # a module the handler imports that is not installed here
    timed_out: bool
    calls: tuple[AwsCall, ...]


def interpreter(handler: Handler) -> tuple[list[str] | None, str]:
    """The command that runs the bootstrap (None and why when there is none here)."""
    if handler.language == "nodejs":
        node = shutil.which("node")
        if node is None:
            return None, f"runtime {handler.runtime}: no `node` on PATH to run Node.js handlers"
        return [node, str(_RUNTIME / "bootstrap.js")], ""
    return [sys.executable, str(_RUNTIME / "bootstrap.py")], ""


def python2_copy(handler: Handler, into: Path) -> tuple[Handler, str]:
    """A copy of a Python 2 handler's code translated by 2to3 (no Python 2 runs here)."""
    target = into / "code"
    files = [p for p in handler.root.rglob("*") if p.is_file()]
    if len(files) > _MAX_FILES:
        return handler, f"the code folder has more than {_MAX_FILES} files to translate"
    shutil.copytree(handler.root, target, symlinks=False)
    for path in target.rglob("*.py"):
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            compile(text, str(path), "exec", dont_inherit=True)
        except SyntaxError:
            translated = python2_to_3(text)
            if translated is not None:
                path.write_text(translated, encoding="utf-8")
    return Handler(
        handler.function,
        handler.language,
        handler.runtime,
        target,
        handler.module,
        handler.entry,
        handler.environment,
        handler.timeout,
    ), ""


def _environment(handler: Handler, listener: Listener, region: str) -> dict[str, str]:
    env = {key: os.environ[key] for key in ("PATH", "LANG", "SYSTEMROOT") if key in os.environ}
    env.update(handler.environment)
    env.update(
        {
            "AWS_ENDPOINT_URL": listener.url,
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_SESSION_TOKEN": "testing",
            "AWS_REGION": region,
            "AWS_DEFAULT_REGION": region,
            "AWS_CONFIG_FILE": os.devnull,
            "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
            "AWS_EC2_METADATA_DISABLED": "true",
            "AWS_MAX_ATTEMPTS": "2",
            "AWS_LAMBDA_FUNCTION_NAME": handler.function,
            "AWS_EXECUTION_ENV": f"AWS_Lambda_{handler.runtime}",
            "LAMBDA_TASK_ROOT": str(handler.root),
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONUNBUFFERED": "1",
        }
    )
    node_path = [str(_RUNTIME / "node_path"), str(handler.root / "node_modules")]
    if os.environ.get("NODE_PATH"):  # modules the user installed for the handlers
        node_path.append(os.environ["NODE_PATH"])
    env["NODE_PATH"] = os.pathsep.join(node_path)
    return env


def invoke(
    handler: Handler,
    command: list[str],
    event: dict[str, Any],
    listener: Listener,
    *,
    region: str,
    failing: bool = False,
) -> Invocation:
    """Run the handler once with ``event`` (its ``ResponseURL`` points at the listener)."""
    token = uuid.uuid4().hex
    event = {**event, "ResponseURL": f"{listener.url}/response/{token}"}
    with tempfile.TemporaryDirectory(prefix="cfnops-exercise-") as work:
        event_file, result_file = Path(work) / "event.json", Path(work) / "result.json"
        event_file.write_text(json.dumps(event), encoding="utf-8")
        spec = {
            "root": str(handler.root),
            "shims": str(_RUNTIME),
            "module": handler.module.replace("/", "."),
            "file": str(_module_file(handler)),
            "entry": handler.entry,
            "event": str(event_file),
            "result": str(result_file),
            "function": handler.function,
            "function_arn": f"arn:aws:lambda:{region}:123456789012:function:{handler.function}",
            "memory": 128,
            "request_id": str(uuid.uuid4()),
            # a new execution environment has a new log stream (Lambda's naming shape)
            "log_stream": f"2026/01/01/[$LATEST]{uuid.uuid4().hex}",
            "timeout": handler.timeout,
        }
        env = _environment(handler, listener, region)
        env["CFNOPS_EXERCISE"] = json.dumps(spec)
        listener.failing, listener.current = failing, token
        timed_out = False
        try:
            subprocess.run(
                command,
                env=env,
                cwd=handler.root,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=handler.timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            listener.failing, listener.current = False, ""
        result = _read_result(result_file)
    answers = listener.answers.get(token, [])
    return Invocation(
        answer=answers[0] if answers else None,
        answers=len(answers),
        returned=result.get("returned"),
        error=str(result.get("error") or ""),
        missing=str(result.get("missing") or ""),
        timed_out=timed_out,
        calls=tuple(listener.calls.get(token, [])),
    )


def _read_result(path: Path) -> dict[str, Any]:
    try:
        result = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"ok": False, "error": "the handler's process ended without a result"}
    return result if isinstance(result, dict) else {}


def _module_file(handler: Handler) -> Path:
    if handler.language != "nodejs":
        return handler.root / f"{handler.module}.py"
    for suffix in (".js", ".mjs", ".cjs"):
        candidate = handler.root / f"{handler.module}{suffix}"
        if candidate.is_file():
            return candidate
    return handler.root / f"{handler.module}.js"

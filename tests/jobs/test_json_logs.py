"""``--log-format json`` on a failing ``job run`` process: every stderr line is a JSON
object naming the run (progress lines, a handler's own log line, the failure)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from tests._subprocess import cfnops, worker_env

pytestmark = pytest.mark.slow

FUNCTIONS = """
import logging

from cfnops.jobs import register_function


def _resize(payload, ctx):
    logging.getLogger("jsonlogs.handler").warning("resizing %s", payload["db"])
    raise RuntimeError("disk full")


register_function("jsonlogs-resize", _resize)
"""

DEFINITION = {
    "StartAt": "Resize",
    "States": {
        "Resize": {
            "Type": "Task",
            "Resource": "arn:aws:lambda:us-east-1:123456789012:function:jsonlogs-resize",
            "Catch": [{"ErrorEquals": ["States.ALL"], "Next": "Give up"}],
            "End": True,
        },
        "Give up": {"Type": "Fail", "Error": "Resize.Failed", "Cause": "the disk is full"},
    },
}


def _records(err: str) -> list[dict[str, object]]:
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines, "nothing on stderr"
    records = []
    for line in lines:
        record = json.loads(line)  # every line, or this raises naming it
        assert isinstance(record, dict), line
        records.append(record)
    return records


@pytest.mark.parametrize("output", ["text", "json"])
def test_failing_job_run_writes_only_json_lines_with_the_run_id(
    tmp_path: Path, output: str
) -> None:
    (tmp_path / "jsonlogs_functions.py").write_text(FUNCTIONS)
    definition = tmp_path / "resize.asl.json"
    definition.write_text(json.dumps(DEFINITION))
    env = worker_env(tmp_path / "db.sqlite", path=[tmp_path])
    env.pop("CFNOPS_LOG_FORMAT", None)
    proc = cfnops(
        env, "--log-format", "json", "-o", output, "job", "run", str(definition),
        "--name", "resize-1", "--input", '{"db": "orders"}', "--import", "jsonlogs_functions",
    )  # fmt: skip
    out, err = proc.communicate(timeout=120)
    done = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    assert done.returncode == 1, err
    records = _records(err)
    assert {r.get("run_id") for r in records} == {"resize-1"}, err
    progress = [r for r in records if r["logger"] == "cfnops.progress"]
    assert ("Resize", "CAUGHT") in [(r.get("state"), r["phase"]) for r in progress], err
    assert ("Give up", "FAILED") in [(r.get("state"), r["phase"]) for r in progress], err
    assert progress[-1]["phase"] == "FAILED" and "state" not in progress[-1]
    handler = [r for r in records if r["logger"] == "jsonlogs.handler"]
    assert [(h["message"], h["state"], h["level"]) for h in handler] == [
        ("resizing orders", "Resize", "WARNING")
    ], err
    if output == "json":
        assert json.loads(out)["error"] == "Resize.Failed"
    else:
        assert "resize-1" in out and "FAILED" in out

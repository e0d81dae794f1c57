"""Run the web-system stop job-net on an in-process sandbox: ``python _jobnet_run.py DB RUN_ID``.

A subprocess of the browser tests (DBOS is one per process): it builds the web
system, starts the run under RUN_ID in the shared database, prints the system's
JSON on one line, and waits for the run to end.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from cfnops.config import load_settings
from cfnops.demo.websystem import build_web_system
from cfnops.durable import Engine
from cfnops.jobs import CapturingTransport, JobService
from cfnops.jobs._definition import load_definition
from cfnops.runtime import Runtime
from cfnops.sandbox import Sandbox
from cfnops.sandbox.extensions import ssm_commands

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "jobnets"


def main(db: str, run_id: str, delay: float) -> int:
    with Sandbox(delays=delay) as sandbox:
        settings = load_settings(
            database_url=f"sqlite:///{db}",
            aws={"endpoint_url": sandbox.endpoint_url, "region": sandbox.region},
        )
        # the Slack report is captured, never sent
        runtime = Runtime.from_settings(settings, aws=sandbox.clients, http=CapturingTransport())
        engine = Engine.start_process(runtime)
        try:
            jobs = JobService(engine.runtime)
            value = build_web_system(
                jobs.clients, wait_seconds=1, slack_endpoint="https://hooks.slack.test/x"
            )
            ssm_commands.set_outcome(
                command=r"systemctl is-active httpd", exit_code=3, stdout="inactive"
            )
            definition = load_definition(EXAMPLES / "webapp-stop.asl.json")
            print(json.dumps(value), flush=True)
            jobs.start(definition, value, machine_name="webapp-stop", name=run_id)
            result = jobs.wait(run_id, timeout=300)
            print(result.status, flush=True)
        finally:
            engine.shutdown(grace_seconds=1)
    return 0 if result.status == "SUCCEEDED" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], float(sys.argv[3]) if len(sys.argv) > 3 else 0.3))

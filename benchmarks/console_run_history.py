"""A durable run's execution history in the console: answer times and page weights.

1. A Lambda durable execution of ``--steps`` steps (two events each, ~2,000 events by
   default) runs on the local backend in a subprocess (DBOS is one per process).
2. ``cfnops console`` serves its database (its own process, as an operator runs it).
3. Over loopback HTTP with a bearer token: the run page's first and last history page
   (100 events each) and the JSON view (all events, and 100): median and max of
   ``--rounds`` answers, and each answer's size. The load average is printed.

    python benchmarks/console_run_history.py [--steps 1000] [--rounds 9]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from cfnops.runtime import Runtime

TOKEN = "bench-token-0123456789abcdef"


def make(db: str, steps: int) -> None:
    """The subprocess: one execution of ``steps`` steps; prints its run id and events."""
    from aws_durable_execution_sdk_python import DurableContext, durable_execution

    from cfnops.config import load_settings
    from cfnops.durable import Engine, lambda_function

    @lambda_function("bench-history")
    @durable_execution
    def history(event: Any, context: DurableContext) -> Any:
        for i in range(event["steps"]):
            context.step(lambda _, i=i: {"i": i, "note": "x" * 40}, name=f"step-{i}")
        return event["steps"]

    engine = Engine.start_process(
        Runtime.from_settings(load_settings(database_url=f"sqlite:///{db}"))
    )
    try:
        backend = engine.local_lambda()
        record = backend.wait(backend.start_execution("bench-history", {"steps": steps}), 3600)
        print(
            json.dumps(
                {"run_id": record["arn"].rsplit("/", 1)[-1], "events": len(record["events"])}
            )
        )
    finally:
        engine.shutdown(grace_seconds=1)


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str, accept: str) -> tuple[float, int]:
    request = urllib.request.Request(
        url, headers={"Authorization": f"Bearer {TOKEN}", "Accept": accept}
    )
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=60) as answer:
        body = answer.read()
    return time.perf_counter() - started, len(body)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--make", nargs=2, metavar=("DB", "STEPS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.make:
        make(args.make[0], int(args.make[1]))
        return
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "runs.sqlite")
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, __file__, "--make", db, str(args.steps)],
            capture_output=True, text=True, check=True, timeout=3600,
        )  # fmt: skip
        made = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"execution of {args.steps} steps: {made['events']} events in "
              f"{time.perf_counter() - started:.1f} s")  # fmt: skip
        port = _port()
        env = {**os.environ, "CFNOPS_DATABASE_URL": f"sqlite:///{db}",
               "CFNOPS_CONSOLE_TOKEN": TOKEN}  # fmt: skip
        console = subprocess.Popen(
            [sys.executable, "-m", "cfnops", "console", "--port", str(port)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            base = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 60
            while True:
                try:
                    _get(f"{base}/healthz", "text/plain")
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.2)
            run = f"{base}/runs/{made['run_id']}"
            last = -(-made["events"] // 100)
            for label, url, accept in (
                ("run page, events 1-100", run, "text/html"),
                (f"run page, last page ({last})", f"{run}?history={last}", "text/html"),
                ("JSON, all events", f"{run}/history", "application/json"),
                ("JSON, MaxItems=100", f"{run}/history?MaxItems=100", "application/json"),
            ):
                _get(url, accept)  # warm
                answers = [_get(url, accept) for _ in range(args.rounds)]
                times = [t * 1000 for t, _ in answers]
                print(f"{label:32} median {statistics.median(times):7.1f} ms   "
                      f"max {max(times):7.1f} ms   {answers[-1][1] / 1024:6.0f} KB")  # fmt: skip
        finally:
            console.terminate()
            console.wait(timeout=20)
    print("load average: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()

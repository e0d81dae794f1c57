"""Fleet heal throughput: 200 drifted stacks, one run at a time vs 32 at once.

The sandbox runs in its own process with every delay at 1 s (drift detection,
change set creation and execution each take a second, as a small real stack
does in tens of seconds), so this process's CPU time is cfnops's: the durable
engine on SQLite, the workflow, the fleet loop, and the AWS SDK (botocore)
calls. Heal polls every second.

Prints, for concurrency 1 (one stack at a time, as the reference design runs)
and 32: stacks/minute, their ratio, and per healed stack the process CPU split
into the CPU spent inside AWS SDK calls (thread CPU time between botocore's
first and last event of each call: the same calls the reference Lambda makes)
and the engine's CPU (everything else: checkpoints, workflow code, fleet loop,
DBOS's background threads); also AWS calls and checkpoints per stack.
Targets: ratio >= 20x, <= 50 ms engine CPU per stack.

The sandbox process and this one are pinned to separate CPUs (``--no-pin`` to
share them), as AWS does not run on the engine's machine.

    python benchmarks/heal_fleet.py [--stacks 200] [--concurrency 32] [--rounds 3]
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
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
from botocore.config import Config
from dbos import DBOS

os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")

from cfnops.aws import AwsClients
from cfnops.config import Settings, load_settings
from cfnops.demo.heal_sample import deploy_sample, drift_sample
from cfnops.durable import Engine
from cfnops.heal._fleet import FleetTarget, heal_fleet
from cfnops.runtime import Runtime


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pin(sandbox_pid: int) -> bool:
    """Sandbox on one CPU, this process on another (Linux, two CPUs or more).

    The sandbox stands in for AWS, which runs on other machines: sharing cores
    with it, the engine's threads migrate and lose their caches to moto's, which
    shows up as engine CPU time. Both processes still get a whole core each.
    """
    if not hasattr(os, "sched_setaffinity"):
        return False
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        return False
    os.sched_setaffinity(sandbox_pid, {cpus[1]})
    os.sched_setaffinity(0, {cpus[0]})
    return True


def _start_sandbox(delay: float) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "cfnops", "sandbox", "up", "--port", str(port), "--delay", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"{url}/_cfnops/config", timeout=2).read()
            break
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit("the sandbox did not start") from None
            time.sleep(0.2)
    request = urllib.request.Request(
        f"{url}/_cfnops/config",
        data=json.dumps({"delays": delay}).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    urllib.request.urlopen(request, timeout=5).read()
    return proc, url


class SdkMeter:
    """CPU time spent inside AWS SDK calls, and their number, across all threads.

    Registered on the boto3 session before any client exists, so every client
    copies the handlers: thread CPU time from ``provide-client-params`` (the
    first event of a call) to ``after-call``/``after-call-error`` (the last).
    """

    def __init__(self, session: boto3.session.Session) -> None:
        self._local = threading.local()
        self._lock = threading.Lock()
        self.cpu = 0.0
        self.calls = 0
        session.events.register("provide-client-params", self._start)
        session.events.register("after-call", self._stop)
        session.events.register("after-call-error", self._stop)

    def _start(self, **_: Any) -> None:
        self._local.started = time.thread_time()

    def _stop(self, **_: Any) -> None:
        started = getattr(self._local, "started", None)
        if started is None:
            return
        self._local.started = None
        spent = time.thread_time() - started
        with self._lock:
            self.cpu += spent
            self.calls += 1

    def read(self) -> tuple[float, int]:
        with self._lock:
            return self.cpu, self.calls


@dataclass
class Round:
    stacks: int
    healed: int
    wall: float
    cpu: float
    sdk_cpu: float
    calls: int
    checkpoints: int

    @property
    def rate(self) -> float:
        """Healed stacks per minute."""
        return self.healed / self.wall * 60

    @property
    def engine_ms(self) -> float:
        """CPU ms per healed stack outside AWS SDK calls."""
        return (self.cpu - self.sdk_cpu) * 1000 / max(self.healed, 1)


def _checkpoints(rows: Any) -> int:
    return sum(len(DBOS.list_workflow_steps(r.run_id, load_output=False)) for r in rows if r.run_id)


def _round(
    engine: Engine,
    settings: Settings,
    clients: AwsClients,
    meter: SdkMeter,
    names: list[str],
    concurrency: int,
) -> Round:
    ssm = clients.client("ssm")
    for name in names:
        drift_sample(ssm, f"/{name}/p")
    sdk0, calls0 = meter.read()
    cpu0, wall0 = time.process_time(), time.perf_counter()
    summary = heal_fleet(
        engine,
        settings,
        [FleetTarget(n) for n in names],
        concurrency=concurrency,
        poll_seconds=0.5,
        track_phase=False,
    )
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    sdk1, calls1 = meter.read()
    healed = summary.counts["healed"]
    if healed != len(names):
        bad = [(r.target.stack, r.status, r.detail) for r in summary.rows if r.status != "HEALED"]
        print(f"  not healed: {bad[:5]}", file=sys.stderr)
    return Round(
        len(names), healed, wall, cpu, sdk1 - sdk0, calls1 - calls0, _checkpoints(summary.rows)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stacks", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--delay", type=float, default=1.0)
    parser.add_argument(
        "--serial-stacks",
        type=int,
        default=None,
        help="Heal only this many stacks at concurrency 1 (default: all; it takes ~12 min).",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="Fleet rounds at --concurrency (every stack drifted again before each); the"
        " median round is the result, as CPU times vary with the machine's other load.",
    )
    parser.add_argument(
        "--max-pool",
        type=int,
        default=None,
        help="Experiment: botocore max_pool_connections (default: botocore's 10).",
    )
    parser.add_argument(
        "--attribution",
        action="store_true",
        help="Look up who changed each drifted resource (CloudTrail), as heal does by default.",
    )
    parser.add_argument(
        "--no-pin",
        action="store_true",
        help="Do not pin the sandbox and this process to separate CPUs.",
    )
    args = parser.parse_args()
    sandbox, url = _start_sandbox(args.delay)
    pinned = not args.no_pin and _pin(sandbox.pid)
    db = Path(tempfile.mkdtemp(prefix="cfnops-bench-")) / "heal.sqlite"
    try:
        settings = load_settings(
            database_url=f"sqlite:///{db}",
            aws={"endpoint_url": url, "region": "us-east-1"},
            heal={
                "drift_poll_seconds": 1,
                "changeset_poll_seconds": 1,
                "execute_poll_seconds": 1,
                "drift_max_attempts": 60,
                "changeset_max_attempts": 60,
                "execute_max_attempts": 60,
                # The reference Lambda makes no CloudTrail call; --attribution adds one
                # LookupEvents per drifted resource (12 calls per healed stack).
                "attribution": args.attribution,
            },
            notify={"console": False},
        )
        clients = AwsClients(settings.aws)
        meter = SdkMeter(clients.session)
        if args.max_pool:
            config = clients.botocore_config().merge(Config(max_pool_connections=args.max_pool))
            built = {
                svc: clients.session.client(svc, endpoint_url=url, config=config)
                for svc in ("cloudformation", "ssm")
            }
            clients = AwsClients(settings.aws, clients=built)
        cfn = clients.client("cloudformation")
        names = [f"bench-{i:03d}" for i in range(args.stacks)]
        print(f"deploying {len(names)} stacks on {url} (delays {args.delay} s) …", flush=True)
        for name in names:
            deploy_sample(cfn, name, f"/{name}/p")
        engine = Engine.start_process(Runtime.from_settings(settings, aws=clients))
        try:
            serial = names[: args.serial_stacks]
            print(f"healing {len(serial)} at concurrency 1 …", flush=True)
            one = _round(engine, settings, clients, meter, serial, 1)
            fleet: list[Round] = []
            for _ in range(args.rounds):
                print(f"healing {len(names)} at concurrency {args.concurrency} …", flush=True)
                fleet.append(_round(engine, settings, clients, meter, names, args.concurrency))
        finally:
            engine.shutdown(grace_seconds=1)
    finally:
        sandbox.terminate()
        sandbox.wait(timeout=20)
    _report(one, fleet, args.concurrency)
    where = "separate CPUs" if pinned else "shared CPUs (not pinned)"
    print(f"sandbox and engine on {where}")


def _row(label: str, r: Round) -> str:
    n = max(r.healed, 1)
    return (
        f"{label:>14} {r.stacks:>6} {r.healed:>6} {r.wall:>7.1f} {r.rate:>10.1f} "
        f"{r.cpu * 1000 / n:>12.1f} {r.sdk_cpu * 1000 / n:>8.1f} "
        f"{r.engine_ms:>7.1f} {r.calls / n:>6.1f} {r.checkpoints / n:>11.1f}"
    )


def _report(one: Round, fleet: list[Round], concurrency: int) -> None:
    print()
    print(
        f"{'concurrency':>14} {'stacks':>6} {'healed':>6} {'wall s':>7} {'stacks/min':>10} "
        f"{'CPU ms/stack':>12} {'AWS SDK':>8} {'engine':>7} {'calls':>6} {'checkpoints':>11}"
    )
    print(_row("1", one))
    for i, r in enumerate(fleet, 1):
        print(_row(f"{concurrency} (round {i})", r))
    mid = sorted(fleet, key=lambda r: r.engine_ms)[len(fleet) // 2]
    rate = statistics.median(r.rate for r in fleet)
    ratio = rate / one.rate if one.rate else float("nan")
    print(
        f"\nspeed-up {concurrency} vs 1: {ratio:.1f}x on the median round's rate"
        f" ({rate:.1f} vs {one.rate:.1f} stacks/min; target >= 20x)"
    )
    print(
        f"engine CPU per stack at {concurrency}: median {mid.engine_ms:.1f} ms"
        f" (rounds: {', '.join(f'{r.engine_ms:.1f}' for r in fleet)}; target <= 50 ms);"
        f" whole process {mid.cpu * 1000 / max(mid.healed, 1):.1f} ms of which AWS SDK"
        f" {mid.sdk_cpu * 1000 / max(mid.healed, 1):.1f} ms"
    )
    print(
        "CPU ms/stack: this process's CPU per healed stack = AWS SDK (CPU inside botocore"
        " calls) + engine (the rest: checkpoints, workflow, fleet loop, DBOS's threads)"
    )


if __name__ == "__main__":
    main()

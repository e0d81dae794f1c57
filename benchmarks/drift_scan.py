"""Fleet drift scan speed: stacks per minute over several accounts, and where the time goes.

Starts a sandbox in its own process with its realistic delays (drift detection
takes 2 s), creates an organization with ``--accounts - 1`` member accounts,
deploys ``--stacks`` one-parameter stacks spread over the accounts (every tenth
drifted), then runs ``cfnops drift scan``'s library (``heal._scan``) over all of
them through STS AssumeRole, as ``cfnops drift scan --organization`` does.

Where the scan's wall time goes, from this process's CPU time:

- **the SDK**: CPU inside botocore's API calls (serialize, sign, send, parse),
  measured per call with ``time.thread_time``; the same call's CPU on its own
  (one thread, nothing else running) is printed next to it as the floor;
- **cfnops**: every other CPU second of the process (the scan's own code, its
  threads, the pacer, the reports);
- **waiting on AWS**: the rest of the wall time.

Target: cfnops under 5 % of wall time. The whole process (cfnops plus the SDK)
is printed too: it grows with stacks per minute, since each stack needs its
three calls (DetectStackDrift, DescribeStackDriftDetectionStatus,
ListStackResources) whatever the client does.

A peer measured in the same run on the same stacks: the loop operators write
with boto3 (DetectStackDrift, DescribeStackDriftDetectionStatus every
``--poll`` seconds, DescribeStackResourceDrifts), at the same concurrency.

On a machine with two CPUs or more the sandbox runs on one CPU and this process
on the others: AWS answers from other machines, and a sandbox sharing this
process's core (its caches) makes every call here cost ~10 % more CPU.

Each side scans ``--rounds`` times (default 3), alternating which goes first;
the report gives the median round of each and the spread.

    python benchmarks/drift_scan.py                       # 600 stacks, 3 accounts (~4 min)
    python benchmarks/drift_scan.py --stacks 90 --concurrency 16 --no-peer
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from cfnops.aws import AwsClients
from cfnops.config import AwsSettings
from cfnops.demo.heal_sample import deploy_sample, drift_sample
from cfnops.heal._scan import enter_accounts, scan

ROLE = "OrganizationAccountAccessRole"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start_sandbox() -> tuple[subprocess.Popen[bytes], str, str]:
    """The sandbox process, its URL, and how the CPUs were split between it and us."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "cfnops", "sandbox", "up", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    cpus = sorted(os.sched_getaffinity(0))
    placement = f"sandbox and scanner share CPUs {cpus}"
    if len(cpus) >= 2:
        os.sched_setaffinity(proc.pid, {cpus[-1]})
        os.sched_setaffinity(0, set(cpus[:-1]))
        placement = f"sandbox on CPU {cpus[-1]}, scanner on CPU(s) {cpus[:-1]}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"{url}/_cfnops/config", timeout=2).read()
            return proc, url, placement
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit("the sandbox did not start") from None
            time.sleep(0.2)


@dataclass
class Meter:
    """API calls by operation, and the CPU spent inside them (all threads)."""

    calls: collections.Counter[str] = field(default_factory=collections.Counter)
    sdk_cpu: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def watch(self, client: Any) -> Callable[[], None]:
        """Time ``client``'s calls until the returned function is called."""
        inner = client._make_api_call

        def timed(operation: str, params: dict[str, Any]) -> Any:
            started = time.thread_time()
            try:
                return inner(operation, params)
            finally:
                spent = time.thread_time() - started
                with self._lock:
                    self.calls[operation] += 1
                    self.sdk_cpu += spent

        client._make_api_call = timed
        return lambda: vars(client).pop("_make_api_call", None)


@dataclass(frozen=True)
class Run:
    stacks: int
    wall: float
    cpu: float
    meter: Meter

    @property
    def per_minute(self) -> float:
        return 60 * self.stacks / self.wall

    @property
    def calls_per_stack(self) -> float:
        return sum(self.meter.calls.values()) / max(1, self.stacks)

    def share(self, seconds: float) -> float:
        return 100.0 * seconds / self.wall

    def calls_text(self) -> str:
        n = max(1, self.stacks)
        return ", ".join(f"{op} {c / n:.2f}" for op, c in self.meter.calls.most_common())


def _measured(clients: Iterable[Any], work: Callable[[], int]) -> Run:
    meter = Meter()
    stops = [meter.watch(c) for c in clients]
    cpu0, wall0 = time.process_time(), time.monotonic()
    try:
        stacks = work()
    finally:
        cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
        for stop in stops:
            stop()
    return Run(stacks, wall, cpu, meter)


def sdk_floor(cfn: Any, detection_id: str, calls: int = 300) -> float:
    """CPU seconds of one DescribeStackDriftDetectionStatus call, alone on one thread."""
    cfn.describe_stack_drift_detection_status(StackDriftDetectionId=detection_id)
    started = time.thread_time()
    for _ in range(calls):
        cfn.describe_stack_drift_detection_status(StackDriftDetectionId=detection_id)
    return (time.thread_time() - started) / calls


def peer_scan(cfns: list[Any], concurrency: int, poll: float) -> int:
    """The boto3 loop operators write: detect, poll every ``poll`` s, read the drifts."""
    jobs = [
        (cfn, s["StackId"])
        for cfn in cfns
        for page in cfn.get_paginator("describe_stacks").paginate()
        for s in page["Stacks"]
        if not s.get("ParentId")
    ]

    def one(job: tuple[Any, str]) -> int:
        cfn, stack_id = job
        detection = cfn.detect_stack_drift(StackName=stack_id)["StackDriftDetectionId"]
        while True:
            time.sleep(poll)
            status = cfn.describe_stack_drift_detection_status(StackDriftDetectionId=detection)
            if status["DetectionStatus"] != "DETECTION_IN_PROGRESS":
                break
        found, token = 0, {}
        while True:  # DescribeStackResourceDrifts has NextToken but no botocore paginator
            page = cfn.describe_stack_resource_drifts(StackName=stack_id, **token)
            found += len(page["StackResourceDrifts"])
            if not page.get("NextToken"):
                return found
            token = {"NextToken": page["NextToken"]}

    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        return len(list(pool.map(one, jobs)))


def _spread(label: str, values: list[float], unit: str = "") -> None:
    low, high = min(values), max(values)
    print(f"  {label}: median {statistics.median(values):.2f}{unit} (range {low:.2f}-{high:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stacks", type=int, default=600)
    parser.add_argument("--accounts", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=48)
    parser.add_argument("--poll", type=float, default=1.0, help="Detection poll seconds.")
    parser.add_argument("--no-peer", action="store_true", help="Skip the boto3 peer loop.")
    parser.add_argument(
        "--rounds", type=int, default=3, help="Scans of each side, alternating (median kept)."
    )
    args = parser.parse_args()
    proc, url, placement = _start_sandbox()
    os.environ.update(
        {
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_REGION": "us-east-1",
        }
    )
    try:
        clients = AwsClients(AwsSettings(endpoint_url=url, region="us-east-1"))
        org = clients.client("organizations")
        with contextlib.suppress(org.exceptions.AlreadyInOrganizationException):
            org.create_organization(FeatureSet="ALL")
        accounts = [clients.account_id()] + [
            str(
                org.create_account(AccountName=f"bench-{i}", Email=f"bench-{i}@example.com")[
                    "CreateAccountStatus"
                ]["AccountId"]
            )
            for i in range(1, args.accounts)
        ]
        per_account = enter_accounts(clients, accounts, ROLE)
        cfns = [target.client("cloudformation") for target in per_account.values()]
        started = time.monotonic()
        for i in range(args.stacks):
            target = per_account[accounts[i % len(accounts)]]
            name = f"bench-{i:04d}"
            deploy_sample(target.client("cloudformation"), name, f"/{name}/p")
            if i % 10 == 0:
                drift_sample(target.client("ssm"), f"/{name}/p")
        setup = time.monotonic() - started
        # Warm up: one detection per account (the sandbox's first ones load its drift
        # machinery, the clients' first calls their operation models), so neither
        # measured scan pays for it; the floor's calls then read a finished detection.
        detections = [
            cfn.detect_stack_drift(StackName=f"bench-{i:04d}")["StackDriftDetectionId"]
            for i, cfn in enumerate(cfns)
        ]
        time.sleep(3)
        for i, (cfn, detection) in enumerate(zip(cfns, detections, strict=True)):
            cfn.describe_stack_drift_detection_status(StackDriftDetectionId=detection)
            cfn.list_stack_resources(StackName=f"bench-{i:04d}")
        floor = sdk_floor(cfns[0], detections[0])
        results: list[Any] = []

        def ours() -> int:
            results.append(
                scan(
                    per_account,
                    ["us-east-1"],
                    concurrency=args.concurrency,
                    poll_seconds=args.poll,
                )
            )
            return len(results[-1].rows)

        def theirs() -> int:
            return peer_scan(cfns, args.concurrency, args.poll)

        runs: list[Run] = []
        peers: list[Run] = []
        for round_ in range(args.rounds):
            # which side goes first alternates by round: neither always meets a sandbox
            # still busy with the other's detections, or always a fresh one
            order = [(runs, ours), (peers, theirs)]
            if args.no_peer:
                order = order[:1]
            elif round_ % 2:
                order.reverse()
            for into, work in order:
                into.append(_measured(cfns, work))
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    middle = sorted(range(len(runs)), key=lambda i: runs[i].per_minute)[len(runs) // 2]
    run, result = runs[middle], results[middle]
    peer = sorted(peers, key=lambda r: r.per_minute)[len(peers) // 2] if peers else None
    print(
        f"{args.rounds} round(s), cfnops and the peer alternating which goes first; "
        "figures below: the median round of each"
    )
    _spread("cfnops stacks/minute", [r.per_minute for r in runs])
    if peers:
        _spread("peer stacks/minute", [r.per_minute for r in peers])
        ratios = [a.per_minute / b.per_minute for a, b in zip(runs, peers, strict=True)]
        _spread("cfnops / peer stacks/minute, per round", ratios, "x")
    per_call = run.meter.sdk_cpu / max(1, sum(run.meter.calls.values()))
    own = run.cpu - run.meter.sdk_cpu
    n = max(1, run.stacks)
    print(f"setup: {args.stacks} stacks in {len(accounts)} accounts in {setup:.1f} s; {placement}")
    print(f"the SDK alone: {1000 * floor:.2f} ms CPU a CloudFormation call (one thread)")
    print(
        f"cfnops: {run.stacks} stacks in {run.wall:.1f} s = {run.per_minute:.1f} stacks/minute; "
        f"counts {json.dumps(result.counts())}"
    )
    low, high = result.concurrency[1], result.concurrency[2]
    print(
        f"  concurrency {args.concurrency} (lowest {low}, highest {high}); "
        f"throttled {result.throttled}"
    )
    print(f"  calls per stack: {run.calls_per_stack:.2f} ({run.calls_text()})")
    print(
        f"  CPU per stack: {1000 * run.cpu / n:.2f} ms = the SDK's calls "
        f"{1000 * run.meter.sdk_cpu / n:.2f} ms ({1000 * per_call:.2f} ms a call) "
        f"+ cfnops {1000 * own / n:.2f} ms"
    )
    print(
        f"  wall time: cfnops {run.share(own):.1f} % (target < 5 %), "
        f"the SDK {run.share(run.meter.sdk_cpu):.1f} %, "
        f"waiting on AWS {100 - run.share(run.cpu):.1f} %; "
        f"whole process {run.share(run.cpu):.1f} %"
    )
    if peer is None:
        return
    p = max(1, peer.stacks)
    print(
        f"peer (boto3 loop, poll {args.poll:g} s, concurrency {args.concurrency}): "
        f"{peer.stacks} stacks in {peer.wall:.1f} s = {peer.per_minute:.1f} stacks/minute"
    )
    print(f"  calls per stack: {peer.calls_per_stack:.2f} ({peer.calls_text()})")
    print(
        f"  CPU per stack: {1000 * peer.cpu / p:.2f} ms; "
        f"wall time: whole process {peer.share(peer.cpu):.1f} %"
    )
    print(
        f"cfnops / peer: stacks/minute {run.per_minute / peer.per_minute:.2f}x, "
        f"CPU per stack {(run.cpu / n) / (peer.cpu / p):.2f}x, "
        f"calls per stack {run.calls_per_stack / peer.calls_per_stack:.2f}x "
        f"(cfnops also reads ListStackResources for coverage; the peer reports none)"
    )


if __name__ == "__main__":
    main()

"""Fleet drift scan speed: stacks per minute over several accounts, and where the time goes.

Starts a sandbox in its own process with its realistic delays (drift detection
takes 2 s), creates an organization with ``--accounts - 1`` member accounts,
deploys ``--stacks`` one-parameter stacks spread over the accounts (every tenth
drifted), then runs ``cfnops drift scan``'s library (``heal._scan``) over all of
them through STS AssumeRole, as ``cfnops drift scan --organization`` does.

Prints stacks per minute, the effective concurrency, the share of wall time
this process spent on CPU (cfnops, botocore and Python: "in cfnops") versus the
rest (waiting on AWS), the CPU per stack and the CloudFormation calls per stack
(by operation). Target: in cfnops under 5 % of wall time.

    python benchmarks/drift_scan.py                       # 600 stacks, 3 accounts (~2 min)
    python benchmarks/drift_scan.py --stacks 90 --concurrency 16
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

from cfnops.aws import AwsClients
from cfnops.config import AwsSettings
from cfnops.demo.heal_sample import deploy_sample, drift_sample
from cfnops.heal._scan import enter_accounts, scan

ROLE = "OrganizationAccountAccessRole"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start_sandbox() -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "cfnops", "sandbox", "up", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"{url}/_cfnops/config", timeout=2).read()
            return proc, url
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit("the sandbox did not start") from None
            time.sleep(0.2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stacks", type=int, default=600)
    parser.add_argument("--accounts", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=48)
    parser.add_argument("--poll", type=float, default=1.0, help="Detection poll seconds.")
    args = parser.parse_args()
    proc, url = _start_sandbox()
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
        started = time.monotonic()
        for i in range(args.stacks):
            target = per_account[accounts[i % len(accounts)]]
            name = f"bench-{i:04d}"
            deploy_sample(target.client("cloudformation"), name, f"/{name}/p")
            if i % 10 == 0:
                drift_sample(target.client("ssm"), f"/{name}/p")
        setup = time.monotonic() - started
        calls: collections.Counter[str] = collections.Counter()

        def count(model: object = None, **_: object) -> None:
            calls[str(getattr(model, "name", "?"))] += 1

        for target in per_account.values():
            target.client("cloudformation").meta.events.register("before-call", count)
        cpu0, wall0 = time.process_time(), time.monotonic()
        result = scan(
            per_account, ["us-east-1"], concurrency=args.concurrency, poll_seconds=args.poll
        )
        cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    counts = result.counts()
    share = 100.0 * cpu / wall if wall else 0.0
    print(f"setup: {args.stacks} stacks in {len(accounts)} accounts in {setup:.1f} s")
    print(
        f"scan: {len(result.rows)} stacks in {wall:.1f} s = {60 * len(result.rows) / wall:.1f} "
        f"stacks/minute; counts {json.dumps(counts)}"
    )
    low, high = result.concurrency[1], result.concurrency[2]
    print(
        f"concurrency {args.concurrency} (lowest {low}, highest {high}); "
        f"throttled {result.throttled}"
    )
    print(
        f"time in cfnops (this process's CPU: cfnops, botocore, Python): {cpu:.1f} s = "
        f"{share:.1f} % of wall time; waiting on AWS: {100 - share:.1f} % (target: cfnops < 5 %)"
    )
    stacks = max(1, len(result.rows))
    print(
        f"per stack: {1000 * cpu / stacks:.1f} ms CPU, "
        f"{sum(calls.values()) / stacks:.2f} CloudFormation calls "
        f"({', '.join(f'{op} {n / stacks:.2f}' for op, n in calls.most_common())})"
    )


if __name__ == "__main__":
    main()

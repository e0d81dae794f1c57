"""ASL execution speed: cfnops (durable, SQLite) against moto's in-process Step Functions.

Workloads (pure states only, so both engines measure their interpreters):

- loop:     a 1,000-iteration Pass/Choice loop with a counter (States.MathAdd);
- map:      a Map over 500 items (one Pass per iteration);
- parallel: a Parallel of 10 branches x 20 Pass states.

State transitions = states entered (``*StateEntered`` events in the history). cfnops runs
each workload as a durable job run (DBOS workflow, history stored in SQLite) from start
to the stored result; moto runs it with ``stepfunctions.execute_state_machine`` until
DescribeExecution is no longer RUNNING.

    python benchmarks/asl_speed.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")


def loop_definition(n: int = 1000) -> dict[str, Any]:
    return {
        "StartAt": "Init",
        "States": {
            "Init": {"Type": "Pass", "Parameters": {"i": 0}, "Next": "Check"},
            "Check": {
                "Type": "Choice",
                "Default": "Inc",
                "Choices": [{"Variable": "$.i", "NumericGreaterThanEquals": n, "Next": "Done"}],
            },
            "Inc": {
                "Type": "Pass",
                "Parameters": {"i.$": "States.MathAdd($.i, 1)"},
                "Next": "Check",
            },
            "Done": {"Type": "Succeed"},
        },
    }


def map_definition() -> dict[str, Any]:
    return {
        "StartAt": "M",
        "States": {
            "M": {
                "Type": "Map",
                "ItemsPath": "$.items",
                "End": True,
                "ItemProcessor": {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}},
            }
        },
    }


def parallel_definition(branches: int = 10, depth: int = 20) -> dict[str, Any]:
    def branch(b: int) -> dict[str, Any]:
        states = {
            f"B{b}S{i}": {
                "Type": "Pass",
                **({"Next": f"B{b}S{i + 1}"} if i < depth - 1 else {"End": True}),
            }
            for i in range(depth)
        }
        return {"StartAt": f"B{b}S0", "States": states}

    return {
        "StartAt": "Fork",
        "States": {
            "Fork": {
                "Type": "Parallel",
                "End": True,
                "Branches": [branch(b) for b in range(branches)],
            }
        },
    }


WORKLOADS: dict[str, tuple[dict[str, Any], Any]] = {
    "loop 1000 (Pass/Choice, MathAdd)": (loop_definition(), {}),
    "map 500 items": (map_definition(), {"items": list(range(500))}),
    "parallel 10 x 20 Pass": (parallel_definition(), {}),
}


def transitions(events: list[dict[str, Any]]) -> int:
    return sum(1 for e in events if str(e["type"]).endswith("StateEntered"))


def bench_cfnops(repeat: int) -> dict[str, tuple[int, float]]:
    from cfnops.config import load_settings
    from cfnops.durable import Engine
    from cfnops.jobs import JobService

    db = os.path.join(tempfile.mkdtemp(prefix="asl-speed-"), "bench.sqlite")
    settings = load_settings(database_url=f"sqlite:///{db}")
    engine = Engine.start_process(settings)
    jobs = JobService(settings)
    out: dict[str, tuple[int, float]] = {}
    try:
        for label, (definition, value) in WORKLOADS.items():
            best = float("inf")
            count = 0
            for _ in range(repeat):
                start = time.perf_counter()
                run_id = jobs.start(definition, value, machine_name="bench")
                result = jobs.wait(run_id, poll=0.002)
                elapsed = time.perf_counter() - start
                assert result.status == "SUCCEEDED", result
                count = transitions(jobs.store.history(run_id))
                best = min(best, elapsed)
            out[label] = (count, best)
    finally:
        engine.shutdown(grace_seconds=1)
    return out


def bench_moto(repeat: int) -> dict[str, tuple[int, float]]:
    import boto3
    from moto import mock_aws

    out: dict[str, tuple[int, float]] = {}
    with mock_aws(config={"stepfunctions": {"execute_state_machine": True}}):
        sfn = boto3.client("stepfunctions", region_name="us-east-1")
        role = "arn:aws:iam::123456789012:role/bench"
        for n, (label, (definition, value)) in enumerate(WORKLOADS.items()):
            arn = sfn.create_state_machine(
                name=f"bench{n}", definition=json.dumps(definition), roleArn=role
            )["stateMachineArn"]
            best = float("inf")
            count = 0
            for _ in range(repeat):
                start = time.perf_counter()
                ex = sfn.start_execution(
                    stateMachineArn=arn,
                    input=json.dumps(value),
                    name=f"run-{time.perf_counter_ns()}",
                )
                exec_arn = ex["executionArn"]
                status = _until_done(
                    lambda arn=exec_arn: sfn.describe_execution(executionArn=arn)["status"]
                )
                elapsed = time.perf_counter() - start
                assert status == "SUCCEEDED", status
                events = sfn.get_execution_history(executionArn=ex["executionArn"], maxResults=1000)
                history = list(events["events"])
                while events.get("nextToken"):
                    events = sfn.get_execution_history(
                        executionArn=ex["executionArn"], nextToken=events["nextToken"]
                    )
                    history.extend(events["events"])
                count = transitions(history)
                best = min(best, elapsed)
            out[label] = (count, best)
    return out


def _until_done(status: Callable[[], str]) -> str:
    while True:
        found = status()
        if found != "RUNNING":
            return found
        time.sleep(0.002)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per workload (best kept)")
    args = parser.parse_args()
    ours = bench_cfnops(args.repeat)
    peer = bench_moto(args.repeat)
    print(f"{'workload':36} {'transitions':>11} {'cfnops/s':>10} {'moto/s':>10} {'ratio':>7}")
    for label in WORKLOADS:
        n, t = ours[label]
        pn, pt = peer[label]
        ours_rate, peer_rate = n / t, pn / pt
        print(
            f"{label:36} {n:>11} {ours_rate:>10.0f} {peer_rate:>10.0f} "
            f"{ours_rate / peer_rate:>6.1f}x"
        )
    print("cfnops: durable job runs on SQLite (WAL), history stored; best of", args.repeat)


if __name__ == "__main__":
    main()

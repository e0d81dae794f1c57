"""ASL execution speed: cfnops (durable, SQLite) against moto's in-process Step Functions.

Workloads (pure states only, so both engines measure their interpreters):

- loop:     a 1,000-iteration Pass/Choice loop with a counter (States.MathAdd);
- map:      a Map over 500 items (one Pass per iteration);
- parallel: a Parallel of 10 branches x 20 Pass states.

State transitions = states entered (``*StateEntered`` events in the history). cfnops runs
each workload as a durable job run (DBOS workflow, history stored in SQLite) from start
to the stored result; moto runs it with ``stepfunctions.execute_state_machine`` until
DescribeExecution is no longer RUNNING.

    python benchmarks/asl_speed.py [--rounds 7]

Figures are medians of interleaved rounds after a warm-up run (see :func:`bench`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from typing import Any

from cfnops.runtime import Runtime

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


class CfnopsRunner:
    """Durable job runs (DBOS workflow, history in SQLite) through ``JobService``."""

    def __init__(self) -> None:
        from cfnops.config import load_settings
        from cfnops.durable import Engine
        from cfnops.jobs import JobService

        db = os.path.join(tempfile.mkdtemp(prefix="asl-speed-"), "bench.sqlite")
        settings = load_settings(database_url=f"sqlite:///{db}")
        self.engine = Engine.start_process(Runtime.from_settings(settings))
        self.jobs = JobService(Runtime.from_settings(settings))

    def run(self, label: str) -> tuple[int, float]:
        definition, value = WORKLOADS[label]
        start = time.perf_counter()
        run_id = self.jobs.start(definition, value, machine_name="bench")
        result = self.jobs.wait(run_id, poll=0.002)
        elapsed = time.perf_counter() - start
        assert result.status == "SUCCEEDED", result
        return transitions(self.jobs.store.history(run_id)), elapsed

    def close(self) -> None:
        self.engine.shutdown(grace_seconds=1)


class MotoRunner:
    """moto's Step Functions with ``execute_state_machine``, until DescribeExecution ends."""

    def __init__(self) -> None:
        import boto3
        from moto import mock_aws

        self.mock = mock_aws(config={"stepfunctions": {"execute_state_machine": True}})
        self.mock.start()
        self.sfn = boto3.client("stepfunctions", region_name="us-east-1")
        role = "arn:aws:iam::123456789012:role/bench"
        self.arns = {
            label: self.sfn.create_state_machine(
                name=f"bench{n}", definition=json.dumps(definition), roleArn=role
            )["stateMachineArn"]
            for n, (label, (definition, _)) in enumerate(WORKLOADS.items())
        }

    def run(self, label: str) -> tuple[int, float]:
        sfn, value = self.sfn, WORKLOADS[label][1]
        start = time.perf_counter()
        ex = sfn.start_execution(
            stateMachineArn=self.arns[label],
            input=json.dumps(value),
            name=f"run-{time.perf_counter_ns()}",
        )
        arn = ex["executionArn"]
        status = _until_done(lambda: sfn.describe_execution(executionArn=arn)["status"])
        elapsed = time.perf_counter() - start
        assert status == "SUCCEEDED", status
        events = sfn.get_execution_history(executionArn=arn, maxResults=1000)
        history = list(events["events"])
        while events.get("nextToken"):
            events = sfn.get_execution_history(executionArn=arn, nextToken=events["nextToken"])
            history.extend(events["events"])
        return transitions(history), elapsed

    def close(self) -> None:
        self.mock.stop()


def bench(rounds: int) -> dict[str, dict[str, tuple[int, list[float]]]]:
    """Per engine and workload: transitions and the elapsed times of ``rounds`` runs.

    One warm-up run of each (discarded), then rounds in which every workload runs
    on both engines back to back, the engine that goes first alternating by round,
    so drift in the machine's load touches both alike.
    """
    runners: dict[str, Any] = {"cfnops": CfnopsRunner(), "moto": MotoRunner()}
    out: dict[str, dict[str, tuple[int, list[float]]]] = {name: {} for name in runners}
    try:
        for label in WORKLOADS:
            for runner in runners.values():
                runner.run(label)  # warm-up
        for round_ in range(rounds):
            order = list(runners) if round_ % 2 == 0 else list(reversed(runners))
            for label in WORKLOADS:
                for name in order:
                    count, elapsed = runners[name].run(label)
                    times = out[name].setdefault(label, (count, []))[1]
                    times.append(elapsed)
    finally:
        for runner in runners.values():
            runner.close()
    return out


def _until_done(status: Callable[[], str]) -> str:
    while True:
        found = status()
        if found != "RUNNING":
            return found
        time.sleep(0.002)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds (median kept)")
    args = parser.parse_args()
    found = bench(args.rounds)
    print(
        f"{'workload':36} {'transitions':>11} {'cfnops/s':>10} {'moto/s':>10} {'ratio':>7}"
        "   (median; range of transitions/s)"
    )
    for label in WORKLOADS:
        n, ours = found["cfnops"][label]
        pn, peer = found["moto"][label]
        ours_rate, peer_rate = n / statistics.median(ours), pn / statistics.median(peer)
        print(
            f"{label:36} {n:>11} {ours_rate:>10.0f} {peer_rate:>10.0f} "
            f"{ours_rate / peer_rate:>6.1f}x   cfnops {n / max(ours):.0f}-{n / min(ours):.0f}, "
            f"moto {pn / max(peer):.0f}-{pn / min(peer):.0f}"
        )
    print(
        f"cfnops: durable job runs on SQLite (WAL), history stored; medians of {args.rounds} "
        "interleaved rounds after a warm-up, the engine going first alternating by round"
    )


if __name__ == "__main__":
    main()

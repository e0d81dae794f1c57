"""``cfnops job test`` speed: in-process time per mocked test case.

Workloads:

- chain30: a 30-state job-net (10 x Task with Parameters/ResultPath/Retry/Catch, Pass,
  Choice), three cases: every Task answers at once; every Task throttled once, then
  answers (a retry each); the fifth Task fails and the Catch ends in a Fail state;
- webapp-stop: examples/jobnets/webapp-stop.asl.json with its mock file (JSONata, a Map
  over two instances, 41 states entered per case).

Each figure is the median of ``--rounds`` runs of the case after a warm-up run, measured
around :meth:`cfnops.jobs.JobNetTest.run` (the interpreter run and the expectation
check); the machine's load average is printed with it.

    python benchmarks/jobtest_speed.py [--rounds 30]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

from cfnops.jobs import JobNetTest, load_job_test

ROOT = Path(__file__).resolve().parents[1]
TASK = "arn:aws:states:::aws-sdk:ssm:sendCommand"


def chain30() -> dict[str, Any]:
    states: dict[str, Any] = {}
    for i in range(10):
        nxt = f"Task{i + 1}" if i < 9 else "Done"
        states[f"Task{i}"] = {
            "Type": "Task",
            "Resource": TASK,
            "Parameters": {"DocumentName": "AWS-RunShellScript", "Step.$": "$.step"},
            "ResultPath": f"$.results.t{i}",
            "Retry": [{"ErrorEquals": ["Ssm.ThrottlingException"], "MaxAttempts": 2}],
            "Catch": [{"ErrorEquals": ["States.ALL"], "Next": "Failed"}],
            "Next": f"Count{i}",
        }
        states[f"Count{i}"] = {
            "Type": "Pass",
            "Parameters": {"step.$": "States.MathAdd($.step, 1)", "results.$": "$.results"},
            "Next": f"Check{i}",
        }
        states[f"Check{i}"] = {
            "Type": "Choice",
            "Choices": [{"Variable": "$.step", "NumericGreaterThan": 100, "Next": "Failed"}],
            "Default": nxt,
        }
    # 30 states above; Done and Failed are the ends
    states["Done"] = {"Type": "Succeed"}
    states["Failed"] = {"Type": "Fail", "Error": "StepFailed"}
    return {"StartAt": "Task0", "States": states}


def chain30_mocks() -> dict[str, Any]:
    ok = {"0": {"Return": {"Command": {"CommandId": "c-1"}}}}
    throttled = {
        "0": {"Throw": {"Error": "Ssm.ThrottlingException", "Cause": "Rate exceeded"}},
        "1": {"Return": {"Command": {"CommandId": "c-1"}}},
    }
    broken = {"0": {"Throw": {"Error": "Ssm.InvalidInstanceIdException", "Cause": "gone"}}}
    cases = {
        "AllAnswer": {f"Task{i}": "Ok" for i in range(10)},
        "AllThrottledOnce": {f"Task{i}": "Throttled" for i in range(10)},
        "FifthFails": {**{f"Task{i}": "Ok" for i in range(10)}, "Task4": "Broken"},
    }
    return {
        "StateMachines": {"chain30": {"TestCases": cases}},
        "MockedResponses": {"Ok": ok, "Throttled": throttled, "Broken": broken},
        "cfnops": {"StateMachines": {"chain30": {"Input": {"step": 0, "results": {}},
                   "TestCases": {"AllAnswer": {"status": "SUCCEEDED"},
                                 "AllThrottledOnce": {"status": "SUCCEEDED"},
                                 "FifthFails": {"status": "FAILED", "error": "StepFailed"}}}}},
    }  # fmt: skip


def measure(test: JobNetTest, rounds: int) -> dict[str, float]:
    out: dict[str, float] = {}
    for case in test.cases:
        result = test.run(case)  # warm-up
        assert result.passed, (case, result.problems, result.setup_error)
        times = []
        for _ in range(rounds):
            began = time.perf_counter()
            test.run(case)
            times.append(time.perf_counter() - began)
        out[case] = statistics.median(times) * 1000
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    definition = chain30()
    assert len(definition["States"]) == 32  # 30 + the two ends
    suites = {
        "chain30 (30 states + 2 ends)": JobNetTest(definition, chain30_mocks()),
        "webapp-stop": load_job_test(
            ROOT / "examples/jobnets/webapp-stop.asl.json",
            ROOT / "examples/jobnets/webapp-stop.mocks.json",
        ),
    }
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    report: dict[str, dict[str, float]] = {}
    for name, test in suites.items():
        report[name] = measure(test, args.rounds)
        for case, ms in report[name].items():
            print(f"{name:30} {case:20} {ms:7.2f} ms/case (median of {args.rounds})")
    print(f"load average after:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(json.dumps(report))


if __name__ == "__main__":
    main()

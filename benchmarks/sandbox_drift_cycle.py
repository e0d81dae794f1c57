"""Time a full drift cycle in the sandbox: detect → REVERT_DRIFT change set → execute → detect.

Prints seconds per phase (delays 0, so this measures the sandbox's own work), for
stacks of N SSM parameters of which one drifted::

    python benchmarks/sandbox_drift_cycle.py 10 50
"""

from __future__ import annotations

import itertools
import json
import sys
import time
from typing import Any

from cfnops.sandbox import Sandbox


def _wait(fn: Any, done: Any) -> Any:
    while True:
        found = fn()
        if done(found):
            return found
        time.sleep(0.01)


def cycle(sandbox: Sandbox, size: int) -> dict[str, float]:
    cfn, ssm = sandbox.client("cloudformation"), sandbox.client("ssm")
    name = f"bench-{size}-{int(time.time() * 1000)}"
    resources = {
        f"P{i}": {
            "Type": "AWS::SSM::Parameter",
            "Properties": {"Name": f"/{name}/{i}", "Type": "String", "Value": "v"},
        }
        for i in range(size)
    }
    marks = {"start": time.perf_counter()}
    cfn.create_stack(StackName=name, TemplateBody=json.dumps({"Resources": resources}))
    marks["create"] = time.perf_counter()
    ssm.put_parameter(Name=f"/{name}/0", Value="drifted", Overwrite=True)
    detection = cfn.detect_stack_drift(StackName=name)["StackDriftDetectionId"]
    _wait(
        lambda: cfn.describe_stack_drift_detection_status(StackDriftDetectionId=detection),
        lambda s: s["DetectionStatus"] != "DETECTION_IN_PROGRESS",
    )
    marks["detect"] = time.perf_counter()
    cs = cfn.create_change_set(
        StackName=name, ChangeSetName="r", UsePreviousTemplate=True, DeploymentMode="REVERT_DRIFT"
    )
    _wait(
        lambda: cfn.describe_change_set(ChangeSetName=cs["Id"]),
        lambda d: d["Status"] != "CREATE_PENDING" and d["Status"] != "CREATE_IN_PROGRESS",
    )
    marks["change_set"] = time.perf_counter()
    cfn.execute_change_set(ChangeSetName=cs["Id"], ClientRequestToken="bench")
    _wait(
        lambda: cfn.describe_stacks(StackName=name)["Stacks"][0]["StackStatus"],
        lambda s: s == "UPDATE_COMPLETE",
    )
    marks["execute"] = time.perf_counter()
    keys = list(marks)
    return {b: marks[b] - marks[a] for a, b in itertools.pairwise(keys)}


def main(sizes: list[int]) -> None:
    with Sandbox(delays=0) as sandbox:
        cycle(sandbox, 1)  # warm up moto's lazy imports
        print(f"{'resources':>9} {'create':>8} {'detect':>8} {'changeset':>9} {'execute':>8}  (s)")
        for size in sizes:
            t = cycle(sandbox, size)
            print(
                f"{size:>9} {t['create']:>8.3f} {t['detect']:>8.3f} "
                f"{t['change_set']:>9.3f} {t['execute']:>8.3f}"
            )


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [1, 10, 50])

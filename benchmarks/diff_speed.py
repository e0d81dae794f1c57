#!/usr/bin/env python3
"""How fast is ``cfnops diff``, and how does it compare with ``@aws-cdk/cloudformation-diff``?

Generates seeded template pairs with 100 / 500 / 1,000 / 2,000 resources that
refer to each other (Ref, Fn::GetAtt, Fn::Sub), with a few per cent of
create-only changes, in-place changes, additions, removals and type changes.
Times, per size (median of ``--repeat`` runs):

* ``cfnops diff OLD NEW -o json`` as a whole process;
* the in-process call (load both files + ``diff_templates``, warm);
* ``cfnops --version`` (the CLI's start-up alone, for reference);
* a lean process: ``python -c`` importing only ``cfnops.diff`` (load, diff, JSON
  out) — the bound ``cfnops diff`` reaches when the CLI's start-up is lean;
* when Node.js and npm are present: a small node script calling ``fullDiff``
  of ``@aws-cdk/cloudformation-diff`` (installed by this script into a temporary
  folder, or ``--cdk-dir``) on the same JSON files, as a whole process.

Prints the figures and the ratio cdk / cfnops. Nothing is asserted.

    python benchmarks/diff_speed.py [--sizes 100,500,1000,2000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _cdk import install_cdk

NODE_SCRIPT = """
const { fullDiff } = require('@aws-cdk/cloudformation-diff');
const fs = require('fs');
const a = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const b = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));
const d = fullDiff(a, b);
console.log(d.differenceCount);
"""


def _resource(rng: random.Random, i: int, names: list[str]) -> tuple[str, dict[str, Any]]:
    """One resource referring to earlier ones."""
    earlier = names[-50:] or ["Vpc"]
    target = rng.choice(earlier)
    kind = i % 6
    if kind == 0:
        return f"Bucket{i}", {
            "Type": "AWS::S3::Bucket",
            "Properties": {
                "BucketName": f"bench-bucket-{i}",
                "Tags": [{"Key": "team", "Value": f"t{i % 7}"}, {"Key": "idx", "Value": str(i)}],
            },
        }
    if kind == 1:
        return f"Queue{i}", {
            "Type": "AWS::SQS::Queue",
            "Properties": {
                "QueueName": {"Fn::Sub": "${" + target + "}-q" + str(i)},
                "VisibilityTimeout": 30,
            },
        }
    if kind == 2:
        return f"Topic{i}", {
            "Type": "AWS::SNS::Topic",
            "Properties": {
                "DisplayName": f"topic {i}",
                "TopicName": {"Fn::Join": ["-", [{"Ref": target}, "t"]]},
            },
        }
    if kind == 3:
        return f"Param{i}", {
            "Type": "AWS::SSM::Parameter",
            "Properties": {
                "Name": f"/bench/{i}",
                "Type": "String",
                "Value": {"Fn::GetAtt": [target, "Arn"]},
            },
        }
    if kind == 4:
        return f"Group{i}", {
            "Type": "AWS::EC2::SecurityGroup",
            "Properties": {
                "GroupDescription": f"group {i}",
                "VpcId": {"Ref": "Vpc"},
                "SecurityGroupIngress": [
                    {"IpProtocol": "tcp", "FromPort": p, "ToPort": p, "CidrIp": "10.0.0.0/8"}
                    for p in (80, 443, 8000 + i % 100)
                ],
            },
            "DependsOn": [target],
        }
    return f"Role{i}", {
        "Type": "AWS::IAM::Role",
        "Properties": {
            "RoleName": f"bench-role-{i}",
            "AssumeRolePolicyDocument": {
                "Version": "2012-10-17",
                "Statement": [
                    {
                        "Effect": "Allow",
                        "Principal": {"Service": "lambda.amazonaws.com"},
                        "Action": "sts:AssumeRole",
                    }
                ],
            },
            "Policies": [
                {
                    "PolicyName": "p",
                    "PolicyDocument": {
                        "Version": "2012-10-17",
                        "Statement": [
                            {
                                "Effect": "Allow",
                                "Action": "sqs:*",
                                "Resource": {"Fn::GetAtt": [target, "Arn"]},
                            }
                        ],
                    },
                }
            ],
        },
    }


def template_pair(size: int, seed: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(old, new)`` with ``size`` resources and seeded changes."""
    rng = random.Random(seed)
    resources: dict[str, Any] = {
        "Vpc": {"Type": "AWS::EC2::VPC", "Properties": {"CidrBlock": "10.0.0.0/16"}}
    }
    names = ["Vpc"]
    for i in range(size - 1):
        name, body = _resource(rng, i, names)
        resources[name] = body
        names.append(name)
    old = {"AWSTemplateFormatVersion": "2010-09-09", "Resources": resources}
    new_resources = json.loads(json.dumps(resources))
    for name in rng.sample(names[1:], k=max(1, size // 20)):  # create-only / in-place edits
        props = new_resources[name]["Properties"]
        if "BucketName" in props:
            props["BucketName"] += "-v2"
        elif "VisibilityTimeout" in props:
            props["VisibilityTimeout"] = 60
        elif "DisplayName" in props:
            props["DisplayName"] += " v2"
        elif "GroupDescription" in props:
            props["SecurityGroupIngress"].reverse()  # unordered: no difference
        else:
            props["Name" if "Name" in props else "RoleName"] += "-v2"
    for name in rng.sample(names[1:], k=max(1, size // 100)):  # removals
        new_resources.pop(name, None)
    for j in range(max(1, size // 100)):  # additions
        new_resources[f"Extra{j}"] = {
            "Type": "AWS::SQS::Queue",
            "Properties": {"QueueName": f"extra-{j}"},
        }
    new = {
        "AWSTemplateFormatVersion": "2010-09-09",
        "Resources": new_resources,
        "Outputs": {"VpcId": {"Value": {"Ref": "Vpc"}}},
    }
    return old, new


LEAN = (
    "import json, sys\n"
    "from cfnops.diff import diff_templates, load_template, to_json\n"
    "d = diff_templates(load_template(sys.argv[1]), load_template(sys.argv[2]))\n"
    "sys.stdout.write(json.dumps(to_json(d)))\n"
)


def _median_run(argv: list[str], repeat: int, cwd: Path | None = None) -> tuple[float, str] | None:
    """Median wall time and the last stdout; ``None`` (and a message) when it fails."""
    times: list[float] = []
    out = ""
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, check=False)
        times.append(time.perf_counter() - start)
        if proc.returncode != 0:
            print(
                f"  ! {' '.join(argv[:2])} failed ({proc.returncode}): "
                f"{proc.stderr.strip().splitlines()[-1:]}"
            )
            return None
        out = proc.stdout
    return statistics.median(times), out


def _cell(run: tuple[float, str] | None, digits: int = 2) -> str:
    return "fail" if run is None else f"{run[0]:.{digits}f}"


def _install_cdk(folder: Path | None) -> Path | None:
    target = folder or Path(tempfile.mkdtemp(prefix="cfnops-cdk-diff-"))
    found = install_cdk(target)
    if found is None:
        return None
    (target / "bench.js").write_text(NODE_SCRIPT, encoding="utf-8")
    print(found)
    return target


def _in_process(old: Path, new: Path, repeat: int) -> tuple[float, int]:
    from cfnops.diff import diff_templates, load_template

    diff_templates(load_template(old), load_template(new))  # warm: table, caches
    times, count = [], 0
    for _ in range(repeat):
        start = time.perf_counter()
        result = diff_templates(load_template(old), load_template(new))
        times.append(time.perf_counter() - start)
        count = result.difference_count
    return statistics.median(times), count


def _table_load_ms() -> float:
    from cfnops.schemas import load_table

    load_table.cache_clear()
    start = time.perf_counter()
    load_table("eu-west-1")
    return (time.perf_counter() - start) * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="cfnops diff speed vs @aws-cdk/cloudformation-diff"
    )
    parser.add_argument("--sizes", default="100,500,1000,2000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--cdk-dir", type=Path, default=None, help="reuse an npm folder")
    parser.add_argument("--no-cdk", action="store_true")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    cfnops = shutil.which("cfnops") or str(Path(sys.executable).parent / "cfnops")
    cdk = None if args.no_cdk else _install_cdk(args.cdk_dir)
    print(f"schema table load (one region): {_table_load_ms():.1f} ms")
    startup = _cell(_median_run([cfnops, "--version"], args.repeat))
    print(f"cfnops CLI start-up (cfnops --version): {startup} s")
    print(
        f"{'resources':>9} {'cfnops proc s':>13} {'lean proc s':>11} {'in-proc s':>9} "
        f"{'cdk proc s':>10} {'cdk/cfnops':>10} {'cdk/lean':>8} {'diffs cfnops/cdk':>16}"
    )
    with tempfile.TemporaryDirectory(prefix="cfnops-diff-bench-") as tmp:
        for size in sizes:
            old, new = template_pair(size, args.seed + size)
            old_path, new_path = Path(tmp) / f"old-{size}.json", Path(tmp) / f"new-{size}.json"
            old_path.write_text(json.dumps(old), encoding="utf-8")
            new_path.write_text(json.dumps(new), encoding="utf-8")
            files = [str(old_path), str(new_path)]
            proc = _median_run([cfnops, "diff", *files, "-o", "json"], args.repeat)
            lean = _median_run([sys.executable, "-c", LEAN, *files], args.repeat)
            in_s, count = _in_process(old_path, new_path, args.repeat)
            cdk_run = None
            if cdk is not None:
                cdk_run = _median_run(["node", str(cdk / "bench.js"), *files], args.repeat, cwd=cdk)
            ratio = "-" if cdk_run is None or proc is None else f"{cdk_run[0] / proc[0]:.2f}x"
            lean_ratio = "-" if cdk_run is None or lean is None else f"{cdk_run[0] / lean[0]:.2f}x"
            cdk_count = "-" if cdk_run is None else cdk_run[1].strip()
            cdk_cell = _cell(cdk_run) if cdk is not None else "-"
            print(
                f"{size:>9} {_cell(proc):>13} {_cell(lean):>11} {in_s:>9.3f} {cdk_cell:>10} "
                f"{ratio:>10} {lean_ratio:>8} {f'{count}/{cdk_count}':>16}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())

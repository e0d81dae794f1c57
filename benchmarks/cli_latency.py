"""Whole-process latency of ``cfnops`` commands, against a peer where one exists.

Every figure is the wall time of a fresh process, from ``exec`` to exit, as a user at a
shell sees it. Commands run interleaved (round 1: every command once, round 2: ...),
so a burst of load on a shared machine touches all of them alike; the report gives the
median and the range (min-max) per command.

Peers:

The diff pairs: a small real template (YAML and JSON), 100 and 500 generated
resources of two light types, and 2,000 realistic resources (``_realistic.py``:
13 resource types with nested properties and references, ~1 MB of JSON) with a
deploy's worth of edits.

- ``cfnops diff`` — cdk's diff library ``@aws-cdk/cloudformation-diff`` in node
  (``fullDiff`` + ``formatDifferences``), installed from the npm registry into
  ``--cache`` (outside the repository) on first use. It is handed the templates as
  JSON (YAML converted beforehand: node has no YAML parser built in), which only
  favours it.
- ``cfnops job run`` — moto's Step Functions engine (``execute_state_machine``) as
  a whole process: import moto, create the state machine, start an execution and
  wait for its end.

After the timings, ``python -X importtime`` of each command gives its most expensive
imports (cumulative, top level). Figures are printed, never asserted.

    python benchmarks/cli_latency.py                 # everything, 7 rounds
    python benchmarks/cli_latency.py --rounds 3 --only diff,guard
    python benchmarks/cli_latency.py --only help,completion     # Tab vs --help
    python benchmarks/cli_latency.py --only help,diff,job --base-src ../base/src  # a change

``--base-src`` adds each cfnops command run from another checkout's ``src/`` (the base
of a change, same venv) to the same interleaved rounds and prints the difference.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import yaml
from _cdk import install_cdk
from _realistic import edited as edit_realistic
from _realistic import realistic

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "cfn-templates"
SMALL = (
    "EC2/EC2InstanceWithSecurityGroupSample.yaml",
    "EC2/EC2InstanceWithSecurityGroupSample.json",
)
CFNOPS = [sys.executable, "-m", "cfnops"]

_CDK_SCRIPT = """
const fs = require('fs');
const { fullDiff, formatDifferences } = require('@aws-cdk/cloudformation-diff');
const [oldFile, newFile] = process.argv.slice(2);
const diff = fullDiff(JSON.parse(fs.readFileSync(oldFile, 'utf8')),
                      JSON.parse(fs.readFileSync(newFile, 'utf8')));
formatDifferences(process.stdout, diff);
"""

_MOTO_SCRIPT = """
import json, sys, time
from moto import mock_aws
import boto3

definition = open(sys.argv[1]).read()
with mock_aws(config={"stepfunctions": {"execute_state_machine": True}}):
    sfn = boto3.client("stepfunctions", region_name="us-east-1")
    arn = sfn.create_state_machine(
        name="bench", definition=definition,
        roleArn="arn:aws:iam::123456789012:role/sfn")["stateMachineArn"]
    run = sfn.start_execution(stateMachineArn=arn, input="{}")["executionArn"]
    while True:
        status = sfn.describe_execution(executionArn=run)["status"]
        if status != "RUNNING":
            break
        time.sleep(0.005)
    print(status)
"""


@dataclass(frozen=True)
class Case:
    name: str
    argv: list[str]
    env: dict[str, str] | None = None
    peer_of: str | None = None  # this case is the peer of that cfnops case
    base_of: str | None = None  # this case is that cfnops case run from --base-src


def _generated(n: int, changed: bool) -> dict[str, object]:
    resources: dict[str, object] = {}
    for i in range(n // 2):
        resources[f"Queue{i}"] = {
            "Type": "AWS::SQS::Queue",
            "Properties": {"QueueName": f"q-{i}{'-v2' if changed and i % 50 == 0 else ''}"},
        }
        resources[f"Topic{i}"] = {
            "Type": "AWS::SNS::Topic",
            "Properties": {
                "DisplayName": {"Fn::GetAtt": [f"Queue{i}", "QueueName"]},
                "Tags": [{"Key": "n", "Value": str(i + (1 if changed and i % 10 == 0 else 0))}],
            },
        }
    return {"AWSTemplateFormatVersion": "2010-09-09", "Resources": resources}


_PY_HANDLER = """import cfnresponse, uuid
def handler(event, context):
    cfnresponse.send(event, context, cfnresponse.SUCCESS, {}, str(uuid.uuid4()))
"""
_JS_HANDLER = """const response = require('cfn-response');
exports.handler = async (event, context) => {
  await response.send(event, context, response.SUCCESS, {}, Date.now().toString());
};
"""


def _guard_template(runtime: str, code: str, handler: str) -> dict[str, object]:
    return {
        "Resources": {
            "Fn": {
                "Type": "AWS::Lambda::Function",
                "Properties": {
                    "Runtime": runtime,
                    "Handler": handler,
                    "Role": "arn:aws:iam::123456789012:role/x",
                    "Code": {"ZipFile": code},
                },
            },
            "Custom": {
                "Type": "Custom::Thing",
                "Properties": {"ServiceToken": {"Fn::GetAtt": ["Fn", "Arn"]}},
            },
        }
    }


_PASS = {"StartAt": "P", "States": {"P": {"Type": "Pass", "Result": {"ok": True}, "End": True}}}
_LOOP = {
    "StartAt": "Init",
    "States": {
        "Init": {"Type": "Pass", "Result": {"i": 0}, "Next": "Check"},
        "Check": {
            "Type": "Choice",
            "Choices": [{"Variable": "$.i", "NumericGreaterThanEquals": 1000, "Next": "Done"}],
            "Default": "Inc",
        },
        "Inc": {
            "Type": "Pass",
            "Parameters": {"i.$": "States.MathAdd($.i, 1)"},
            "Next": "Check",
        },
        "Done": {"Type": "Succeed"},
    },
}


def _ensure_cdk(cache: Path) -> Path | None:
    found = install_cdk(cache)
    if found is None:
        return None
    script = cache / "cdk_diff.js"
    script.write_text(_CDK_SCRIPT, encoding="utf-8")
    print(f"cdk peer: {found}")
    return script


def _as_json(path: Path, work: Path) -> Path:
    if path.suffix == ".json":
        return path
    from cfnops.templates import load_template

    out = work / (path.stem + ".cdk.json")
    out.write_text(json.dumps(load_template(path), default=str), encoding="utf-8")
    return out


def bench_env(work: Path, src: Path | None) -> dict[str, str]:
    env = dict(os.environ, CFNOPS_DATABASE_URL=f"sqlite:///{work / 'bench.sqlite'}")
    # An installed cfnops has compiled bytecode (pip compiles on install): let the warm-up
    # round write it for a source checkout too, or every timed run compiles ~150 modules.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if src is not None:  # measure another checkout (e.g. the base of a change) with this venv
        env["PYTHONPATH"] = os.pathsep.join([str(src.resolve()), env.get("PYTHONPATH", "")])
    return env


def build_cases(work: Path, cache: Path, only: set[str], src: Path | None) -> list[Case]:
    cases: list[Case] = []
    env = bench_env(work, src)

    def want(group: str) -> bool:
        return not only or group in only

    cdk = _ensure_cdk(cache) if want("diff") else None
    if want("help"):
        cases.append(Case("cfnops --help", [*CFNOPS, "--help"], env))
    if want("completion"):  # what bash runs on Tab (Typer's protocol, see cli/completion.py)
        for label, words in (
            ("cfnops <Tab>", "cfnops "),
            ("cfnops --output <Tab>", "cfnops --output "),
            ("cfnops job <Tab>", "cfnops job "),
        ):
            asked = dict(
                env,
                _CFNOPS_COMPLETE="complete_bash",
                COMP_WORDS=words,
                COMP_CWORD=str(len(words.split())),
            )
            cases.append(Case(f"{label} (completion)", list(CFNOPS), asked))
    if want("diff"):
        pairs: list[tuple[str, Path, Path]] = []
        for rel in SMALL:
            path = CORPUS / rel
            if path.is_file():
                edited = work / f"edited-{path.name}.json"
                body = json.loads(json.dumps(_load(path), default=str))
                first = sorted(body["Resources"])[0]
                body["Resources"][first].setdefault("Properties", {})["Tags"] = [
                    {"Key": "bench", "Value": "1"}
                ]
                edited.write_text(json.dumps(body), encoding="utf-8")
                pairs.append((f"small {path.suffix[1:]}", path, edited))
            else:
                print(f"corpus template missing ({path}): skipped")
        for n in (100, 500):
            old, new = work / f"gen{n}-old.json", work / f"gen{n}-new.json"
            old.write_text(json.dumps(_generated(n, False)), encoding="utf-8")
            new.write_text(json.dumps(_generated(n, True)), encoding="utf-8")
            pairs.append((f"{n} resources", old, new))
        # 2,000 resources of 13 types with nested properties and references (~1 MB)
        big = realistic(2000)
        old, new = work / "real2000-old.json", work / "real2000-new.json"
        old.write_text(json.dumps(big), encoding="utf-8")
        new.write_text(json.dumps(edit_realistic(big)), encoding="utf-8")
        size = old.stat().st_size / 2**20
        pairs.append((f"2,000 realistic resources, {size:.1f} MiB", old, new))
        for label, old, new in pairs:
            name = f"cfnops diff ({label})"
            cases.append(Case(name, [*CFNOPS, "diff", str(old), str(new)], env))
            if cdk is not None:
                argv = ["node", str(cdk), str(_as_json(old, work)), str(_as_json(new, work))]
                cases.append(Case(f"cdk diff ({label})", argv, env, peer_of=name))
    if want("guard"):
        for label, runtime, code, handler in (
            ("Python handler", "python3.12", _PY_HANDLER, "index.handler"),
            ("Node.js handler", "nodejs20.x", _JS_HANDLER, "index.handler"),
        ):
            path = work / f"guard-{runtime}.yaml"
            path.write_text(yaml.safe_dump(_guard_template(runtime, code, handler)), "utf-8")
            cases.append(Case(f"cfnops guard ({label})", [*CFNOPS, "guard", str(path)], env))
        # the Python handler inside the 2,000-resource template, as JSON
        body = realistic(2000)
        body["Resources"].update(
            _guard_template("python3.12", _PY_HANDLER, "index.handler")["Resources"]  # type: ignore[arg-type]
        )
        path = work / "guard-real2000.json"
        path.write_text(json.dumps(body), "utf-8")
        argv = [*CFNOPS, "guard", str(path)]
        cases.append(Case("cfnops guard (Python, 2,000-resource JSON)", argv, env))
    if want("job"):
        for label, definition in (("one Pass state", _PASS), ("1,000-iteration loop", _LOOP)):
            path = work / f"job-{len(json.dumps(definition))}.asl.json"
            path.write_text(json.dumps(definition), encoding="utf-8")
            name = f"cfnops job run ({label})"
            cases.append(Case(name, [*CFNOPS, "--output", "json", "job", "run", str(path)], env))
            moto = work / "moto_sfn.py"
            moto.write_text(_MOTO_SCRIPT, encoding="utf-8")
            argv = [sys.executable, str(moto), str(path)]
            cases.append(Case(f"moto Step Functions ({label})", argv, env, peer_of=name))
    return cases


def _load(path: Path) -> dict[str, object]:
    from cfnops.templates import load_template

    return dict(load_template(path))


def _time(case: Case) -> float:
    start = time.perf_counter()
    proc = subprocess.run(case.argv, env=case.env, capture_output=True, text=True, check=False)
    took = time.perf_counter() - start
    if proc.returncode not in (0, 1):  # 1: diff/guard findings are not failures here
        raise SystemExit(f"{case.name} failed ({proc.returncode}): {proc.stderr[-800:]}")
    return took


def _fmt(values: list[float]) -> str:
    med = statistics.median(values)
    return f"{med:6.3f} s  (range {min(values):.3f}-{max(values):.3f})"


def _import_top(case: Case, n: int) -> list[tuple[float, str]]:
    if case.argv[:3] != CFNOPS:
        return []
    argv = [sys.executable, "-X", "importtime", *case.argv[1:]]
    proc = subprocess.run(argv, env=case.env, capture_output=True, text=True, check=False)
    rows: list[tuple[float, str]] = []
    for line in proc.stderr.splitlines():
        m = re.match(r"import time:\s+\d+ \|\s+(\d+) \|( *)(\S+)", line)
        if m and len(m.group(2)) <= 3:  # top-level imports and their direct children
            rows.append((int(m.group(1)) / 1e6, m.group(3).strip()))
    return sorted(rows, reverse=True)[:n]


# -- sandbox and demo: one timed scenario each ----------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _answers(url: str) -> bool:
    """Any HTTP answer counts (a checkout without the health route answers 404)."""
    try:
        urllib.request.urlopen(url, timeout=0.2).read()
        return True
    except urllib.error.HTTPError:
        return True
    except OSError:
        return False


def sandbox_times(env: dict[str, str]) -> tuple[float, float, float]:
    """Seconds from exec until ``cfnops sandbox up`` listens (its health route answers),
    until it answers a first CloudFormation request (``ListStacks``: moto and the
    extensions loaded), and from SIGINT to its exit."""
    import boto3

    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    cfn = boto3.session.Session(
        aws_access_key_id="testing", aws_secret_access_key="testing", region_name="us-east-1"
    ).client("cloudformation", endpoint_url=base)
    start = time.perf_counter()
    proc = subprocess.Popen(
        [*CFNOPS, "sandbox", "up", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    while not _answers(f"{base}/_cfnops/health"):
        if proc.poll() is not None or time.perf_counter() - start > 60:
            raise SystemExit("sandbox did not come up")
        time.sleep(0.01)
    listening = time.perf_counter() - start
    cfn.list_stacks()
    serving = time.perf_counter() - start
    stop_start = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=30)
    return listening, serving, time.perf_counter() - stop_start


def demo_time(env: dict[str, str], extra: list[str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(
        [*CFNOPS, "demo", "heal", *extra], env=env, capture_output=True, text=True, check=False
    )
    took = time.perf_counter() - start
    if proc.returncode not in (0, 3):
        print(f"demo heal exited {proc.returncode}: {proc.stderr[-500:]}")
    return took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--only", default="", help="help,completion,diff,guard,job,sandbox,demo")
    parser.add_argument(
        "--cache", type=Path, default=Path(tempfile.gettempdir()) / "cfnops-bench-cache"
    )
    parser.add_argument("--imports", type=int, default=6, help="importtime entries per command")
    parser.add_argument(
        "--src", type=Path, default=None, help="run cfnops from this src/ folder (a base checkout)"
    )
    parser.add_argument(
        "--base-src", type=Path, default=None, help="also run each command from this src/"
    )
    args = parser.parse_args()
    only = {x for x in args.only.split(",") if x}
    with tempfile.TemporaryDirectory(prefix="cfnops-bench-") as tmp:
        work = Path(tmp)
        cases = build_cases(work, args.cache, only, args.src)
        if args.base_src is not None:
            base_env = bench_env(work, args.base_src)
            cases += [
                Case(f"{c.name} [base]", c.argv, base_env, base_of=c.name)
                for c in list(cases)
                if c.argv[: len(CFNOPS)] == CFNOPS
            ]
        times: dict[str, list[float]] = {c.name: [] for c in cases}
        for case in cases:  # warm-up: bytecode caches, node's compile cache, the db schema
            _time(case)
        for _ in range(args.rounds):
            for case in cases:
                times[case.name].append(_time(case))
        print(f"\nwhole-process wall time, {args.rounds} interleaved rounds (median, range):")
        for case in cases:
            line = f"  {case.name:<48} {_fmt(times[case.name])}"
            if case.peer_of:
                ratio = statistics.median(times[case.name]) / statistics.median(times[case.peer_of])
                line += (
                    f"   cfnops is {ratio:.1f}x faster"
                    if ratio >= 1
                    else (f"   cfnops is {1 / ratio:.1f}x slower")
                )
            if case.base_of:
                delta = statistics.median(times[case.base_of]) - statistics.median(times[case.name])
                line += f"   this change: {delta * 1000:+.0f} ms"
            print(line)
        env = bench_env(work, args.src)
        if not only or "sandbox" in only:
            runs = [sandbox_times(env) for _ in range(3)]
            print(f"  {'cfnops sandbox up: ready (listening)':<48} {_fmt([r[0] for r in runs])}")
            print(
                f"  {'cfnops sandbox up: first CloudFormation answer':<48} "
                f"{_fmt([r[1] for r in runs])}"
            )
            print(
                f"  {'cfnops sandbox up: stop (SIGINT to exit)':<48} {_fmt([r[2] for r in runs])}"
            )
        if not only or "demo" in only:
            # the fast profile three times (median, range); the realistic one ~14 s, once
            for extra, runs in ((["--fast"], 3), ([], 1)):
                label = "cfnops demo heal " + " ".join(extra)
                print(f"  {label:<48} {_fmt([demo_time(env, extra) for _ in range(runs)])}")
        if args.imports:
            print("\npython -X importtime, most expensive imports (cumulative, top levels):")
            for case in cases:
                top = _import_top(case, args.imports)
                if top:
                    parts = ", ".join(f"{name} {sec * 1000:.0f} ms" for sec, name in top)
                    print(f"  {case.name}: {parts}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""What the toolchain features (#27) add to the commands that must not slow down.

Prints, for this checkout against ``--base-src`` (another checkout's ``src/``, same venv),
interleaved rounds of whole processes, as CPU seconds (user + system of the child: less
sensitive than wall time to other load on a shared machine) and wall seconds, medians:

- ``cfnops --help`` and ``cfnops diff`` of a small template pair,
- ``cfnops job run`` of a 1,000-iteration loop (3 states per iteration);

then, in this process, the cost of what runs on the hot paths when the features are
off: binding the log context and opening the (no-op) trace span per ASL state / step
attempt, and the import self-time of the modules the features added to ``cfnops diff``.

    python benchmarks/toolchain_overhead.py --base-src /tmp/base/src --rounds 15
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OLD = "Resources:\n  B:\n    Type: AWS::S3::Bucket\n    Properties: {BucketName: a}\n"
LOOP = {
    "StartAt": "Init",
    "States": {
        "Init": {"Type": "Pass", "Result": {"i": 0}, "Next": "Check"},
        "Check": {
            "Type": "Choice",
            "Choices": [{"Variable": "$.i", "NumericGreaterThanEquals": 1000, "Next": "Done"}],
            "Default": "Inc",
        },
        "Inc": {"Type": "Pass", "Parameters": {"i.$": "States.MathAdd($.i, 1)"}, "Next": "Check"},
        "Done": {"Type": "Succeed"},
    },
}


def _env(src: Path | None, work: Path) -> dict[str, str]:
    env = dict(os.environ, CFNOPS_DATABASE_URL=f"sqlite:///{work / 'bench.sqlite'}")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if src is not None:
        env["PYTHONPATH"] = str(src.resolve())
    return env


def _child(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{argv} failed: {done.stderr.decode()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-src", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "old.yaml").write_text(OLD)
        (work / "new.yaml").write_text(OLD.replace("{BucketName: a}", "{BucketName: a, Tags: []}"))
        (work / "loop.asl.json").write_text(json.dumps(LOOP))
        py = [sys.executable, "-m", "cfnops"]
        cases = {
            "cfnops --help": [*py, "--help"],
            "cfnops diff (small)": [*py, "diff", str(work / "old.yaml"), str(work / "new.yaml")],
            "cfnops job run (1,000-iteration loop)": [
                *py, "-o", "json", "job", "run", str(work / "loop.asl.json"),
            ],
        }  # fmt: skip
        envs = {"this": _env(ROOT / "src", work), "base": _env(args.base_src, work)}
        results: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for argv in cases.values():  # warm-up: bytecode, the database schema
            for env in envs.values():
                _child(argv, env)
        for _ in range(args.rounds):
            for name, argv in cases.items():
                for which, env in envs.items():
                    results.setdefault((name, which), []).append(_child(argv, env))
        print(f"whole process, {args.rounds} interleaved rounds, medians (CPU s / wall s):")
        for name in cases:
            this = results[(name, "this")]
            base = results[(name, "base")]
            cpu_t, cpu_b = (statistics.median(c for c, _ in r) for r in (this, base))
            wall_t, wall_b = (statistics.median(w for _, w in r) for r in (this, base))
            print(
                f"  {name:<40} this {cpu_t:.3f} / {wall_t:.3f}   base {cpu_b:.3f} / {wall_b:.3f}"
                f"   CPU {1000 * (cpu_t - cpu_b):+.0f} ms, wall {1000 * (wall_t - wall_b):+.0f} ms"
            )
    sys.path.insert(0, str(ROOT / "src"))
    from cfnops import logcontext, tracing

    def per_state() -> None:
        token = logcontext.bind(state="Inc")
        with tracing.span("state Inc"):
            pass
        logcontext.reset(token)

    n = 200_000
    ns = min(timeit.repeat(per_state, number=n, repeat=5)) / n * 1e9
    print(
        f"\nper ASL state / step attempt with logs and traces off: {ns:.0f} ns "
        f"({ns * 3000 / 1e6:.2f} ms for the 3,000 states of the 1,000-iteration loop)"
    )
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import cfnops.diff, cfnops.logcontext"],
        capture_output=True, text=True, env=_env(ROOT / "src", Path(tempfile.gettempdir())),
        check=True,
    )  # fmt: skip
    added = (
        "cfnops.diff._assembly", "cfnops.diff._render_assembly", "cfnops.diff._render_sarif",
        "cfnops.diff._sam", "cfnops.logcontext",
    )  # fmt: skip
    total = 0
    for line in out.stderr.splitlines():
        parts = [p.strip() for p in line.split("|")]
        if len(parts) == 3 and parts[2] in added:
            total += int(parts[0].split(":")[-1])
    print(f"import self-time of the modules added to `cfnops diff`: {total / 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Start-up cost of the settings: this checkout against another (the base of a change).

Whole processes, alternated pair by pair (the order swapped every round; round 0 is a
warm-up that is not counted), median and range of each side and the median of the
paired differences:

- ``config``: ``python -c "import cfnops.config, os; os._exit(0)"``;
- ``job``: ``python -m cfnops --output json job run`` of one Pass state (SQLite, no AWS
  configuration), each side with its own database.

    python benchmarks/settings_start.py --base-src ../base/src --rounds 21

Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PASS = {"StartAt": "A", "States": {"A": {"Type": "Pass", "End": True}}}


def _command(what: str, job: Path) -> list[str]:
    if what == "config":
        return [sys.executable, "-c", "import cfnops.config, os; os._exit(0)"]
    return [sys.executable, "-m", "cfnops", "--output", "json", "job", "run", str(job)]


def _env(src: Path, work: Path, side: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "CFNOPS_"))}
    env.update(
        PYTHONPATH=str(src), HOME=str(work), CFNOPS_DATABASE_URL=f"sqlite:///{work}/{side}.db"
    )
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-src", type=Path, required=True, help="the other src/ folder")
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--only", default="config,job", help="config,job")
    args = parser.parse_args()
    sides = {"this": ROOT / "src", "base": args.base_src.resolve()}
    with tempfile.TemporaryDirectory(prefix="settings-start-") as tmp:
        work = Path(tmp)
        job = work / "pass.asl.json"
        job.write_text(json.dumps(PASS), encoding="utf-8")
        for what in args.only.split(","):
            times: dict[str, list[float]] = {side: [] for side in sides}
            for round_ in range(args.rounds + 1):
                order = list(sides) if round_ % 2 == 0 else list(reversed(sides))
                for side in order:
                    env = _env(sides[side], work, side)
                    start = time.perf_counter()
                    subprocess.run(
                        _command(what, job),
                        env=env,
                        cwd=work,
                        check=True,
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                    )
                    if round_:  # round 0 writes bytecode and warms the caches
                        times[side].append(time.perf_counter() - start)
            print(f"{what} ({args.rounds} alternating pairs, load {os.getloadavg()[0]:.1f}):")
            for side, values in times.items():
                print(
                    f"  {side:5} median {statistics.median(values) * 1000:6.1f} ms  "
                    f"range {min(values) * 1000:.1f}-{max(values) * 1000:.1f} ms"
                )
            paired = [a - b for a, b in zip(times["this"], times["base"], strict=True)]
            print(f"  this - base, paired median: {statistics.median(paired) * 1000:+.1f} ms")


if __name__ == "__main__":
    main()

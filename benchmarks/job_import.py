"""How long ``cfnops job import`` takes for 3,000 jobs, per export format.

Synthetic exports (100 folders / root jobnets of 30 jobs: fan-out, fan-in, chains and an
"N" that is not series-parallel; a schedule each), plus one folder of 3,000 jobs. Times
the library (read → lay out → build → walk-check → strict validate → write) as the
median of ``--repeat`` rounds, and one end-to-end ``cfnops job import`` process.

    python benchmarks/job_import.py [--jobs 3000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cfnops.jobimport import plan_import, read_export, write_plan

PER_FOLDER = 30


def _deps(i: int) -> list[int]:
    """Predecessors of job i in a 30-job folder: 0 → 1..5 → 6 → chain → N-shape → end."""
    if i == 0:
        return []
    if i <= 5:
        return [0]
    if i == 6:
        return [1, 2, 3, 4, 5]
    if i == 26:  # the N: 24 → 26, 25 → 26, 25 → 27
        return [24, 25]
    if i == 27:
        return [25]
    if i == 25:
        return [23]
    return [i - 1]


def controlm_json(folders: int, per: int) -> bytes:
    data: dict[str, object] = {}
    for f in range(folders):
        folder: dict[str, object] = {
            "Type": "Folder",
            "When": {"WeekDays": ["MON", "WED"], "FromTime": "0200"},
        }
        for i in range(per):
            job: dict[str, object] = {
                "Type": "Job:Command",
                "Command": f"run.sh {f} {i}",
                "Host": f"host{f % 7}",
                "RunAs": "batch",
            }
            deps = [d for d in _deps(i) if d < per]
            if deps:
                job["eventsToWaitFor"] = {
                    "Type": "WaitForEvents",
                    "Events": [{"Event": f"F{f}-J{d}-OK"} for d in deps],
                }
            job["eventsToAdd"] = {"Type": "AddEvents", "Events": [{"Event": f"F{f}-J{i}-OK"}]}
            folder[f"J{i}"] = job
        data[f"F{f}"] = folder
    return json.dumps(data).encode()


def controlm_xml(folders: int, per: int) -> bytes:
    out = ['<?xml version="1.0" encoding="UTF-8"?>', "<DEFTABLE>"]
    for f in range(folders):
        out.append(f'<FOLDER FOLDER_NAME="F{f}" VERSION="919">')
        for i in range(per):
            out.append(
                f'<JOB JOBNAME="J{i}" TASKTYPE="Command" CMDLINE="run.sh {f} {i}" '
                f'NODEID="host{f % 7}" RUN_AS="batch" WEEKDAYS="1,3" TIMEFROM="0200">'
            )
            out += [f'<INCOND NAME="F{f}-J{d}-OK" ODATE="ODAT" AND_OR="A"/>' for d in _deps(i)]
            out.append(f'<OUTCOND NAME="F{f}-J{i}-OK" ODATE="ODAT" SIGN="+"/></JOB>')
        out.append("</FOLDER>")
    out.append("</DEFTABLE>")
    return "\n".join(out).encode()


def jp1(folders: int, per: int) -> bytes:
    out = ["unit=BENCH,,jp1admin,;", "{", "\tty=g;"]
    for f in range(folders):
        out += [
            f"\tunit=NET{f},,jp1admin,;",
            "\t{",
            "\t\tty=n;",
            "\t\tsd=1,2026/12/01;",
            "\t\tst=1,02:00;",
            "\t\tcy=1,(1,d);",
        ]
        out += [f"\t\tar=(f=J{d},t=J{i});" for i in range(per) for d in _deps(i)]
        for i in range(per):
            out += [
                f"\t\tunit=J{i},,jp1admin,;",
                "\t\t{",
                "\t\t\tty=j;",
                '\t\t\tsc="/opt/run.sh";',
                f'\t\t\tprm="{f} {i}";',
                '\t\t\tun="batch";',
                f'\t\t\tex="host{f % 7}";',
                "\t\t}",
            ]
        out.append("\t}")
    out.append("}")
    return "\n".join(out).encode()


def one_folder(jobs: int) -> bytes:
    """One folder of ``jobs`` jobs: blocks of 30 shaped as above, chained one after another."""
    folder: dict[str, object] = {"Type": "Folder", "When": {"FromTime": "0100"}}
    for i in range(jobs):
        block, j = divmod(i, PER_FOLDER)
        deps = [block * PER_FOLDER + d for d in _deps(j)]
        if j == 0 and block:
            deps = [block * PER_FOLDER - 1]
        job: dict[str, object] = {"Type": "Job:Command", "Command": f"run.sh {i}"}
        if deps:
            job["eventsToWaitFor"] = {
                "Type": "WaitForEvents",
                "Events": [{"Event": f"J{d}-OK"} for d in deps],
            }
        job["eventsToAdd"] = {"Type": "AddEvents", "Events": [{"Event": f"J{i}-OK"}]}
        folder[f"J{i}"] = job
    return json.dumps({"BIG": folder}).encode()


def _import(data: bytes, product: str, out: Path) -> tuple[float, int]:
    began = time.perf_counter()
    model = read_export(data, "bench", product)
    plan = plan_import(model, "bench")
    write_plan(plan, out)
    return time.perf_counter() - began, sum(n["jobs"] for n in plan.report["jobNets"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    folders = args.jobs // PER_FOLDER
    cases = {
        "Control-M JSON": (controlm_json(folders, PER_FOLDER), "controlm"),
        "Control-M XML": (controlm_xml(folders, PER_FOLDER), "controlm"),
        "JP1 ajsprint": (jp1(folders, PER_FOLDER), "jp1"),
        "one folder": (one_folder(args.jobs), "controlm"),
    }
    print(f"{'export':<16} {'jobs':>6} {'median s':>9} {'jobs/s':>8}")
    rounds: dict[str, list[float]] = {k: [] for k in cases}
    counts: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.repeat):  # interleaved rounds
            for name, (data, product) in cases.items():
                took, counts[name] = _import(data, product, Path(tmp) / f"{r}-{len(rounds[name])}")
                rounds[name].append(took)
        for name, times in rounds.items():
            med = statistics.median(times)
            print(f"{name:<16} {counts[name]:>6} {med:>9.2f} {counts[name] / med:>8.0f}")
        src = Path(tmp) / "export.json"
        src.write_bytes(cases["Control-M JSON"][0])
        began = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "cfnops",
                "job",
                "import",
                str(src),
                "--from",
                "controlm",
                "--out",
                str(Path(tmp) / "cli"),
                "--output",
                "json",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        print(f"cfnops job import (process, Control-M JSON): {time.perf_counter() - began:.2f} s")


if __name__ == "__main__":
    main()

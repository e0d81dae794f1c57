"""Every order the ASL adds to the source's dependencies is declared in the report."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from jobimport_helpers import DATA

from cfnops.jobimport import ended_before, plan_import, read_export

_ADDED = re.compile(r"^(\S+) also waits for (.+) \(added:")


def _declared(plan_report: dict) -> set[tuple[str, str]]:  # type: ignore[type-arg]
    out = set()
    for u in plan_report["unmapped"]:
        m = _ADDED.match(u["reason"])
        if u["kind"] == "dependency" and m:
            out.update((m.group(1), a) for a in m.group(2).split(", "))
    return out


def _closure(edges: set[tuple[str, str]], jobs: list[str]) -> set[tuple[str, str]]:
    """(waiting, waited for) pairs the source orders, by brute force."""
    anc = {j: {a for a, b in edges if b == j} for j in jobs}
    changed = True
    while changed:
        changed = False
        for j in jobs:
            more = set().union(*(anc[a] for a in anc[j])) - anc[j]
            if more:
                anc[j] |= more
                changed = True
    return {(j, a) for j in jobs for a in anc[j]}


def _folder(edges: list[tuple[int, int]], n: int) -> bytes:
    jobs: dict[str, object] = {}
    for i in range(n):
        job: dict[str, object] = {"Type": "Job:Dummy"}
        waits = [f"E{a}-{i}" for a, b in edges if b == i]
        adds = [f"E{i}-{b}" for a, b in edges if a == i]
        if waits:
            job["w"] = {"Type": "WaitForEvents", "Events": [{"Event": e} for e in waits]}
        if adds:
            job["a"] = {"Type": "AddEvents", "Events": [{"Event": e} for e in adds]}
        jobs[f"J{i:02d}"] = job
    folder = {"Type": "Folder", "When": {"WeekDays": ["MON"], "FromTime": "0100"}, **jobs}
    return json.dumps({"F": folder}).encode()


def test_every_added_order_of_a_tangled_folder_is_declared() -> None:
    rnd = random.Random(41)
    n = 20
    edges = sorted({(a, b) for a in range(n) for b in range(a + 1, n) if rnd.random() < 0.12})
    model = read_export(_folder(edges, n), "f.json", "controlm")
    plan = plan_import(model, "f.json")
    defn = plan.definitions["F"]
    jobs = [f"F/J{i:02d}" for i in range(n)]
    source = _closure({(f"F/J{a:02d}", f"F/J{b:02d}") for a, b in edges}, jobs)
    walked = {(j, a) for j, before in ended_before(defn).items() for a in before}
    added = walked - source
    assert added, "the graph should not be series-parallel"
    assert _declared(plan.report) == added


def test_the_payroll_export_declares_its_one_added_wait() -> None:
    data = (DATA / "controlm_payroll.xml").read_bytes()
    cal = (DATA / "controlm_defcal.xml").read_bytes()
    model = read_export(data, "p.xml", "controlm", calendars=cal)
    plan = plan_import(model, "p.xml")
    # GL_NIGHTLY: GL_A -> GL_C, GL_B -> GL_C, GL_B -> GL_D (an "N", by hand from the XML)
    assert _declared(plan.report) == {("GL_NIGHTLY/GL_D", "GL_NIGHTLY/GL_A")}


def test_series_parallel_exports_declare_no_added_wait(tmp_path: Path) -> None:
    for name in ("controlm_fin.json", "jp1_sales.txt"):
        product = "jp1" if name.startswith("jp1") else "controlm"
        plan = plan_import(read_export((DATA / name).read_bytes(), name, product), name)
        assert _declared(plan.report) == set(), name

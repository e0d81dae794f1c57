"""Cyclic job trains (dependency cycles) import as a bounded loop, never a refused file."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from jobimport_helpers import report

from cfnops.asl import HistoryRecorder, Interpreter
from cfnops.cli.main import run
from cfnops.jobimport import plan_import, read_export


def _ev(kind: str, *names: str) -> dict[str, Any]:
    return {"Type": kind, "Events": [{"Event": n} for n in names]}


_TRAIN = {
    "F": {
        "Type": "Folder",
        "When": {"WeekDays": ["MON"]},
        "Start": {"Type": "Job:Dummy", "a": _ev("AddEvents", "GO")},
        "A": {"Type": "Job:Dummy", "w": _ev("WaitForEvents", "GO", "C-OK"),
              "a": _ev("AddEvents", "A-OK")},
        "B": {"Type": "Job:Dummy", "w": _ev("WaitForEvents", "A-OK"),
              "a": _ev("AddEvents", "B-OK")},
        "C": {"Type": "Job:Dummy", "w": _ev("WaitForEvents", "B-OK"),
              "a": _ev("AddEvents", "C-OK")},
        "After": {"Type": "Job:Dummy", "w": _ev("WaitForEvents", "C-OK")},
    }
}  # fmt: skip


def _entered(definition: dict[str, Any]) -> Counter[str]:
    recorder = HistoryRecorder()
    result = Interpreter(definition).run({}, recorder=recorder)
    assert result.status == "SUCCEEDED"
    return Counter(
        e.details["name"]
        for e in recorder.events
        if e.type.endswith("StateEntered") and "name" in e.details
    )


def test_a_job_train_runs_as_a_loop_of_its_bound() -> None:
    plan = plan_import(read_export(json.dumps(_TRAIN).encode(), "t.json", "controlm"), "t.json")
    counts = _entered(plan.definitions["F"])
    # by hand: Start once, then A -> B -> C ten times (the default bound), then After once
    assert counts["Start"] == 1 and counts["After"] == 1
    assert counts["A"] == counts["B"] == counts["C"] == 10
    (note,) = [u for u in plan.report["unmapped"] if "job train" in u["reason"]]
    assert "F/A, F/B, F/C" in note["reason"] and "F/C -> F/A" in note["reason"]
    assert "at most 10 rounds" in note["reason"]


def test_the_bound_comes_from_the_trains_rerun_rule() -> None:
    doc = json.loads(json.dumps(_TRAIN))
    doc["F"]["B"]["Rerun"] = {"Every": "1", "Units": "Minutes", "Times": "4"}
    plan = plan_import(read_export(json.dumps(doc).encode(), "t.json", "controlm"), "t.json")
    assert _entered(plan.definitions["F"])["C"] == 5  # the first run and 4 more


@pytest.mark.parametrize(
    ("name", "text", "product", "net"),
    [
        (
            "flows.json",
            '{"F": {"Type": "Folder", "A": {"Type": "Job:Dummy"}, "B": {"Type": "Job:Dummy"}, '
            '"f1": {"Type": "Flow", "Sequence": ["A", "B"]}, '
            '"f2": {"Type": "Flow", "Sequence": ["B", "A"]}}}',
            "controlm",
            "F",
        ),
        (
            "conds.xml",
            '<DEFTABLE><FOLDER FOLDER_NAME="F"><JOB JOBNAME="A" TASKTYPE="Dummy">'
            '<INCOND NAME="B-OK"/><OUTCOND NAME="A-OK" SIGN="+"/></JOB>'
            '<JOB JOBNAME="B" TASKTYPE="Dummy"><INCOND NAME="A-OK"/>'
            '<OUTCOND NAME="B-OK" SIGN="+"/></JOB></FOLDER></DEFTABLE>',
            "controlm",
            "F",
        ),
        (
            "units.txt",
            'unit=N,,a,;\n{ty=n;ar=(f=A,t=B);ar=(f=B,t=A);\n unit=A,,a,;{ty=j;te="a";}\n'
            ' unit=B,,a,;{ty=j;te="b";}\n}\n',
            "jp1",
            "N",
        ),
    ],
    ids=["json-flows", "xml-conditions", "jp1-relations"],
)
def test_cycles_of_each_format_import_with_their_bound(
    tmp_path: Path, name: str, text: str, product: str, net: str
) -> None:
    src = tmp_path / name
    src.write_text(text)
    out = tmp_path / "out"
    assert run(["job", "import", str(src), "--from", product, "--out", str(out)]) == 0
    assert any("job train" in u["reason"] for u in report(out)["unmapped"])
    d = json.loads((out / f"{net}.asl.json").read_text())
    assert d["States"]["Train 1 again?"]["Choices"][0]["Condition"] == "{% $trainRound1 < 10 %}"
    assert run(["job", "validate", "--strict", str(out / f"{net}.asl.json")]) == 0

"""``--output markdown``: the review view (graph with added waits marked, grouped actions)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from jobimport_helpers import DATA, report

from cfnops.cli.main import run


def _markdown(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert run(["-o", "markdown", "job", "import", *args]) == 0
    return capsys.readouterr().out


def test_the_review_marks_the_added_wait_and_groups_the_actions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    md = _markdown(
        [str(DATA / "controlm_payroll.xml"), "--from", "controlm", "--calendars",
         str(DATA / "controlm_defcal.xml"), "--out", str(out)],
        capsys,
    )  # fmt: skip
    assert md == (out / "report.md").read_text()
    gl = md[md.index("## Job-net GL_NIGHTLY") :]
    ids = dict(re.findall(r'  (j\d+)\["GL_NIGHTLY/(GL_\w)"\]', gl))
    ids = {v: k for k, v in ids.items()}
    # by hand from the XML: A->C, B->C, B->D are the source's; D after A is the added wait
    source = {(ids["GL_A"], ids["GL_C"]), (ids["GL_B"], ids["GL_C"]), (ids["GL_B"], ids["GL_D"])}
    assert set(re.findall(r"  (j\d+) --> (j\d+)", gl)) == source
    assert re.findall(r"  (j\d+) -\. added \.-> (j\d+)", gl) == [(ids["GL_A"], ids["GL_D"])]
    assert "| GL_NIGHTLY/GL_D | GL_NIGHTLY/GL_B | **GL_NIGHTLY/GL_A** |" in gl
    counts = [int(n) for n in re.findall(r"^### .* \((\d+)\)$", md, re.M)]
    assert sum(counts) == len(report(out)["unmapped"])
    assert "### Check these dependencies and the waits the layout added (2)" in md


def test_names_reach_the_mermaid_graph_encoded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "f.json"
    events = [{"Event": "E"}]
    folder = {
        "Type": "Folder",
        'A"]; click j0 "x': {"Type": "Job:Dummy", "a": {"Type": "AddEvents", "Events": events}},
        "<b>": {"Type": "Job:Dummy", "w": {"Type": "WaitForEvents", "Events": events}},
    }
    src.write_text(json.dumps({"F": folder}))
    md = _markdown([str(src), "--from", "controlm", "--out", str(tmp_path / "o")], capsys)
    graph = md[md.index("```mermaid") : md.index("```", md.index("```mermaid") + 3)]
    assert '"F/A#34;]; click j0 #34;x"' in graph and '"F/#60;b#62;"' in graph
    assert "<b>" not in graph

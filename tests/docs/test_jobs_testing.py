"""docs/jobs.md "Testing job-nets": the worked example's command runs as written, as a
JUnit report (in a temporary folder), and every case passes; the cases the page names
are the mock file's."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "jobs.md"


def _documented_command() -> list[str]:
    lines = PAGE.read_text(encoding="utf-8").splitlines()
    found = [line for line in lines if line.startswith("$ cfnops job test ") and "--junit" in line]
    assert len(found) == 1, (
        f"docs/jobs.md should show one 'cfnops job test … --junit' line: {found}"
    )
    return shlex.split(found[0][len("$ cfnops ") :])


def test_worked_example_passes_as_a_junit_report(tmp_path: Path) -> None:
    argv = _documented_command()
    at = argv.index("--junit")
    report = tmp_path / Path(argv[at + 1]).name
    argv[at + 1] = str(report)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CFNOPS_", "AWS_"))}
    env.update(COLUMNS="200", NO_COLOR="1")
    done = subprocess.run(
        [sys.executable, "-m", "cfnops", *argv],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    suite = ET.fromstring(report.read_text(encoding="utf-8"))
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("3", "0", "0")
    names = [case.get("name") for case in suite.iter("testcase")]
    mocks = json.loads((ROOT / argv[argv.index("--mocks") + 1]).read_text())
    assert names == list(mocks["StateMachines"]["webapp-stop"]["TestCases"])
    page = PAGE.read_text(encoding="utf-8")
    for name in names:
        assert f"✔ {name}  " in page and f"- `{name}`" in page, name
    assert "3 cases: 3 passed, 0 failed" in done.stdout

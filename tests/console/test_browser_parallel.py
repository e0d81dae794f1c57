"""A failed Parallel in a real Chromium: each branch shows what it did, in the page and the CLI.

The run (``_parallel_run.py``): branch 0 ``A`` succeeds, branch 1 ``B`` fails
``DbStopFailed`` after one retry, branch 2 ``C`` is aborted when B fails
(``TaskStateAborted`` in the history). Step Functions shows such a run as branch
0 succeeded, branch 1 failed with B's own error, branch 2 aborted without any
error, and offers nothing to do on an aborted Task.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests._runtime import runtime_for
from tests._subprocess import worker_env
from tests.console._browser import ConsoleProcess, shot, sign_in

from cfnops.config import load_settings
from cfnops.jobs import JobService

pytestmark = pytest.mark.slow
playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
expect = playwright_api.expect
expect.set_options(timeout=20_000)  # a loaded CI machine; no timing is asserted
HERE = Path(__file__).resolve().parent
EXPECTED = {  # branch → (status, retries, error)
    0: ("SUCCEEDED", 0, None),
    1: ("FAILED", 1, "DbStopFailed"),
    2: ("ABORTED", 0, None),
}


@pytest.fixture(scope="module")
def parallel_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    db = tmp_path_factory.mktemp("parallel-run") / "runs.sqlite"
    done = subprocess.run(
        [sys.executable, str(HERE / "_parallel_run.py"), str(db), "par-1"],
        env=worker_env(db), capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == {"status": "FAILED"}
    history = JobService(runtime_for(load_settings(database_url=f"sqlite:///{db}"))).store.history(
        "par-1"
    )
    types = [e["type"] for e in history]
    # The shape under test really happened: B retried once, C was aborted.
    assert types.count("LambdaFunctionFailed") == 2 and "TaskStateAborted" in types
    return {"db": db}


@pytest.fixture(scope="module")
def console(parallel_run: dict[str, Any]) -> Iterator[ConsoleProcess]:
    process = ConsoleProcess(worker_env(parallel_run["db"]))
    yield process
    process.stop()


def _cli(db: Path) -> dict[str, Any]:
    shown = subprocess.run(
        [sys.executable, "-m", "cfnops", "-o", "json", "job", "show", "par-1"],
        env=worker_env(db), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    data: dict[str, Any] = json.loads(shown.stdout)
    return data


def test_branches_show_what_they_did(
    browser: Any, console: ConsoleProcess, parallel_run: dict[str, Any]
) -> None:
    cli = _cli(parallel_run["db"])
    branches = {i["index"]: i for i in cli["iterations"]["Stop"]}
    assert {i: (b["status"], b["retries"], b["error"]) for i, b in branches.items()} == EXPECTED
    assert "DbStopFailed" not in json.dumps(branches[2])  # C never carries B's error
    assert all(b["started"] and b["ended"] for b in branches.values())
    states = {s["name"]: s for s in cli["states"]}
    assert {n: states[n]["status"] for n in "ABC"} == {
        "A": "SUCCEEDED", "B": "FAILED", "C": "ABORTED",
    }  # fmt: skip
    assert (states["C"]["error"], states["C"]["cause"]) == (None, None)
    assert states["B"]["retries"] == 1 and states["C"]["exited"] is not None

    context = browser.new_context(viewport={"width": 1300, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    sign_in(page, console.url)
    page.goto(f"{console.url}/jobs/par-1")
    expect(page.locator("#run-status")).to_have_text("FAILED")
    # The console's JSON is the CLI's derivation.
    data = page.evaluate(
        "fetch(location.pathname + '/data', {headers: {Accept: 'application/json'}})"
        ".then((r) => r.json())"
    )
    assert {
        r["index"]: (r["status"], r["retries"], r["error"]) for r in data["iterations"]["Stop"]
    } == EXPECTED
    assert {n: data["statuses"][n] for n in "ABC"} == {n: states[n]["status"] for n in "ABC"}
    rows = page.locator("#iteration-table tbody tr")
    expect(rows).to_have_count(3)
    table = {}
    for i in range(3):
        cells = rows.nth(i).locator("td").all_inner_texts()
        table[int(cells[0].split()[-1])] = (cells[1], int(cells[3]), cells[4])
    assert table[0] == ("SUCCEEDED", 0, "")
    assert table[1][:2] == ("FAILED", 1) and table[1][2].startswith("DbStopFailed")
    assert table[2] == ("ABORTED", 0, "")
    colours = page.evaluate(
        "Object.fromEntries(cfnopsGraph.nodes().filter(n => n.data('name'))"
        ".map(n => [n.data('name'), n.data('status') || null]))"
    )
    assert (colours["A"], colours["B"], colours["C"]) == ("SUCCEEDED", "FAILED", "ABORTED")
    shot(page, "parallel-branches")
    # No Force on the aborted Task (it did not fail: a sibling's failure stopped it).
    page.locator('#state-list button[data-state="C"]').click()
    expect(page.locator("#panel-state")).to_have_text("C")
    assert "ABORTED" in page.locator("#state-panel .facts").inner_text()
    assert "DbStopFailed" not in page.locator("#state-panel").inner_text()
    assert page.get_by_role("button", name="Force the outcome of C").count() == 0
    page.locator('#state-list button[data-state="B"]').click()
    expect(page.locator("#panel-state")).to_have_text("B")
    assert "DbStopFailed" in page.locator("#state-panel").inner_text()
    context.close()
    assert errors == [], errors

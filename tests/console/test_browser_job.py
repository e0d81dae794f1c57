"""The Job run page in a real Chromium: Map iterations, live deltas, confirmations, phone.

The caught Map comes from a real run (``_map_run.py``: 50 iterations on local
functions, some retried, some caught inside, two failed); the expected status
of each iteration is read from the raw history events and its retries from the
function's own call log, not from the derivation under test.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests._runtime import runtime_for
from tests._subprocess import worker_env
from tests.console._browser import (
    UNNAMED_CONTROLS,
    ConsoleProcess,
    csp_violations,
    shot,
    sign_in,
    wait_until,
)

from cfnops.config import load_settings
from cfnops.jobs import JobService

pytestmark = pytest.mark.slow
playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
expect = playwright_api.expect
expect.set_options(timeout=20_000)  # a loaded CI machine; no timing is asserted
HERE = Path(__file__).resolve().parent
END = {"MapIterationSucceeded": "SUCCEEDED", "MapIterationFailed": "FAILED",
       "MapIterationAborted": "ABORTED"}  # fmt: skip


@pytest.fixture(scope="module")
def map_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The caught Map run, its raw history, and how often each item's function ran."""
    folder = tmp_path_factory.mktemp("map-run")
    db, log = folder / "runs.sqlite", folder / "calls.log"
    done = subprocess.run(
        [sys.executable, str(HERE / "_map_run.py"), str(db), "map-1", str(log)],
        env=worker_env(db), capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == {"status": "FAILED"}
    history = JobService(runtime_for(load_settings(database_url=f"sqlite:///{db}"))).store.history(
        "map-1"
    )
    statuses = {int(e["details"]["index"]): END[e["type"]] for e in history if e["type"] in END}
    calls = Counter(int(line.split()[0]) for line in log.read_text().splitlines())
    return {"db": db, "statuses": statuses, "calls": calls}


@pytest.fixture(scope="module")
def console(map_run: dict[str, Any]) -> Iterator[ConsoleProcess]:
    process = ConsoleProcess(worker_env(map_run["db"]))
    yield process
    process.stop()


@pytest.fixture
def page(browser: Any, console: ConsoleProcess) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1300, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    sign_in(page, console.url)
    yield page
    context.close()
    assert errors == [], errors


def _table(page: Any) -> dict[int, tuple[str, int]]:
    rows = page.locator("#iteration-table tbody tr")
    out = {}
    for i in range(rows.count()):
        cells = rows.nth(i).locator("td").all_inner_texts()
        out[int(cells[0].split()[-1])] = (cells[1], int(cells[3]))
    return out


def test_caught_map_iterations_match_the_history(
    page: Any, console: ConsoleProcess, map_run: dict[str, Any]
) -> None:
    refused = csp_violations(page)
    page.goto(f"{console.url}/jobs/map-1")
    expect(page.locator("#run-status")).to_have_text("FAILED")
    # The Map was caught (not "succeeded"); Work is FAILED over the whole run.
    colours = page.evaluate(
        "Object.fromEntries(cfnopsGraph.nodes().filter(n => n.data('name'))"
        ".map(n => [n.data('name'), n.data('status') || null]))"
    )
    assert colours["Fan"] == "CAUGHT" and colours["Report"] == "FAILED"
    assert colours["Work"] == "FAILED" and colours["Finish"] is None
    # A finished run: no Stop; Redrive offered.
    assert not page.get_by_role("button", name="Stop this run").is_visible()
    assert page.get_by_role("button", name="Redrive this run from the failed state").is_visible()
    # The table: every iteration's status from its end event, retries from the call log.
    expected = {i: (map_run["statuses"][i], map_run["calls"][i] - 1) for i in map_run["statuses"]}
    assert len(expected) == 50 and _table(page) == expected
    page.get_by_label("Status", exact=True).select_option("FAILED")
    failed = sorted(i for i, (s, _) in expected.items() if s == "FAILED")
    assert sorted(_table(page)) == failed == [23, 41]
    page.get_by_label("Status", exact=True).select_option("")
    shot(page, "map-iterations")
    # Selecting each iteration colours the graph for it, the same as the table says.
    for index, (status, retries) in sorted(expected.items()):
        page.locator("#iteration-table a", has_text=re.compile(rf"^iteration {index}$")).click()
        expect(page.locator("#scope-note")).to_have_text(f"showing Fan iteration {index}")
        wait_until(page, "(s) => cfnopsGraph.$id('Fan/iteration/Work').data('status') === s",
                   _work_status(map_run, index, status))  # fmt: skip
        label = page.locator('#state-list button[data-state="Work"]').get_attribute("aria-label")
        assert (f"{retries} retries" in label) == (retries > 0), (index, label)
    # A deep link keeps the state and the iteration; no Force on a caught or finished Task.
    page.goto(f"{console.url}/jobs/map-1?state=Work&iteration=17")
    expect(page.locator("#panel-state")).to_have_text("Work · Fan iteration 17")
    assert "CAUGHT" in page.locator("#state-panel .facts").inner_text()
    assert page.locator("#panel-retries").inner_text() == "1"
    assert page.get_by_role("button", name="Force the outcome of Work").count() == 0
    assert page.locator("#iteration-table tr.selected").get_attribute("data-index") == "17"
    page.goto(f"{console.url}/jobs/map-1?state=Work&iteration=23")
    expect(page.locator("#panel-state")).to_have_text("Work · Fan iteration 23")
    assert "FAILED" in page.locator("#state-panel .facts").inner_text()
    assert "Fatal" in page.locator("#state-panel").inner_text()
    shot(page, "map-deep-link")
    # The timeline: a bar per state and per iteration, retries noted.
    page.get_by_role("button", name="Timeline").click()
    expect(page.locator("#timeline .gantt-row")).to_have_count(3 + 50)  # fetched when shown
    assert "↻1" in page.locator(".gantt-row", has_text="Fan [23]").inner_text()
    shot(page, "timeline")
    page.locator(".gantt-row button", has_text="Fan [41]").click()
    expect(page.locator("#scope-note")).to_have_text("showing Fan iteration 41")
    assert page.evaluate(UNNAMED_CONTROLS) == []
    assert refused == [], refused
    # `cfnops job show` derives the same: one code path for the CLI and the console.
    shown = subprocess.run(
        [sys.executable, "-m", "cfnops", "-o", "json", "job", "show", "map-1"],
        env=worker_env(map_run["db"]), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    cli = json.loads(shown.stdout)
    assert {i["index"]: (i["status"], i["retries"]) for i in cli["iterations"]["Fan"]} == expected
    states = {s["name"]: (s["status"], s["retries"]) for s in cli["states"]}
    assert states["Fan"] == ("CAUGHT", 0) and states["Work"][0] == "FAILED"


def _work_status(map_run: dict[str, Any], index: int, status: str) -> str:
    """What Work did in an iteration, from the item's mode and the iteration's end."""
    if status != "SUCCEEDED":
        return status  # its Task failed (or was abandoned) with it
    mode = "bad" if index in (7, 17, 31, 44) else "ok"
    return "CAUGHT" if mode == "bad" else "SUCCEEDED"


def _big_run(db: Path, iterations: int) -> JobService:
    """A RUNNING job run with a Map of ``iterations`` items, 5 events each (+ 4)."""
    jobs = JobService(runtime_for(load_settings(database_url=f"sqlite:///{db}")))
    work = {"Type": "Task", "Resource": "arn:aws:lambda:us-east-1:1:function:w", "End": True}
    definition = {"StartAt": "Fan", "States": {"Fan": {
        "Type": "Map", "ItemProcessor": {"StartAt": "Work", "States": {"Work": work}},
        "Next": "Last"}, "Last": {"Type": "Task", "Resource": "x", "End": True}}}  # fmt: skip
    jobs.store.create_run("big-1", "big", definition, {"items": list(range(iterations))})
    t = time.time() - 60
    rows = [(1, 0, "ExecutionStarted", t, "{}"),
            (2, 1, "MapStateEntered", t, json.dumps({"name": "Fan", "input": "{}"})),
            (3, 2, "MapStateStarted", t, "{}")]  # fmt: skip
    eid = 3
    for i in range(iterations):
        start = eid + 1
        payload = json.dumps({"item": i, "padding": "x" * 40})
        it, ti = json.dumps({"index": i, "name": "Fan"}), t + i * 0.01
        work_in = json.dumps({"name": "Work", "input": payload})
        work_out = json.dumps({"name": "Work", "output": "1"})
        rows += [
            (start, 3, "MapIterationStarted", ti, it),
            (start + 1, start, "TaskStateEntered", ti, work_in),
            (start + 2, start + 1, "LambdaFunctionScheduled", ti, json.dumps({"resource": "w"})),
            (start + 3, start + 2, "TaskStateExited", ti + 0.02, work_out),
            (start + 4, start + 3, "MapIterationSucceeded", ti + 0.02, it),
        ]
        eid = start + 4
    jobs.store.write_events("big-1", rows)
    return jobs


def test_a_10000_event_run_opens_pages_its_history_and_updates_by_delta(
    browser: Any, tmp_path: Path
) -> None:
    db = tmp_path / "runs.sqlite"
    jobs = _big_run(db, 2000)
    assert len(jobs.store.history("big-1")) == 10_003
    console = ConsoleProcess(worker_env(db))
    context = browser.new_context(viewport={"width": 1300, "height": 1000})
    page = context.new_page()
    try:
        sign_in(page, console.url)
        answer = page.goto(f"{console.url}/jobs/big-1")
        assert len(answer.body()) < 400_000  # the newest events only, not all 10,000
        expect(page.locator("#history-count")).to_have_text("200 events loaded")
        assert page.locator("#iter-count").inner_text() == "2000 of 2000"
        assert page.locator("#iteration-table tbody tr").count() == 200  # the rest on demand
        page.get_by_role("button", name="Show all 2000").click()
        expect(page.locator("#iteration-table tbody tr")).to_have_count(2000)
        page.get_by_role("button", name="Load older events").click()
        expect(page.locator("#history-count")).to_have_text("700 events loaded")
        # The user types in the filter and the Rerun form while updates arrive.
        page.get_by_label("Filter events").fill("TaskState")
        page.get_by_label("Filter events").press("End")
        page.evaluate("window.cfnopsUpdates = 0")
        t = time.time()
        jobs.store.write_events("big-1", [
            (10_004, 2, "MapStateExited", t, json.dumps({"name": "Fan", "output": "[]"})),
            (10_005, 10_004, "TaskStateEntered", t, json.dumps({"name": "Last", "input": "{}"})),
            (10_006, 10_005, "TaskScheduled", t, json.dumps({"resource": "x"})),
        ])  # fmt: skip
        expect(page.locator('#history-table tr[data-id="10005"]')).to_have_count(1)
        update = json.loads(page.evaluate("window.cfnopsLastUpdate"))
        assert [e["id"] for e in update.get("events", [])][-3:] == [10_004, 10_005, 10_006]
        assert "history" not in update and len(update["events"]) <= 3
        assert set(update.get("statuses", {})) <= {"Fan", "Last"}
        assert len(page.evaluate("window.cfnopsLastUpdate")) < 4_000
        assert page.get_by_label("Filter events").input_value() == "TaskState"
        assert page.evaluate("document.activeElement.id") == "history-filter"
        assert (
            page.locator('#state-list button[data-state="Last"]').get_attribute("data-status")
            == "RUNNING"
        )
        # A hold made from elsewhere (the CLI's library call) shows without a reload.
        jobs.hold("big-1", actor="cli-user", reason="freeze")
        expect(page.locator("#held-note")).to_be_visible()
        expect(page.locator("#audit-table")).to_contain_text("freeze")
        expect(page.get_by_role("button", name="Release")).to_be_visible()
        shot(page, "big-run")
    finally:
        context.close()
        console.stop()


def test_confirmations_by_keyboard_only(browser: Any, tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    jobs = JobService(runtime_for(load_settings(database_url=f"sqlite:///{db}")))
    wait = {"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 600, "End": True}}}
    jobs.store.create_run("kb-1", "wait", wait, {})
    console = ConsoleProcess(worker_env(db))
    context = browser.new_context(viewport={"width": 1300, "height": 1000})
    page = context.new_page()
    try:
        sign_in(page, console.url)
        page.goto(f"{console.url}/jobs/kb-1")
        stop = page.get_by_role("button", name="Stop this run")
        stop.focus()
        page.keyboard.press("Enter")
        dialog = page.locator("dialog#confirm")
        expect(dialog).to_be_visible()
        assert "run ends ABORTED" in page.locator("#confirm-consequence").inner_text()
        assert page.evaluate("document.activeElement.id") == "confirm-reason"
        page.keyboard.press("Escape")  # cancelled: nothing asked of the run
        expect(dialog).to_be_hidden()
        assert page.evaluate("document.activeElement.getAttribute('aria-label')") == (
            "Stop this run"
        )
        page.keyboard.press("Enter")
        expect(dialog).to_be_visible()
        page.keyboard.press("Tab")  # Cancel
        page.keyboard.press("Tab")  # Confirm, without a reason: refused in the dialog
        page.keyboard.press("Enter")
        expect(page.locator("#confirm-missing")).to_be_visible()
        assert page.evaluate("document.activeElement.id") == "confirm-reason"
        page.keyboard.type("runaway batch, INC-7")
        shot(page, "confirm")
        page.keyboard.press("Tab")
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.id") == "confirm-ok"
        with page.expect_request(lambda r: r.method == "POST") as posted:
            page.keyboard.press("Enter")
        assert "reason=runaway+batch%2C+INC-7" in (posted.value.post_data or "")
        expect(page.locator("#audit-table")).to_contain_text("runaway batch, INC-7", timeout=15_000)
        assert "stop" in page.locator("#audit-table").inner_text()
        assert jobs.store.get_run("kb-1").status in ("RUNNING", "ABORTED")
    finally:
        context.close()
        console.stop()


@pytest.mark.parametrize(
    "path",
    [
        "/runs",
        "/jobs/map-1",
        "/jobs/map-1?state=Work&iteration=23",
        "/heal",
        "/definitions",
        "/schedules",
        "/audit",
    ],
    ids=lambda p: p.strip("/").replace("/", "-").replace("?", "-") or "root",
)
def test_phone_width_has_no_sideways_scroll(
    browser: Any, console: ConsoleProcess, path: str
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    try:
        sign_in(page, console.url)
        page.goto(console.url + path)
        page.wait_for_timeout(400)  # the graph and tables drawn
        widths = page.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        assert widths[0] <= widths[1], (path, widths)
        if path.startswith("/jobs"):  # the state panel comes below the graph
            graph = page.locator("#graph").bounding_box()
            panel = page.locator("#state-panel").bounding_box()
            assert panel["y"] > graph["y"] + graph["height"] - 1
        name = re.sub(r"\W+", "-", path.strip("/")) or "root"
        shot(page, f"phone-{name}")
    finally:
        context.close()


def test_large_graph_is_readable_and_zooms_fits_collapses(browser: Any, tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    jobs = JobService(runtime_for(load_settings(database_url=f"sqlite:///{db}")))
    states: dict[str, Any] = {}
    for i in range(100):
        states[f"Step{i:03d}"] = {"Type": "Pass", "Next": f"Step{i + 1:03d}"}
    inner = {f"In{j}": {"Type": "Pass", "Next": f"In{j + 1}"} for j in range(10)}
    inner["In10"] = {"Type": "Succeed"}
    states["Step100"] = {"Type": "Map", "ItemProcessor": {"StartAt": "In0", "States": inner},
                         "End": True}  # fmt: skip
    jobs.store.create_run("wide-1", "wide", {"StartAt": "Step000", "States": states}, {})
    console = ConsoleProcess(worker_env(db))
    context = browser.new_context(viewport={"width": 1300, "height": 1000})
    page = context.new_page()
    try:
        sign_in(page, console.url)
        page.goto(f"{console.url}/jobs/wide-1")
        wait_until(page, "() => cfnopsGraph && cfnopsGraph.zoom() > 0")
        # 112 states: Map bodies start collapsed and the view stays readable (>= 0.75).
        assert page.evaluate("cfnopsGraph.nodes(':visible').length") < 112
        assert page.evaluate("cfnopsGraph.zoom()") >= 0.75
        shot(page, "large-graph")
        before = page.evaluate("cfnopsGraph.zoom()")
        page.get_by_role("button", name="Zoom in").click()
        assert page.evaluate("cfnopsGraph.zoom()") > before
        page.get_by_role("button", name="Expand Map/Parallel").click()
        assert page.evaluate("cfnopsGraph.nodes(':visible').length") == 113  # + Start
        assert page.get_by_role("button", name="Collapse Map/Parallel").count() == 1
        # The graph follows its panel's size (a narrower window, no reload).
        page.set_viewport_size({"width": 900, "height": 1000})
        wait_until(page, "() => Math.abs(cfnopsGraph.width() - "
                         "document.getElementById('graph').clientWidth) < 2")  # fmt: skip
        page.get_by_role("button", name="Fit").click()
        wait_until(
            page,
            "() => { const b = cfnopsGraph.elements(':visible').renderedBoundingBox();"
            " return b.x1 >= -1 && b.y1 >= -1 && b.x2 <= cfnopsGraph.width() + 1; }",
        )
    finally:
        context.close()
        console.stop()


def test_a_live_page_refused_once_by_the_server_keeps_updating(
    browser: Any, tmp_path: Path
) -> None:
    # A browser's EventSource gives up for good on an error answer (a database restart, a
    # proxy's 502): the page opens its stream again and gets what happened meanwhile.
    db = tmp_path / "runs.sqlite"
    jobs = _big_run(db, 3)
    console = ConsoleProcess(worker_env(db))
    context = browser.new_context(viewport={"width": 1300, "height": 1000})
    page = context.new_page()
    opened: list[str] = []

    def refuse_first(route: Any) -> None:
        opened.append(route.request.url)
        if len(opened) == 1:
            route.fulfill(status=503, body="database restarting")
        else:
            route.continue_()

    try:
        sign_in(page, console.url)
        page.route(re.compile(r".*/jobs/big-1/stream.*"), refuse_first)
        page.goto(f"{console.url}/jobs/big-1")
        t = time.time()
        jobs.store.write_events("big-1", [
            (20, 2, "MapStateExited", t, json.dumps({"name": "Fan", "output": "[]"})),
            (21, 20, "TaskStateEntered", t, json.dumps({"name": "Last", "input": "{}"})),
        ])  # fmt: skip
        expect(page.locator('#history-table tr[data-id="21"]')).to_have_count(1)
        assert len(opened) >= 2, opened
        # opened again from the last event the page had, so nothing arrives twice
        assert page.locator('#history-table tr[data-id="20"]').count() == 1
    finally:
        context.close()
        console.stop()

"""Many runs at once in a real Chromium: 30 failed job runs rerun in one action.

The runs are real failed executions (``_failed_runs.py``). The operator filters the Runs
page, chooses Rerun for every job run matching, reads the dry run (the count and the
consequence), gives one reason and confirms once: 30 audit rows, 30 new runs. The hold
on a job's page asks for a reason in the confirmation dialog. Screenshots are kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests._runtime import database_for, runtime_for
from tests._subprocess import worker_env
from tests.console._browser import ConsoleProcess, shot, sign_in
from tests.console.test_batch import record_failed_runs

from cfnops.config import load_settings
from cfnops.durable import AuditLog
from cfnops.jobs import JobService

pytestmark = pytest.mark.slow
playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
WAIT = {"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 600, "End": True}}}


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert errors == [], errors


def test_thirty_failed_runs_rerun_from_the_console_in_one_action(page: Any, tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    record_failed_runs(db, 30, "inc")
    settings = load_settings(database_url=f"sqlite:///{db}")
    jobs = JobService(runtime_for(settings))
    console = ConsoleProcess(worker_env(db))
    try:
        sign_in(page, console.url)
        page.goto(f"{console.url}/runs?status=FAILED&kind=job")
        assert page.locator("#runs-table input[name=run]").count() == 30
        page.get_by_label("Act on job runs").select_option("rerun")
        page.get_by_label("every job run matching the filters").check()
        page.get_by_role("button", name="Preview…").click()
        page.get_by_role("heading", name="Rerun 30 runs?").wait_for()
        consequence = page.locator("#batch-consequence").inner_text()
        assert consequence.startswith("Rerun 30 runs: each starts again from its start")
        assert page.locator("#batch-runs tr[data-ok=yes]").count() == 30
        assert len(jobs.store.list_runs(limit=100)) == 30  # the dry run did nothing
        shot(page, "batch-preview")
        page.get_by_label("Reason", exact=False).fill("INC-42: the database is back")
        page.get_by_role("button", name="Rerun 30 runs").click()
        page.locator("#batch-summary").wait_for()
        assert "30 of 30 runs: rerun done" in page.locator("#batch-summary").inner_text()
        assert page.locator("#batch-runs tr[data-ok=yes]").count() == 30
        shot(page, "batch-done")
        with AuditLog(database_for(settings)) as audit:
            rows = [e for e in audit.list(limit=200) if e.action == "rerun"]
        assert len(rows) == 30 and {e.reason for e in rows} == {"INC-42: the database is back"}
        assert len({e.target for e in rows}) == 30
        reruns = [r for r in jobs.store.list_runs(limit=100) if r.source == "rerun"]
        assert len(reruns) == 30
        assert {r.run_id for r in reruns} == {f"inc-{i:02d}-rerun1" for i in range(30)}
    finally:
        console.stop()


def test_hold_asks_for_a_reason_in_the_confirmation(page: Any, tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    record_failed_runs(db, 1, "seed")  # the run tables exist
    jobs = JobService(runtime_for(load_settings(database_url=f"sqlite:///{db}")))
    jobs.store.create_run("long-1", "wait", WAIT, {})
    console = ConsoleProcess(worker_env(db))
    try:
        sign_in(page, console.url)
        page.goto(f"{console.url}/jobs/long-1")
        page.get_by_role("button", name="Hold this run").click()
        dialog = page.locator("#confirm")
        assert "no new state starts until the run is released" in dialog.inner_text()
        page.locator("#confirm-ok").click()  # no reason yet: refused in the dialog
        assert page.locator("#confirm-missing").is_visible()
        assert jobs.lineage("long-1")["held"] is False
        page.locator("#confirm-reason").fill("change freeze")
        page.locator("#confirm-ok").click()
        page.locator("#held-note").wait_for()
        assert jobs.lineage("long-1")["held"] is True
        assert jobs.lineage("long-1")["operatorActions"][-1]["reason"] == "change freeze"
    finally:
        console.stop()

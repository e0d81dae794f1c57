"""A durable run's execution history in a real Chromium: rows, details, pages, no script.

The execution is a real Lambda durable execution (``_durable_run.py``) whose step
names, input and results carry markup that would set ``window.__xss`` if it ran.
The viewer's page must show that markup as text, run none of it and have Chromium
report no Content-Security-Policy refusal. Screenshots go to the test artefacts.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests._subprocess import worker_env
from tests.console._browser import ConsoleProcess, csp_violations, shot, sign_in
from tests.console._durable_run import MARK
from tests.console.test_run_history import durable_run

pytestmark = pytest.mark.slow
playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")

VIEWER = "viewer-token-0123456789"
STEPS = 120  # 249 events: three pages of 100


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    yield context.new_page()
    context.close()


def _rows(page: Any) -> list[dict[str, str]]:
    return list(
        page.evaluate(
            """() => [...document.querySelectorAll('#run-history tbody tr')].map((tr) => {
                 const c = tr.querySelectorAll(':scope > td');
                 return {id: c[0].textContent, type: c[2].textContent, sub: c[3].textContent,
                         op: c[4].textContent, parent: c[5].textContent,
                         name: c[6].textContent, time: c[1].textContent};
               })"""
        )
    )


def test_a_viewer_sees_the_history_of_a_durable_run_as_text(page: Any, tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    execution = durable_run(str(db), STEPS)
    tokens = tmp_path / "tokens"
    tokens.write_text(f"vera:viewer:{VIEWER}\n")
    console = ConsoleProcess(worker_env(db), "--token-file", str(tokens))
    refused = csp_violations(page)
    try:
        sign_in(page, console.url, VIEWER)
        page.goto(f"{console.url}/runs/{execution['run_id']}")
        heading = page.get_by_role("heading", name="Execution history")
        assert heading.is_visible()
        rows = _rows(page)
        assert len(rows) == 100
        assert [r["id"] for r in rows] == [str(i) for i in range(1, 101)]
        assert rows[0]["type"] == "ExecutionStarted"
        assert (rows[1]["type"], rows[1]["sub"]) == ("StepStarted", "Step")
        # The markup in the step's name is the cell's text, not an element
        assert rows[1]["name"] == f"step-0 {MARK}"
        assert rows[1]["time"].startswith("20") and rows[1]["op"] != "-"
        assert page.locator("#run-history img, #run-history script").count() == 0
        # Details are collapsed; opened, they show the markup as text too
        started = page.locator('#run-history tr[data-event="1"] details')
        assert started.evaluate("(d) => d.open") is False
        started.locator("summary").click()
        detail = started.locator("pre.detail")
        assert detail.is_visible() and "window.__xss=1" in detail.inner_text()
        result = page.locator('#run-history tr[data-event="3"] details')
        result.locator("summary").click()
        assert "<img src=x" in result.locator("pre.detail").inner_text()
        heading.scroll_into_view_if_needed()
        shot(page, "run-history")
        # The last page: the big result cut and collapsed, the child context's step
        # carries the context's id as its parent
        page.get_by_role("link", name="Latest events").click()
        page.wait_for_url("**history=3#history")
        last = _rows(page)
        assert last[-1]["type"] == "ExecutionSucceeded"
        assert last[-1]["id"] == str(execution["events"])
        child = next(r for r in last if r["type"] == "ContextStarted")
        inner = next(r for r in last if r["name"] == f"inner {MARK}")
        assert child["sub"] == "RunInChildContext" and inner["parent"] == child["op"]
        big = page.locator("#run-history tr", has_text="big").filter(has_text="StepSucceeded")
        big.locator("summary").click()
        assert "more characters" in big.locator("details").inner_text()
        page.locator(f'#run-history tr[data-event="{inner["id"]}"]').scroll_into_view_if_needed()
        shot(page, "run-history-last-page")
        page.get_by_role("link", name="Earlier events").click()
        page.wait_for_url("**history=2#history")
        assert _rows(page)[0]["id"] == "101"
        assert page.evaluate("() => window.__xss") is None
        assert refused == []
    finally:
        console.stop()

"""Console security in a real Chromium: no script from data, CSP holds, roles, sessions.

A sentinel global (``window.__xss``) is set by every payload if it ever runs;
the tests check it stays undefined and that Chromium reported no CSP refusal
(our own pages use no inline script or style, so any refusal is a bug too).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests._runtime import runtime_for
from tests._subprocess import worker_env
from tests.console._browser import (
    TOKEN,
    ConsoleProcess,
    csp_violations,
    shot,
    sign_in,
)

from cfnops.config import load_settings
from cfnops.jobs import JobService, TriggerService

pytestmark = pytest.mark.slow
playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")

MARK = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>'
FILE_MARK = "<img src=x onerror=window.__xss=3>"


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    yield context.new_page()
    context.close()


def _markup_run(db: Path) -> None:
    """A failed job run with markup in every field a page shows, and a schedule."""
    settings = load_settings(database_url=f"sqlite:///{db}")
    jobs = JobService(runtime_for(settings))
    task = f"Task {MARK}"
    definition = {
        "Comment": MARK,
        "StartAt": task,
        "States": {task: {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke",
                          "Comment": MARK, "End": True}},
    }  # fmt: skip
    jobs.store.create_run("markup-1", f"net{MARK}", definition, {"k": MARK})
    t = time.time()
    payload = json.dumps({"k": MARK})
    events = [
        (1, 0, "ExecutionStarted", t, json.dumps({"input": payload})),
        (2, 1, "TaskStateEntered", t + 1, json.dumps({"name": task, "input": payload})),
        (3, 2, "TaskScheduled", t + 1, json.dumps({"resource": MARK})),
        (4, 3, "TaskFailed", t + 2, json.dumps({"error": f"E{MARK}", "cause": MARK})),
        (5, 4, "ExecutionFailed", t + 2, json.dumps({"error": f"E{MARK}", "cause": MARK})),
    ]
    jobs.store.write_events("markup-1", events)
    jobs.store.finish_run("markup-1", "FAILED", None, f"E{MARK}", MARK)
    wait = {"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 1, "End": True}}}
    TriggerService(jobs).add_schedule(
        "nightly", f"n{MARK}.asl.json", wait, "cron(0 3 * * ? *)", "UTC", {"x": MARK}
    )


def test_no_script_runs_from_file_names_or_run_data(page: Any, tmp_path: Path) -> None:
    db, defs = tmp_path / "runs.sqlite", tmp_path / "defs"
    defs.mkdir()
    env = worker_env(db, CFNOPS_CONSOLE__DEFINITION_ROOTS=json.dumps([str(defs)]))
    console = ConsoleProcess(env)
    try:
        _markup_run(db)
        refused = csp_violations(page)
        sign_in(page, console.url)
        loads = 0
        for path in ("/runs", "/runs?kind=job", "/jobs/markup-1", "/schedules", "/audit",
                     "/jobs/markup-1/data"):  # fmt: skip
            page.goto(console.url + path)
            loads += 1
            assert page.evaluate("window.__xss") is None, path
        page.goto(f"{console.url}/jobs/markup-1")
        page.locator("#state-list button").first.click()
        page.wait_for_selector("#panel-state")
        assert MARK in page.locator("#state-panel").inner_text()
        assert MARK in page.locator("#run-error").inner_text()
        shot(page, "markup-escaped")
        # The file-name XSS: open a file whose name is markup, then delete it; the live
        # error names the file as text.
        named = defs / f"{FILE_MARK}.json"
        named.write_text('{"StartAt": "A", "States": {"A": {"Type": "Succeed"}}}')
        page.goto(f"{console.url}/definitions")
        page.get_by_label("Definition file on the console's machine").fill(str(named))
        page.get_by_role("button", name="Open").click()
        page.wait_for_selector("#def-result h2")
        assert FILE_MARK in page.locator("#def-result h2").inner_text()
        named.unlink()
        alert = page.locator("#def-result [role=alert]")
        alert.wait_for(timeout=10_000)
        assert FILE_MARK in alert.inner_text()
        assert page.locator("#def-result img").count() == 0
        time.sleep(0.5)  # an injected handler would have fired by now
        assert page.evaluate("window.__xss") is None
        assert refused == [], refused
        assert loads >= 6
    finally:
        console.stop()


def test_csp_headers_and_framing_refused(page: Any, tmp_path: Path) -> None:
    console = ConsoleProcess(worker_env(tmp_path / "runs.sqlite"))
    try:
        refused = csp_violations(page)
        sign_in(page, console.url)
        for path in ("/runs", "/heal", "/definitions", "/schedules", "/audit", "/nope"):
            answer = page.goto(console.url + path)
            headers = answer.all_headers()
            assert "frame-ancestors 'none'" in headers["content-security-policy"], path
            assert "unsafe-inline" not in headers["content-security-policy"]
            assert headers["x-content-type-options"] == "nosniff"
            assert headers["referrer-policy"] == "no-referrer"
        assert refused == [], refused
        # Another page cannot frame the console: Chromium refuses to render it.
        framer = page.context.new_page()
        framer.set_content(f'<iframe id="f" src="{console.url}/runs"></iframe>')
        framer.wait_for_timeout(1500)
        [child] = framer.main_frame.child_frames
        assert not child.url.startswith(console.url + "/runs"), child.url
    finally:
        console.stop()


def test_roles_and_sessions_in_the_browser(page: Any, tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    tokens = tmp_path / "tokens"
    viewer, operator = "viewer-token-0123456789", "operator-token-0123456789"
    tokens.write_text(f"vera:viewer:{viewer}\notto:operator:{operator}\n")
    env = worker_env(db, CFNOPS_CONSOLE__SESSION_IDLE_SECONDS="4")
    console = ConsoleProcess(env, "--token-file", str(tokens))
    jobs = JobService(runtime_for(load_settings(database_url=f"sqlite:///{db}")))
    wait = {"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 60, "End": True}}}
    jobs.store.create_run("held-1", "wait", wait, {})
    try:
        sign_in(page, console.url, viewer)
        page.goto(f"{console.url}/jobs/held-1")
        assert "vera (viewer)" in page.locator(".who").inner_text()
        for name in ("Stop", "Hold", "Rerun"):
            assert page.get_by_role("button", name=name).count() == 0
        # Posting by hand with the page's own CSRF token: refused.
        status = page.evaluate(
            """() => fetch(location.pathname + '/hold', {method: 'POST',
                 headers: {'Content-Type': 'application/x-www-form-urlencoded'},
                 body: 'csrf=' + document.querySelector('meta[name=csrf-token]').content})
               .then((r) => r.status)"""
        )
        assert status == 403 and jobs.lineage("held-1")["held"] is False
        shot(page, "viewer")
        # Idle past the limit: the live page itself goes to the sign-in page, saying why.
        page.wait_for_url("**/login?**why=expired", timeout=15_000)
        assert "session expired" in page.locator(".note").inner_text()
        page.goto(f"{console.url}/audit")  # and so does any page asked for afterwards
        assert "session expired" in page.locator(".note").inner_text()
        # Keyboard-only sign-in as the operator, then sign out.
        page.get_by_label("Token").focus()
        page.keyboard.type(operator)
        page.keyboard.press("Enter")
        page.wait_for_url(f"{console.url}/audit")  # back where the user was going
        page.goto(f"{console.url}/jobs/held-1")
        assert page.get_by_role("button", name="Stop this run").count() == 1
        page.get_by_role("button", name="Sign out").focus()
        page.keyboard.press("Enter")
        page.wait_for_url("**/login?why=signed-out")
        assert page.goto(f"{console.url}/jobs/held-1").url.startswith(f"{console.url}/login")
    finally:
        console.stop()


def test_a_bare_url_without_a_session_goes_to_sign_in(page: Any, tmp_path: Path) -> None:
    console = ConsoleProcess(worker_env(tmp_path / "runs.sqlite"))
    try:
        page.goto(f"{console.url}/schedules")
        assert page.url == f"{console.url}/login?next=%2Fschedules"
        page.get_by_label("Token").fill(TOKEN)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(f"{console.url}/schedules")
    finally:
        console.stop()


def test_the_metrics_token_reads_metrics_only(page: Any, tmp_path: Path) -> None:
    db, scraper = tmp_path / "runs.sqlite", "scraper-token-0123456789abcdef"
    console = ConsoleProcess(worker_env(db, CFNOPS_METRICS_TOKEN=scraper))
    jobs = JobService(runtime_for(load_settings(database_url=f"sqlite:///{db}")))
    wait = {"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 60, "End": True}}}
    jobs.store.create_run("secret-1", "wait", wait, {"password": "hunter2"})
    try:
        page.goto(f"{console.url}/login")
        page.get_by_label("Token").fill(scraper)
        page.get_by_role("button", name="Sign in").click()
        alert = page.get_by_role("alert")
        assert "reads /metrics only" in alert.inner_text()
        assert page.context.cookies() == []  # no session
        shot(page, "metrics-token-refused")
        fetch = """([path, token]) => fetch(path, {headers: {Authorization: 'Bearer ' + token}})
                   .then(async (r) => [r.status, await r.text()])"""
        status, text = page.evaluate(fetch, ["/metrics", scraper])
        assert status == 200 and "cfnops_queue_depth" in text
        for path in ("/jobs/secret-1", "/jobs/secret-1/data", "/runs", "/audit"):
            status, text = page.evaluate(fetch, [path, scraper])
            assert status == 403 and "hunter2" not in text and "secret-1" not in text, path
        status, _ = page.evaluate(fetch, ["/jobs/secret-1", TOKEN])  # the console's token
        assert status == 200
    finally:
        console.stop()

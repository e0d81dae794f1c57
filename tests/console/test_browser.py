"""The console in a real Chromium (the OS package, driven by Playwright).

Each test starts the console as its own process on a shared run database and
watches real runs: the web-system stop job-net on a sandbox, and a heal run
held by policy and approved in the browser. Screenshots go to
``$CFNOPS_TEST_ARTIFACTS`` (default ``tests/artifacts/``).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests._runtime import runtime_for
from tests._subprocess import cfnops, wait_for
from tests.console._browser import TOKEN, UNNAMED_CONTROLS, ConsoleProcess, shot
from tests.heal._proc import SandboxProcess, env_for

from cfnops.demo.heal_sample import INITIAL_VALUE, deploy_sample, drift_sample

pytestmark = pytest.mark.slow
HERE = Path(__file__).resolve().parent

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
expect = playwright_api.expect


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    yield context.new_page()
    context.close()


def _sign_in(page: Any, console: ConsoleProcess) -> None:
    page.goto(f"{console.url}/login")
    page.get_by_label("Token").fill(TOKEN)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{console.url}/runs")


def _no_unnamed_controls(page: Any) -> None:
    assert page.evaluate(UNNAMED_CONTROLS) == []


def test_job_run_live_graph_iterations_and_run_command_output(page: Any, tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    env = {**env_for_db(db)}
    run = subprocess.Popen(
        [sys.executable, str(HERE / "_jobnet_run.py"), str(db), "stop-1", "0.3"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    console = ConsoleProcess(env)
    try:
        system = json.loads(run.stdout.readline() if run.stdout else "{}")
        wait_for(lambda: console.get("/jobs/stop-1") == 200, 120, "the job run to start")
        _sign_in(page, console)
        runs_page = page.context.new_page()  # the Runs page, open while the run goes
        runs_page.goto(f"{console.url}/runs?kind=job")
        runs_page.evaluate("window.__notReloaded = true")
        page.goto(f"{console.url}/jobs/stop-1")
        page.evaluate("window.__notReloaded = true")
        # States turn running, then succeeded, pushed by the server (no reload).
        running = page.locator('#state-list button[data-status="RUNNING"]').first
        running.wait_for(timeout=60_000)
        seen = running.get_attribute("data-state")
        shot(page, "job-running")
        # Locators, not wait_for_function: the console's CSP forbids the eval it uses.
        expect(page.locator("#run-status")).to_have_text("SUCCEEDED", timeout=180_000)
        assert page.evaluate("window.__notReloaded") is True
        assert page.locator(f'#state-list button[data-state="{seen}"]').get_attribute(
            "data-status"
        ) in ("SUCCEEDED", "CAUGHT")
        colours = page.evaluate(
            "Object.fromEntries(cfnopsGraph.nodes().filter(n => n.data('name'))"
            ".map(n => [n.data('name'), n.data('status') || null]))"
        )
        assert colours["StopInstances"] == "SUCCEEDED" and colours["NotifyFailure"] is None
        # Map iteration 1 and its RunCommand output (the Apache status check).
        page.get_by_label("Map or Parallel").select_option("StopInstances")
        page.locator("#iteration-table a", has_text=re.compile(r"^iteration 1$")).click()
        expect(page.locator("#scope-note")).to_have_text("showing StopInstances iteration 1")
        page.get_by_role("button", name="State CheckApacheStatus, succeeded").click()
        table = page.locator("#runcommand")
        table.wait_for()
        assert "StopInstances iteration 1" in page.locator("#panel-state").inner_text()
        rows = table.locator("tbody tr")
        assert rows.count() == 1
        text = rows.first.inner_text()
        # `systemctl is-active httpd` on a stopped Apache: exit 3, "inactive" (as on EC2).
        assert system["instanceIds"][1] in text and "inactive" in text
        assert text.split("\t")[1:3] == ["Failed", "3"]
        shot(page, "job-iteration")
        # The history table filters as one types.
        page.get_by_label("Filter events").fill("MapIterationStarted")
        assert page.locator("#history-table tbody tr").count() == len(system["instanceIds"])
        # Keyboard: Tab reaches the skip link first; Enter on a state button opens its panel.
        page.reload()
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.textContent") == "Skip to content"
        page.locator('#state-list button[data-state="Init"]').focus()
        page.keyboard.press("Enter")
        expect(page.locator("#panel-state")).to_have_text(re.compile(r"^Init"))
        _no_unnamed_controls(page)
        assert run.wait(timeout=60) == 0
        # The Runs page opened before the end shows the outcome without a reload.
        runs_page.wait_for_selector(
            'tr[data-run="stop-1"] [data-status="SUCCEEDED"]', timeout=10_000
        )
        assert runs_page.evaluate("window.__notReloaded") is True
        # The Runs page lists it with the outcome, and every control there has a name.
        page.goto(f"{console.url}/runs?kind=job")
        assert "stop-1" in page.locator("#runs-table").inner_text()
        _no_unnamed_controls(page)
        shot(page, "runs")
    finally:
        console.stop()
        if run.poll() is None:
            run.kill()
        run.communicate()


def env_for_db(db: Path) -> dict[str, str]:
    from tests._subprocess import worker_env

    return worker_env(db)


@pytest.fixture(scope="module")
def sandbox_proc() -> Iterator[SandboxProcess]:
    sp = SandboxProcess()
    yield sp
    sp.stop()


def test_heal_hold_approved_in_the_browser_with_audit(
    page: Any, sandbox_proc: SandboxProcess, tmp_path: Path
) -> None:
    name = f"console-{int(time.time() * 1000) % 1000000}"
    param = f"/{name}/p"
    deploy_sample(sandbox_proc.client("cloudformation"), name, param)
    drift_sample(sandbox_proc.client("ssm"), param)
    # The change set proposes replacing the parameter (the sandbox's "replacement"
    # phantom, as AWS has been seen to): the gate holds it for a person to decide.
    sandbox_proc.control("phantoms", {"add": [{"kind": "replacement", "stack": name}]})
    env = env_for(sandbox_proc, tmp_path / "runs.sqlite")
    held = cfnops(env, "-o", "json", "heal", name)
    out, err = held.communicate(timeout=120)
    assert held.returncode == 3, err
    run_id = json.loads(out)["runs"][0]["runId"]
    worker = cfnops(env, "worker")  # resumes the held run once it is answered
    console = ConsoleProcess(env)
    try:
        _sign_in(page, console)
        # A POST without the token is refused and changes nothing.
        refused = urllib.request.Request(
            f"{console.url}/heal/runs/{run_id}/approve", data=b"reason=no+token", method="POST"
        )
        with pytest.raises(urllib.error.HTTPError) as answer:
            urllib.request.urlopen(refused, timeout=10)
        assert answer.value.code == 403
        # The worker takes the run over from the exited heal process (re-queued, then
        # dequeued): it is listed as held once it waits for the answer again.
        link = page.get_by_role("link", name=f"{name} — {run_id}")

        def listed() -> bool:
            page.goto(f"{console.url}/heal")
            return bool(link.count())

        wait_for(listed, 60, "the held run on the Heal page")
        _held_on_the_runs_page(page, console, run_id)
        page.goto(f"{console.url}/heal")
        link.click()
        changes = page.locator(".changes").inner_text()
        assert "Modify SampleParameter (AWS::SSM::Parameter) — replacement: True" in changes
        assert "/Properties/Value: updated-value → initial-value" in changes
        assert "requires replacement" in page.locator(".why").inner_text()
        assert "/Value" in page.locator("#drift").inner_text()
        _no_unnamed_controls(page)
        shot(page, "heal-held")
        # Still held after the refused POST: nothing was answered.
        assert page.get_by_role("button", name="Approve").is_visible()
        page.get_by_label("Reason for approving").fill("planned change window CHG-42")
        page.get_by_role("button", name="Approve").click()
        # The confirmation spells out the consequence; the reason typed is carried over.
        assert "executed" in page.locator("#confirm-consequence").inner_text()
        assert page.get_by_label("Reason (kept in the audit log").input_value() == (
            "planned change window CHG-42"
        )
        page.get_by_role("button", name="Confirm").click()
        expect(page.locator("#heal-outcome")).to_have_text("HEALED", timeout=120_000)
        audit = page.locator(".audit-row").first.inner_text()
        assert "console:" in audit and "approve" in audit and "CHG-42" in audit
        shot(page, "heal-approved")
        value = sandbox_proc.client("ssm").get_parameter(Name=param)["Parameter"]["Value"]
        assert value == INITIAL_VALUE
        listed = subprocess.run(
            [sys.executable, "-m", "cfnops", "-o", "json", "audit", "list", "--target", run_id],
            env=env, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        entries = json.loads(listed.stdout)
        assert [(e["action"], e["reason"]) for e in entries] == [
            ("approve", "planned change window CHG-42")
        ]
        assert entries[0]["actor"].startswith("console:")
    finally:
        console.stop()
        worker.terminate()
        try:
            worker.communicate(timeout=30)
        except subprocess.TimeoutExpired:  # printed "stopped" yet lingers: not this test's subject
            worker.kill()
            worker.communicate()


def _filter_runs(page: Any, console: ConsoleProcess, status: str) -> None:
    """The Runs page with the Status filter chosen in its form."""
    page.goto(f"{console.url}/runs")
    page.get_by_label("Status").select_option(status)
    page.get_by_role("button", name="Apply filters").click()
    page.wait_for_url(re.compile(rf".*/runs\?.*status={status}.*"))


def _held_on_the_runs_page(
    page: Any, console: ConsoleProcess, run_id: str, waiting: str = "waiting for approval"
) -> None:
    """The Runs page says HELD and what the run waits for (a gate-held heal: approval; a
    job run: an operator's release): listed under the HELD filter (chosen in the form),
    and not under RUNNING."""
    _filter_runs(page, console, "HELD")
    row = page.locator(f'#runs-table tr[data-run="{run_id}"]')
    expect(row).to_have_count(1)
    status = row.locator('td[data-label="Status"]')
    expect(status.locator(".status")).to_have_text("HELD")
    expect(status.locator(".status")).to_have_attribute("data-status", "HELD")
    expect(status.locator(".waiting")).to_have_text(waiting)
    shot(page, "runs-held" if waiting == "waiting for approval" else "runs-held-job")
    _filter_runs(page, console, "RUNNING")
    expect(page.locator(f'#runs-table tr[data-run="{run_id}"]')).to_have_count(0)


def test_a_held_job_run_reads_held_on_the_runs_page(page: Any, tmp_path: Path) -> None:
    """A job run an operator holds (``JobService.hold``, as ``cfnops job hold`` does) is
    listed RUNNING before the hold, then HELD, held by an operator, under the HELD filter
    and not under RUNNING, in Chromium and in ``cfnops -o json runs list``."""
    from cfnops.config import load_settings
    from cfnops.jobs import JobService

    db, run_id = tmp_path / "runs.sqlite", "held-job-1"
    definition = tmp_path / "pause.asl.json"
    definition.write_text(json.dumps({"StartAt": "Pause", "States": {
        "Pause": {"Type": "Wait", "Seconds": 600, "Next": "After"},
        "After": {"Type": "Pass", "End": True}}}))  # fmt: skip
    env = env_for_db(db)
    run = cfnops(env, "job", "run", str(definition), "--name", run_id)
    console = ConsoleProcess(env)
    jobs = JobService(runtime_for(load_settings(database_url=f"sqlite:///{db}")))
    try:
        wait_for(lambda: console.get(f"/jobs/{run_id}") == 200, 120, "the job run to start")
        _sign_in(page, console)
        _filter_runs(page, console, "RUNNING")  # the control: not held yet
        row = page.locator(f'#runs-table tr[data-run="{run_id}"]')
        expect(row.locator('td[data-label="Status"] .status')).to_have_text("RUNNING")
        jobs.hold(run_id, actor="alice", reason="maintenance window")
        _held_on_the_runs_page(page, console, run_id, waiting="held by an operator")
        listed = subprocess.run(
            [sys.executable, "-m", "cfnops", "-o", "json", "runs", "list"],
            env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert listed.returncode == 0, listed.stderr
        rows = {r["runId"]: r for r in json.loads(listed.stdout)}
        assert (rows[run_id]["outcome"], rows[run_id]["waiting"]) == (
            "HELD", "held by an operator"
        )  # fmt: skip
        _no_unnamed_controls(page)
    finally:
        jobs.stop(run_id)
        try:
            run.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            run.kill()
            run.communicate()
        console.stop()
    assert jobs.store.get_run(run_id).status == "ABORTED"


def test_definition_revalidated_on_change_and_every_page_named(page: Any, tmp_path: Path) -> None:
    from tests._subprocess import worker_env

    definition = tmp_path / "net.asl.json"
    good = {"StartAt": "A", "States": {"A": {"Type": "Pass", "Next": "B"},
                                        "B": {"Type": "Succeed"}}}  # fmt: skip
    definition.write_text(json.dumps(good, indent=2))
    roots = json.dumps([str(tmp_path)])
    console = ConsoleProcess(
        worker_env(tmp_path / "runs.sqlite", CFNOPS_CONSOLE__DEFINITION_ROOTS=roots)
    )
    try:
        _sign_in(page, console)
        page.goto(f"{console.url}/definitions")
        page.get_by_label("Definition file on the console's machine").fill(str(definition))
        page.get_by_role("button", name="Open").click()
        page.wait_for_selector("#def-result")
        assert "valid" in page.locator("#def-result h2").inner_text()
        assert page.evaluate("cfnopsDefinitionGraph.nodes().length") == 3
        page.evaluate("window.__notReloaded = true")
        # The file changes on disk: the findings appear at their line, without a reload.
        broken = {**good, "States": {**good["States"], "A": {"Type": "Pass", "Next": "Gone"}}}
        definition.write_text(json.dumps(broken, indent=2))
        page.wait_for_selector(".findings", timeout=10_000)
        finding = page.locator(".findings li").first.inner_text()
        assert "/States/A/Next" in finding and "line 6" in finding
        assert page.locator("#line-6.bad mark").count() == 1
        assert page.evaluate("window.__notReloaded") is True
        shot(page, "definition")
        # A pasted invalid definition: a 422 page with the finding, never a stack trace.
        page.goto(f"{console.url}/definitions")
        page.get_by_label("Or paste a definition (JSON or YAML)").fill('{"StartAt": "X"}')
        with page.expect_response(lambda r: r.request.method == "POST") as answer:
            page.get_by_role("button", name="Check").click()
        assert answer.value.status == 422
        assert "Traceback" not in page.content()
        # Unknown run: a 404 page that says so.
        assert page.goto(f"{console.url}/jobs/no-such-run").status == 404
        assert "no job run 'no-such-run'" in page.locator("[role=alert]").inner_text()
        for path in ("/runs", "/heal", "/definitions", "/schedules", "/audit"):
            page.goto(console.url + path)
            _no_unnamed_controls(page)
            page.keyboard.press("Tab")
            assert page.evaluate("document.activeElement.textContent") == "Skip to content"
        page.keyboard.press("Tab")  # from the skip link to the first menu link: Enter follows it
        assert page.evaluate("document.activeElement.textContent") == "Runs"
        page.keyboard.press("Enter")
        page.wait_for_url(f"{console.url}/runs")
    finally:
        console.stop()

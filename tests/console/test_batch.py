"""Actions on many job runs at once from the Runs page: dry run first, one reason, one
confirmation, per-run results, each audited, refused to a viewer."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from tests._runtime import database_for, runtime_for
from tests.console.conftest import csrf_of

from cfnops.config import Settings
from cfnops.console import Auth, create_app, read_token_file
from cfnops.durable import AuditLog
from cfnops.jobs import JobService

HERE = Path(__file__).resolve().parent
WAIT = {"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 60, "End": True}}}


def record_failed_runs(db: Path, count: int, prefix: str) -> None:
    """``count`` real failed job runs in ``db`` (executed in a subprocess)."""
    done = subprocess.run(
        [sys.executable, str(HERE / "_failed_runs.py"), str(db), str(count), prefix],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def _db(settings: Settings) -> Path:
    return Path(settings.database_url.removeprefix("sqlite:///"))


def test_batch_rerun_by_filter_previews_then_acts_on_each_run(
    settings: Settings, client: TestClient
) -> None:
    record_failed_runs(_db(settings), 3, "inc")
    jobs = JobService(runtime_for(settings))
    jobs.store.create_run("live-1", "wait", WAIT, {})  # RUNNING: a rerun does not apply
    runs_page = client.get("/runs?status=FAILED&kind=job").text
    assert runs_page.count('name="run" value="inc-') == 3  # the filter shows the failed job runs
    assert 'id="batch-form"' in runs_page
    csrf = csrf_of(client, "/runs")
    preview = client.post(
        "/runs/batch",
        data={"csrf": csrf, "action": "rerun", "scope": "filter", "f-status": "FAILED",
              "f-kind": "job"},
    )  # fmt: skip
    assert preview.status_code == 200, preview.text
    assert "Rerun 3 runs: each starts again from its start" in preview.text
    assert len(re.findall(r'data-ok="yes"', preview.text)) == 3
    assert jobs.store.list_runs(limit=100).__len__() == 4  # a dry run: nothing done yet
    # Ticked by hand: one that applies, one running (listed, left out, saying why).
    ticked = client.post(
        "/runs/batch", data={"csrf": csrf, "action": "rerun", "run": ["inc-00", "live-1"]}
    )
    assert (
        "Rerun 1 run:" in ticked.text and "it is RUNNING: rerun a run that has ended" in ticked.text
    )
    body = {"csrf": csrf, "action": "rerun", "run": ["inc-00", "inc-01", "inc-02"]}
    unreasoned = client.post("/runs/batch/confirm", data=body)
    assert unreasoned.status_code == 400 and "say why you rerun" in unreasoned.text
    done = client.post("/runs/batch/confirm", data={**body, "reason": "INC-42: db back"})
    assert done.status_code == 200, done.text
    assert "3 of 3 runs: rerun done" in done.text
    reruns = [r for r in jobs.store.list_runs(limit=100) if r.source == "rerun"]
    assert sorted(r.run_id for r in reruns) == ["inc-00-rerun1", "inc-01-rerun1", "inc-02-rerun1"]
    with AuditLog(database_for(settings)) as audit:
        rows = [e for e in audit.list(limit=100) if e.action == "rerun"]
    assert sorted(e.target for e in rows) == ["inc-00", "inc-01", "inc-02"]
    assert {e.reason for e in rows} == {"INC-42: db back"}
    assert {e.actor for e in rows} == {"console:alice (operator)"}


def test_batch_hold_release_cancel_and_a_viewer_is_refused(
    settings: Settings, client: TestClient, tmp_path: Path
) -> None:
    jobs = JobService(runtime_for(settings))
    for i in range(2):
        jobs.store.create_run(f"w-{i}", "wait", WAIT, {})
    csrf = csrf_of(client, "/runs")

    def act(action: str) -> str:
        data = {"csrf": csrf, "action": action, "run": ["w-0", "w-1"], "reason": "freeze"}
        answer = client.post("/runs/batch/confirm", data=data)
        assert answer.status_code == 200, answer.text
        return answer.text

    assert "2 of 2 runs: hold done" in act("hold")
    assert all(jobs.lineage(f"w-{i}")["held"] for i in range(2))
    assert "0 of 2 runs: hold done" in act("hold")  # held already: each says so
    assert "it is held already" in act("hold")
    assert "2 of 2 runs: release done" in act("release")
    assert "2 of 2 runs: cancel done" in act("cancel")
    assert {jobs.store.get_run(f"w-{i}").stop_requested for i in range(2)} == {True}
    with AuditLog(database_for(settings)) as audit:
        actions = [e.action for e in audit.list(limit=100)]
    assert actions.count("hold") == 2 and actions.count("release") == 2
    assert actions.count("stop") == 2
    tokens = tmp_path / "tokens"
    tokens.write_text(f"vera:viewer:{'v' * 20}\n")
    viewer = TestClient(create_app(settings, Auth(*read_token_file(tokens))))
    viewer.headers["Accept"] = "text/html"
    assert viewer.get(f"/login?token={'v' * 20}", follow_redirects=False).status_code == 303
    assert 'id="batch-form"' not in viewer.get("/runs").text
    refused = viewer.post(
        "/runs/batch/confirm",
        data={"csrf": csrf_of(viewer, "/runs"), "action": "hold", "run": ["w-0"], "reason": "x"},
    )
    assert refused.status_code == 403


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"action": "explode", "run": ["a"]}, "one of rerun, redrive, cancel, hold, release"),
        ({"action": "rerun"}, "tick at least one job run"),
    ],
    ids=["unknown-action", "nothing-ticked"],
)
def test_batch_bad_requests_say_what_to_do(
    client: TestClient, data: dict[str, object], message: str
) -> None:
    answer = client.post("/runs/batch", data={"csrf": csrf_of(client, "/runs"), **data})
    assert answer.status_code == 400 and message in answer.text

"""A run's execution history on the console (HTTP, no browser): who reads it, its pages.

The durable execution is a real one (``_durable_run.py`` in a subprocess: DBOS is one
per process), with markup in its names, input and results.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from starlette.testclient import TestClient
from tests._runtime import database_for
from tests.console._durable_run import BIG, MARK

from cfnops.config import Settings
from cfnops.console import Auth, create_app
from cfnops.durable import AuditLog

HERE = Path(__file__).resolve().parent
VIEWER = "viewer-token-0123456789"
STEPS = 60  # 60 steps: 129 events, two pages of the run page
DASH = "\N{EN DASH}"
ESCAPED = "&lt;img src=x onerror=&#34;window.__xss=1&#34;&gt;&lt;script&gt;"


def durable_run(db: str, steps: int) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(HERE / "_durable_run.py"), db, str(steps)],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    assert answer["status"] == "SUCCEEDED", answer
    return answer


@pytest.fixture
def execution(settings: Settings) -> dict[str, Any]:
    return durable_run(settings.database_url.removeprefix("sqlite:///"), STEPS)


def _client(settings: Settings, token: str | None) -> TestClient:
    auth = Auth({"vera": VIEWER}, {"vera": frozenset({"viewer"})})
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return TestClient(create_app(settings, auth), headers=headers)


def test_a_viewer_reads_the_history_and_an_anonymous_caller_cannot(
    settings: Settings, execution: dict[str, Any]
) -> None:
    run_id = execution["run_id"]
    json_accept = {"Accept": "application/json"}
    with _client(settings, None) as anonymous:
        refused = anonymous.get(f"/runs/{run_id}/history", headers=json_accept)
        assert refused.status_code == 401 and "Events" not in refused.text
        page = anonymous.get(f"/runs/{run_id}", headers={"Accept": "text/html"})
        assert page.status_code == 200 and "/login" in str(page.url)  # sent to sign in
        assert "Execution history" not in page.text and "step-0" not in page.text
    with _client(settings, "wrong-token-0123456789") as stranger:
        assert stranger.get(f"/runs/{run_id}/history", headers=json_accept).status_code == 401
    with _client(settings, VIEWER) as viewer:
        answer = viewer.get(f"/runs/{run_id}/history", headers=json_accept)
        assert answer.status_code == 200
        assert answer.headers["content-type"] == "application/json"
        events = answer.json()["Events"]
        assert "NextMarker" not in answer.json()
    assert len(events) == execution["events"] == 2 * (STEPS + 3) + 3
    assert [e["EventId"] for e in events] == list(range(1, len(events) + 1))
    kinds = [e["EventType"] for e in events]
    assert kinds[0] == "ExecutionStarted" and kinds[-1] == "ExecutionSucceeded"
    assert events[1]["Name"] == f"step-0 {MARK}"  # data in JSON, as recorded
    assert events[0]["EventTimestamp"].endswith("+00:00")
    child = next(e for e in events if e["EventType"] == "ContextStarted")
    inner = next(e for e in events if e.get("Name") == f"inner {MARK}")
    assert (child["SubType"], inner["ParentId"]) == ("RunInChildContext", child["Id"])
    with AuditLog(database_for(settings)) as audit:
        assert audit.list() == []  # reading is not an operator action


def test_the_json_view_pages_with_marker_and_max_items(
    settings: Settings, execution: dict[str, Any]
) -> None:
    run_id = execution["run_id"]
    with _client(settings, VIEWER) as viewer:
        first = viewer.get(f"/runs/{run_id}/history?MaxItems=100").json()
        assert [e["EventId"] for e in first["Events"]] == list(range(1, 101))
        assert first["NextMarker"] == "100"
        rest = viewer.get(f"/runs/{run_id}/history?Marker=100&MaxItems=100").json()
        assert [e["EventId"] for e in rest["Events"]] == list(range(101, execution["events"] + 1))
        assert "NextMarker" not in rest
        for query in ("MaxItems=0", "MaxItems=1001", "Marker=-1", "Marker=x"):
            bad = viewer.get(f"/runs/{run_id}/history?{query}")
            assert bad.status_code == 400, query
            assert query.split("=")[0] in bad.json()["error"]
        gone = viewer.get("/runs/no-such-run/history")
        assert gone.status_code == 404 and "no-such-run" in gone.json()["error"]


def test_the_run_page_shows_history_rows_escaped_and_paged(
    settings: Settings, execution: dict[str, Any]
) -> None:
    run_id, total = execution["run_id"], execution["events"]
    with _client(settings, VIEWER) as viewer:
        page = viewer.get(f"/runs/{run_id}", headers={"Accept": "text/html"}).text
        assert f"events 1{DASH}100 of {total}, oldest first · page 1 of 2" in page
        assert page.count("<tr data-event=") == 100
        assert f"step-0 {ESCAPED}" in page
        assert "<img src=x" not in page and "<script>window" not in page
        assert 'href="?history=2#history" rel="next"' in page
        second = viewer.get(f"/runs/{run_id}?history=2", headers={"Accept": "text/html"}).text
        assert second.count("<tr data-event=") == total - 100
        assert f"events 101{DASH}{total} of {total}" in second
        assert "<img src=x" not in second
        # the big step's detail: collapsed, cut at the cap, the rest named
        assert second.count("more characters: see the JSON view") == 1
        assert '<tr data-event="1">' not in second and f'<tr data-event="{total}">' in second
        past = viewer.get(f"/runs/{run_id}?history=99", headers={"Accept": "text/html"})
        assert past.status_code == 200 and f'<tr data-event="{total}">' in past.text
        bad = viewer.get(f"/runs/{run_id}?history=abc", headers={"Accept": "text/html"})
        assert bad.status_code == 400 and "history=" in bad.text
        events = viewer.get(f"/runs/{run_id}/history").json()["Events"]
    big = next(e for e in events if e["EventType"] == "StepSucceeded" and e["Name"] == "big")
    assert len(big["StepSucceededDetails"]["Result"]["Payload"]) > BIG  # whole in JSON


def test_a_dbos_native_run_shows_its_derived_history(settings: Settings) -> None:
    """The template database's ``cfnops.sample`` run (a ``@workflow``: steps, a wait)."""
    with _client(settings, VIEWER) as viewer:
        page = viewer.get("/runs/sample-1", headers={"Accept": "text/html"}).text
        events = viewer.get("/runs/sample-1/history").json()["Events"]
    assert events[0]["EventType"] == "ExecutionStarted"
    assert events[-1]["EventType"] == "ExecutionSucceeded"
    assert any(e["EventType"] == "StepSucceeded" for e in events)
    assert f"events 1{DASH}{len(events)} of {len(events)}, oldest first" in page
    assert page.count("<tr data-event=") == len(events)
    # reading created nothing: this database has no durable-execution table yet
    engine = sa.create_engine(settings.database_url)
    try:
        assert "cfnops_lambda_executions" not in sa.inspect(engine).get_table_names()
    finally:
        engine.dispose()

"""The console over HTTP (no browser): sessions, token + CSRF, filters, errors as pages."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from tests._runtime import database_for, runtime_for
from tests._subprocess import worker_env
from tests.console.conftest import TOKEN, csrf_of

from cfnops.config import Settings
from cfnops.console import Auth, BadTokenFile, TokenRequired
from cfnops.durable import AuditLog, RunStore
from cfnops.jobs import JobService, TriggerService

WAIT = {"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 60, "End": True}}}


def _schedule(settings: Settings, name: str = "nightly") -> TriggerService:
    triggers = TriggerService(JobService(runtime_for(settings)))
    triggers.add_schedule(name, "nightly.asl.json", WAIT, "cron(0 3 * * ? *)", "UTC", {})
    return triggers


def test_pages_need_a_session_and_the_token_gives_one(anonymous: TestClient) -> None:
    first = anonymous.get("/runs?kind=heal", follow_redirects=False)
    assert first.status_code == 303 and first.headers["location"].startswith("/login?next=")
    assert anonymous.get("/login?token=wrong-token-wrong-token").status_code == 403
    signed = anonymous.post("/login?next=/audit", data={"token": TOKEN}, follow_redirects=False)
    assert signed.status_code == 303 and signed.headers["location"] == "/audit"
    assert anonymous.get("/runs").status_code == 200
    assert "signed in as alice" in anonymous.get("/runs").text
    # The sign-in page of a browser that has a session (another tab signed in after a
    # console restart) sends it back where it was, and that session stays valid.
    again = anonymous.get("/login?next=/jobs/x&why=expired", follow_redirects=False)
    assert again.status_code == 303 and again.headers["location"] == "/jobs/x"
    assert anonymous.get("/runs", follow_redirects=False).status_code == 200
    anonymous.cookies.clear()
    assert "Token" in anonymous.get("/login?next=/jobs/x").text  # without one: the form


def test_state_changes_need_token_and_csrf_and_change_nothing_otherwise(
    settings: Settings, anonymous: TestClient
) -> None:
    triggers = _schedule(settings)
    # No token at all: 403, nothing changed, nothing audited.
    refused = anonymous.post("/schedules/nightly/disable", data={"reason": "x"})
    assert refused.status_code == 403
    anonymous.get(f"/login?token={TOKEN}")
    csrf = csrf_of(anonymous, "/schedules")
    # A session but no CSRF token, a wrong one, or another origin: 403 as well.
    for data, headers in (
        ({}, {}),
        ({"csrf": "0" * 64}, {}),
        ({"csrf": csrf}, {"Origin": "http://evil.example"}),
        ({"csrf": csrf}, {"Origin": "null", "Sec-Fetch-Site": "cross-site"}),
    ):
        answer = anonymous.post("/schedules/nightly/disable", data=data, headers=headers)
        assert answer.status_code == 403, answer.text
        assert "Traceback" not in answer.text
    assert [e["enabled"] for e in triggers.entries()] == [True]
    with AuditLog(database_for(settings)) as audit:
        assert audit.list() == []
    # With both: done and audited under the token's name.
    done = anonymous.post(
        "/schedules/nightly/disable",
        data={"csrf": csrf, "reason": "freeze"},
        follow_redirects=False,
    )
    assert done.status_code == 303
    assert [e["enabled"] for e in triggers.entries()] == [False]
    with AuditLog(database_for(settings)) as audit:
        [entry] = audit.list()
    assert (entry.actor, entry.action, entry.target, entry.reason) == (
        "console:alice (operator)",
        "disable",
        "schedule:nightly",
        "freeze",
    )
    assert "console:alice (operator)" in anonymous.get("/audit").text
    # Scripts use the bearer token (a browser never sends it by itself): no CSRF needed.
    bearer = TestClient(anonymous.app, headers={"Authorization": f"Bearer {TOKEN}"})
    assert bearer.post("/schedules/nightly/enable", follow_redirects=False).status_code == 303
    assert [e["enabled"] for e in triggers.entries()] == [True]
    assert "no schedule" in bearer.post("/schedules/ghost/enable").text


def test_runs_page_filters_and_pages(settings: Settings, client: TestClient) -> None:
    with RunStore(database_for(settings)) as store:
        for i in range(120):
            store.enqueue("cfnops.heal", {"StackName": f"web-{i % 3}"}, run_id=f"heal-web-{i:03d}")
    page = client.get("/runs")
    assert page.status_code == 200
    assert page.text.count("<tr data-run=") == 50 and "121 runs · page 1 of 3" in page.text
    last = client.get("/runs?page=3").text
    assert last.count("<tr data-run=") == 21 and "cfnops.sample" in last
    web1 = client.get("/runs?stack=web-1").text
    assert "40 runs" in web1 and "heal-web-001" in web1 and "heal-web-002" not in web1
    assert "120 runs" in client.get("/runs?kind=heal&status=QUEUED").text
    assert "1 run " in client.get("/runs?kind=other").text
    assert "1 run " in client.get("/runs?text=HEAL-WEB-007").text
    future = datetime.now(UTC).replace(year=2100).strftime("%Y-%m-%dT%H:%M")
    assert "0 runs" in client.get(f"/runs?since={future}").text


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("status=BOGUS", "status=&#39;BOGUS&#39; is not valid"),
        ("kind=lambda", "kind=&#39;lambda&#39; is not valid"),
        ("page=0", "page=&#39;0&#39; is not valid"),
        ("since=yesterday", "an ISO 8601 time"),
    ],
    ids=["status", "kind", "page", "since"],
)
def test_malformed_filters_are_400_pages(client: TestClient, query: str, message: str) -> None:
    answer = client.get(f"/runs?{query}")
    assert answer.status_code == 400
    assert message in answer.text and 'role="alert"' in answer.text
    assert "Traceback" not in answer.text


@pytest.mark.parametrize(
    "path", ["/runs/nope", "/jobs/nope", "/heal/runs/nope", "/no/such/page"], ids=str
)
def test_unknown_runs_are_404_pages(client: TestClient, path: str) -> None:
    answer = client.get(path)
    assert answer.status_code == 404
    assert 'role="alert"' in answer.text and "Traceback" not in answer.text
    assert "nope" in answer.text or "no such page" in answer.text


def test_unknown_map_iteration_is_400(settings: Settings, client: TestClient) -> None:
    jobs = JobService(runtime_for(settings))
    jobs.store.create_run("job-1", "wait", WAIT, {})
    assert client.get("/jobs/job-1").status_code == 200
    answer = client.get("/jobs/job-1/state?state=W&map=Nope&index=1")
    assert answer.status_code == 400 and "a Map or Parallel state of this job-net" in answer.text
    assert client.get("/jobs/job-1/data?map=Nope&index=x").status_code == 400


def test_definition_findings_point_at_their_lines(client: TestClient, tmp_path: Path) -> None:
    tmp_path = tmp_path / "defs"  # the root the settings fixture configures
    csrf = csrf_of(client, "/definitions")
    broken = json.dumps(
        {"StartAt": "A", "States": {"A": {"Type": "Pass", "Next": "Missing"}}}, indent=2
    )
    answer = client.post("/definitions", data={"csrf": csrf, "text": broken})
    assert answer.status_code == 422
    assert "/States/A/Next" in answer.text
    # The finding links to the line of "Next" and that line is marked.
    line = broken.splitlines().index('      "Next": "Missing"') + 1
    assert f'href="#line-{line}"' in answer.text
    assert f'id="line-{line}" class="line bad"' in answer.text
    assert client.post("/definitions", data={"csrf": csrf, "text": "{not json"}).status_code == 422
    good = tmp_path / "good.asl.json"
    good.write_text(json.dumps(WAIT))
    opened = client.get(f"/definitions?path={good}")
    assert opened.status_code == 200 and "valid" in opened.text
    assert '"id": "W"' in opened.text or '"id":"W"' in opened.text
    assert client.get(f"/definitions?path={tmp_path / 'missing.json'}").status_code == 400
    assert client.get(f"/definitions?path={tmp_path / 'notes.txt'}").status_code == 400
    assert client.post("/definitions", data={"text": broken}).status_code == 403


def test_bind_rules_and_token_files(tmp_path: Path) -> None:
    with pytest.raises(TokenRequired, match=r"refusing to listen on '0\.0\.0\.0'"):
        Auth.for_bind("0.0.0.0", token=None, token_file=None, user="ops")
    local = Auth.for_bind("127.0.0.1", token=None, token_file=None, user="ops")
    assert local.generated and list(local.tokens) == ["ops"]
    given = Auth.for_bind("10.0.0.5", token="t" * 20, token_file=None, user="ops")
    assert given.name_for("t" * 20) == "ops" and given.name_for("t" * 19) is None
    tokens = tmp_path / "tokens"
    tokens.write_text("# operators\nalice:" + "a" * 20 + "\n" + "b" * 20 + "\n")
    auth = Auth.for_bind("::", token=None, token_file=tokens, user="ops")
    assert auth.name_for("a" * 20) == "alice" and auth.name_for("b" * 20) == "token3"
    tokens.write_text("alice:short\n")
    with pytest.raises(BadTokenFile, match="line 1"):
        Auth.for_bind("::", token=None, token_file=tokens, user="ops")
    cookie = auth.start_session("alice")
    assert auth.session(cookie) == ("alice", False)
    tampered = cookie[:-1] + ("A" if cookie[-1] != "A" else "B")
    assert auth.session(tampered) == (None, False)
    other = Auth(auth.tokens)  # another console process: its own sessions
    assert other.session(cookie) == (None, False)


def test_non_loopback_bind_without_token_refuses_to_start(tmp_path: Path) -> None:
    env = worker_env(tmp_path / "db.sqlite")
    env.pop("CFNOPS_CONSOLE_TOKEN", None)
    done = subprocess.run(
        [sys.executable, "-m", "cfnops", "console", "--host", "0.0.0.0", "--port", "0"],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert "refusing to listen on '0.0.0.0' without a token" in done.stderr
    assert "CFNOPS_CONSOLE_TOKEN" in done.stderr


def test_job_controls_hold_release_skip_force_rerun(settings: Settings, client: TestClient) -> None:
    jobs = JobService(runtime_for(settings))
    two = {
        "StartAt": "A",
        "States": {
            "A": {"Type": "Wait", "Seconds": 60, "Next": "B"},
            "B": {"Type": "Pass", "End": True},
        },
    }
    jobs.store.create_run("ctl-1", "two", two, {})
    csrf = csrf_of(client, "/jobs/ctl-1")

    def post(action: str, **data: str) -> Any:
        return client.post(
            f"/jobs/ctl-1/{action}", data={"csrf": csrf, **data}, follow_redirects=False
        )

    unreasoned = post("hold")  # a reason is needed (the page's dialog asks for one)
    assert unreasoned.status_code == 400 and "say why you hold" in unreasoned.text
    assert jobs.lineage("ctl-1")["held"] is False
    assert post("hold", reason="change freeze").status_code == 303
    assert jobs.lineage("ctl-1")["held"] is True
    assert 'id="held-note"' in client.get("/jobs/ctl-1").text
    again = post("hold", reason="twice")
    assert again.status_code == 400 and "held already" in again.text
    assert "say why you release" in post("release").text
    assert post("release", reason="freeze over").status_code == 303
    assert jobs.lineage("ctl-1")["held"] is False
    assert (
        post("skip", state="B", output='{"skipped": true}', reason="not needed").status_code == 303
    )
    assert post("skip", state="B", output="{bad", reason="x").status_code == 400
    assert "say why you skip" in post("skip", state="B", output="{}").text  # a reason is needed
    refused = post("force", state="B", outcome="succeed", reason="try")
    assert refused.status_code == 400 and "not a Task" in refused.text
    assert post("rerun", mode="sideways").status_code == 400
    with AuditLog(database_for(settings)) as audit:
        entries = audit.list(target="ctl-1")
    assert [(e.action, e.actor) for e in reversed(entries)] == [
        ("hold", "console:alice (operator)"),
        ("release", "console:alice (operator)"),
        ("skip", "console:alice (operator)"),
    ]
    assert entries[0].detail == {"state": "B", "output": {"skipped": True}}
    # Without the CSRF token nothing is held.
    assert client.post("/jobs/ctl-1/hold", data={}).status_code == 403
    assert jobs.lineage("ctl-1")["held"] is False

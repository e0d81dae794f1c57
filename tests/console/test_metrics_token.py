"""A scraper's token (role ``metrics``, ``CFNOPS_METRICS_TOKEN``): it reads ``/metrics``
and nothing else; every other page, stream and action of the console refuses it."""

from __future__ import annotations

from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families
from starlette.routing import Route
from starlette.testclient import TestClient
from tests._runtime import database_for, runtime_for
from tests.console.conftest import TOKEN, csrf_of

from cfnops.config import Settings, load_settings
from cfnops.console import Auth, BadTokenFile, TokenRequired, create_app, read_token_file
from cfnops.durable import AuditLog
from cfnops.jobs import JobService, TriggerService

SCRAPER = "scraper-token-0123456789abcdef"
WAIT = {"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 60, "End": True}}}
# what the token may reach without any credential, and the one path it is for
OPEN = {"/login", "/healthz", "/metrics"}
PARAMS = {"run_id": "r-1", "name": "nightly"}


def _auth() -> Auth:
    return Auth.for_bind(
        "127.0.0.1", token=TOKEN, token_file=None, user="alice", metrics_token=SCRAPER
    )


def _bearer(settings: Settings, token: str) -> TestClient:
    headers = {"Authorization": f"Bearer {token}", "Accept": "text/html"}
    return TestClient(create_app(settings, _auth()), headers=headers)


def _paths(client: TestClient, method: str) -> list[str]:
    """Every route of the console answering ``method``, its parameters filled in."""
    found = []
    for route in client.app.routes:  # type: ignore[attr-defined]
        if isinstance(route, Route) and method in (route.methods or ()):
            path = route.path.replace("{run_id:path}", "{run_id}").format(**PARAMS)
            if path not in OPEN:
                found.append(path)
    return found


def test_the_metrics_token_scrapes(settings: Settings) -> None:
    answer = _bearer(settings, SCRAPER).get("/metrics", headers={"Accept": "text/plain"})
    assert answer.status_code == 200, answer.text
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(answer.text)
        for s in family.samples
    }
    assert samples[("cfnops_runs_started_total", (("workflow", "cfnops.sample"),))] == 1


def test_the_metrics_token_opens_no_page_and_does_nothing(settings: Settings) -> None:
    jobs = JobService(runtime_for(settings))
    jobs.store.create_run("r-1", "wait", WAIT, {})
    triggers = TriggerService(jobs)
    triggers.add_schedule("nightly", "n.asl.json", WAIT, "cron(0 3 * * ? *)", "UTC", {})
    scraper = _bearer(settings, SCRAPER)
    pages = _paths(scraper, "GET")
    assert {"/", "/runs", "/runs/r-1", "/jobs/r-1", "/audit", "/runs/stream"} <= set(pages)
    for path in [*pages, "/runs/sample-1", "/jobs/r-1/state?state=W"]:
        for accept in ("text/html", "application/json", "text/event-stream"):
            answer = scraper.get(path, headers={"Accept": accept}, follow_redirects=False)
            assert answer.status_code == 403, (path, accept, answer.status_code)
            assert "reads /metrics only" in answer.text, path
            assert "sample-1" not in answer.text and "wait" not in answer.text, path
    actions = _paths(scraper, "POST")
    assert {"/jobs/r-1/hold", "/jobs/r-1/stop", "/schedules/nightly/disable"} <= set(actions)
    for path in actions:
        answer = scraper.post(path, data={"state": "W", "reason": "x", "token": SCRAPER})
        assert answer.status_code == 403 and "reads /metrics only" in answer.text, path
    assert jobs.lineage("r-1")["held"] is False
    assert jobs.store.get_run("r-1").status == "RUNNING"
    assert [e["enabled"] for e in triggers.entries()] == [True]
    with AuditLog(database_for(settings)) as audit:
        assert audit.list() == []
    # the same action with the console's own token goes through: the role refused it
    held = _bearer(settings, TOKEN).post("/jobs/r-1/hold", data={"reason": "freeze"})
    assert held.status_code in (200, 303)
    assert jobs.lineage("r-1")["held"] is True


def test_the_metrics_token_cannot_sign_in(settings: Settings) -> None:
    client = TestClient(create_app(settings, _auth()), headers={"Accept": "text/html"})
    refused = client.get(f"/login?token={SCRAPER}", follow_redirects=False)
    assert refused.status_code == 403 and "reads /metrics only" in refused.text
    assert "cfnops_console" not in refused.cookies
    posted = client.post("/login", data={"token": SCRAPER}, follow_redirects=False)
    assert posted.status_code == 403 and not client.cookies
    assert client.get("/runs", follow_redirects=False).status_code == 303  # to /login
    assert client.get(f"/login?token={TOKEN}", follow_redirects=False).status_code == 303
    assert client.get("/runs").status_code == 200
    assert client.get("/metrics").status_code == 200  # a console session still reads it
    assert csrf_of(client, "/runs")


def test_metrics_role_in_a_token_file_and_its_errors(tmp_path: Path) -> None:
    path = tmp_path / "tokens"
    path.write_text(f"prom:metrics:{SCRAPER}\nops:{'o' * 20}\n")
    tokens, roles = read_token_file(path)
    assert tokens["prom"] == SCRAPER
    assert roles == {"prom": {"metrics"}, "ops": {"viewer", "operator", "approver"}}
    auth = Auth.for_bind("::", token=None, token_file=path, user="ci")
    assert auth.principal("prom").metrics_only and not auth.principal("ops").metrics_only
    path.write_text(f"prom:viewer,metrics:{SCRAPER}\n")
    with pytest.raises(BadTokenFile, match="metrics is a role of its own"):
        read_token_file(path)
    path.write_text(f"prom:metrics:{SCRAPER}\n")  # only a scraper's token: no console token
    with pytest.raises(TokenRequired):
        Auth.for_bind("::", token=None, token_file=path, user="ci")
    local = Auth.for_bind("127.0.0.1", token=None, token_file=path, user="ci")
    assert local.generated and next(iter(local.tokens)) == "ci"  # printed for people
    assert not local.principal("ci").metrics_only and local.principal("prom").metrics_only


@pytest.mark.parametrize(
    ("token_file", "metrics_token", "message"),
    [
        (None, "short", "shorter than 16"),
        (None, TOKEN, "give the scraper its own"),
        (f"metrics:viewer:{'m' * 20}\n", SCRAPER, "already names a token 'metrics'"),
    ],
    ids=["short", "same-as-console-token", "name-taken"],
)
def test_bad_metrics_tokens_are_refused(
    tmp_path: Path, token_file: str | None, metrics_token: str, message: str
) -> None:
    path = None
    if token_file is not None:
        path = tmp_path / "tokens"
        path.write_text(token_file)
    with pytest.raises(BadTokenFile, match=message) as caught:
        Auth.for_bind(
            "127.0.0.1", token=TOKEN, token_file=path, user="alice", metrics_token=metrics_token
        )
    assert "CFNOPS_METRICS_TOKEN" in str(caught.value)


def test_metrics_token_setting_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CFNOPS_METRICS_TOKEN", SCRAPER)
    settings = load_settings()
    assert settings.metrics_token is not None
    assert settings.metrics_token.get_secret_value() == SCRAPER
    assert SCRAPER not in repr(settings)

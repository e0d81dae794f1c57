"""Console security over HTTP: headers, roles, sessions, definition roots, no inline code."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from tests._runtime import database_for, runtime_for
from tests.console.conftest import csrf_of

from cfnops.config import Settings
from cfnops.console import ROLES, Auth, BadTokenFile, create_app, read_token_file
from cfnops.durable import AuditLog
from cfnops.jobs import JobService, TriggerService

STATIC = Path(__file__).resolve().parents[2] / "src" / "cfnops" / "console" / "static"
TEMPLATES = STATIC.parent / "templates"
WAIT = {"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 60, "End": True}}}
TOKENS = {
    "vera": ("viewer", "v" * 20),
    "otto": ("operator", "o" * 20),
    "anna": ("approver", "a" * 20),
    "olga": ("viewer,operator", "g" * 20),
}


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def roles_app(settings: Settings, tmp_path: Path, clock: Clock) -> Iterator[Auth]:
    path = tmp_path / "tokens"
    path.write_text("".join(f"{n}:{r}:{t}\n" for n, (r, t) in TOKENS.items()))
    tokens, roles = read_token_file(path)
    yield Auth(tokens, roles, idle_seconds=60, max_seconds=600, clock=clock)


def _offered(page: str, run_id: str, action: str) -> bool:
    """Whether the page shows the action's form (forms of actions that do not apply are
    drawn hidden, so that a live update can show them without redrawing the page)."""
    found = re.search(rf'action="/jobs/{run_id}/{action}" data-action="{action}"( hidden)?', page)
    return found is not None and found.group(1) is None


def _client(settings: Settings, auth: Auth, name: str | None) -> TestClient:
    client = TestClient(create_app(settings, auth), headers={"Accept": "text/html"})
    if name is not None:
        answer = client.get(f"/login?token={TOKENS[name][1]}", follow_redirects=False)
        assert answer.status_code == 303
    return client


@pytest.mark.parametrize(
    "path",
    ["/login", "/runs", "/jobs/nope", "/definitions", "/static/console.js", "/healthz", "/audit"],
    ids=str,
)
def test_security_headers_on_every_response(client: TestClient, path: str) -> None:
    answer = client.get(path, follow_redirects=False)
    csp = answer.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["referrer-policy"] == "no-referrer"
    assert answer.headers["x-frame-options"] == "DENY"


def test_headers_on_redirects_and_refusals(anonymous: TestClient) -> None:
    for answer in (
        anonymous.get("/runs", follow_redirects=False),
        anonymous.post("/jobs/x/stop"),
        anonymous.get("/jobs/x/data", headers={"Accept": "application/json"}),
    ):
        assert answer.headers["referrer-policy"] == "no-referrer"
        assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]


def test_token_file_roles_and_errors(tmp_path: Path) -> None:
    path = tmp_path / "tokens"
    path.write_text("# team\nvera:viewer:" + "v" * 20 + "\nops:" + "o" * 20 + "\n")
    tokens, roles = read_token_file(path)
    assert tokens == {"vera": "v" * 20, "ops": "o" * 20}
    assert roles == {"vera": frozenset({"viewer"}), "ops": frozenset(ROLES)}
    for text, message in (
        ("x:root:" + "r" * 20, "'root' is not a role"),
        ("x:viewer:" + "r" * 20 + "\nx:" + "s" * 20, "used twice"),
        ("a:b:c:" + "r" * 20, "more than NAME:ROLE"),
    ):
        path.write_text(text)
        with pytest.raises(BadTokenFile, match=message):
            read_token_file(path)
    env = Auth.for_bind("::", token="e" * 20, token_file=None, user="ci", token_roles="viewer")
    assert env.principal("ci").roles == {"viewer"}
    with pytest.raises(BadTokenFile, match="'boss' is not a role"):
        Auth.for_bind("::", token="e" * 20, token_file=None, user="ci", token_roles="boss")


def test_viewer_sees_no_actions_and_gets_403(settings: Settings, roles_app: Auth) -> None:
    jobs = JobService(runtime_for(settings))
    jobs.store.create_run("r-1", "wait", WAIT, {})
    TriggerService(jobs).add_schedule("nightly", "n.asl.json", WAIT, "cron(0 3 * * ? *)", "UTC", {})
    viewer = _client(settings, roles_app, "vera")
    page = viewer.get("/jobs/r-1").text
    assert "signed in as vera (viewer)" in page
    for action in ("/stop", "/hold", "/rerun", "/redrive"):
        assert f'/jobs/r-1{action}"' not in page
    assert "/disable" not in viewer.get("/schedules").text
    assert "/force" not in viewer.get("/jobs/r-1/state?state=W").text
    csrf = csrf_of(viewer, "/runs")
    for path in (
        "/jobs/r-1/stop",
        "/jobs/r-1/hold",
        "/jobs/r-1/skip",
        "/schedules/nightly/disable",
    ):
        answer = viewer.post(path, data={"csrf": csrf, "state": "W", "reason": "x"})
        assert answer.status_code == 403 and "needs operator" in answer.text, path
    assert (
        viewer.post("/heal/runs/h/approve", data={"csrf": csrf, "reason": "x"}).status_code == 403
    )
    assert jobs.lineage("r-1")["held"] is False
    # The bearer token of a viewer is refused the same way.
    bearer = TestClient(viewer.app, headers={"Authorization": f"Bearer {TOKENS['vera'][1]}"})
    assert bearer.post("/jobs/r-1/hold").status_code == 403
    with AuditLog(database_for(settings)) as audit:
        assert audit.list() == []


def test_operator_acts_but_cannot_approve_and_audit_names_the_role(
    settings: Settings, roles_app: Auth
) -> None:
    jobs = JobService(runtime_for(settings))
    jobs.store.create_run("r-2", "wait", WAIT, {})
    operator = _client(settings, roles_app, "olga")
    page = operator.get("/jobs/r-2").text
    assert _offered(page, "r-2", "stop") and not _offered(page, "r-2", "redrive")  # running
    csrf = csrf_of(operator, "/runs")
    assert operator.post("/jobs/r-2/hold", data={"csrf": csrf, "reason": "freeze"}).status_code in (
        200,
        303,
    )
    refused = operator.post("/heal/runs/h/approve", data={"csrf": csrf, "reason": "x"})
    assert refused.status_code == 403 and "needs approver" in refused.text
    approver = _client(settings, roles_app, "anna")
    csrf_a = csrf_of(approver, "/runs")
    assert approver.post("/jobs/r-2/release", data={"csrf": csrf_a}).status_code == 403
    # The approver passes the role check: the unknown run is what stops it (404).
    assert (
        approver.post("/heal/runs/h/approve", data={"csrf": csrf_a, "reason": "x"}).status_code
        == 404
    )
    with AuditLog(database_for(settings)) as audit:
        [entry] = audit.list(target="r-2")
    assert (entry.actor, entry.action) == ("console:olga (operator)", "hold")


def test_stop_and_redrive_refused_on_finished_runs(settings: Settings, client: TestClient) -> None:
    jobs = JobService(runtime_for(settings))
    jobs.store.create_run("done-1", "wait", WAIT, {})
    jobs.store.finish_run("done-1", "SUCCEEDED", {}, None, None)
    page = client.get("/jobs/done-1").text
    assert not _offered(page, "done-1", "stop") and not _offered(page, "done-1", "redrive")
    assert not _offered(page, "done-1", "hold")
    csrf = csrf_of(client, "/runs")
    stop = client.post("/jobs/done-1/stop", data={"csrf": csrf, "reason": "x"})
    assert stop.status_code == 409 and "nothing to stop" in stop.text
    redrive = client.post("/jobs/done-1/redrive", data={"csrf": csrf, "reason": "x"})
    assert redrive.status_code == 409 and "nothing to redrive" in redrive.text
    jobs.store.create_run("live-1", "wait", WAIT, {})
    assert "say why you stop" in client.post("/jobs/live-1/stop", data={"csrf": csrf}).text


def test_sessions_expire_idle_and_absolute_and_sign_out(
    settings: Settings, roles_app: Auth, clock: Clock
) -> None:
    client = _client(settings, roles_app, "vera")
    assert client.get("/runs").status_code == 200
    clock.now += 59  # activity within the idle limit keeps the session
    assert client.get("/runs").status_code == 200
    clock.now += 61
    gone = client.get("/runs?kind=job", follow_redirects=False)
    assert gone.status_code == 303
    assert gone.headers["location"] == "/login?next=%2Fruns%3Fkind%3Djob&why=expired"
    assert "Your session expired" in client.get(gone.headers["location"]).text
    # Absolute limit: busy all along, still ends after max_seconds.
    client = _client(settings, roles_app, "vera")
    for _ in range(12):
        clock.now += 50
        assert client.get("/runs", follow_redirects=False).status_code == 200
    clock.now += 50
    assert client.get("/runs", follow_redirects=False).status_code == 303
    # Data and streams answer 401 (a page's script then sends the user to sign in).
    data = client.get("/jobs/x/data", headers={"Accept": "application/json"})
    assert data.status_code == 401
    # Sign-out ends the session; the old cookie opens nothing afterwards.
    client = _client(settings, roles_app, "vera")
    cookie = client.cookies.get("cfnops_console")
    csrf = csrf_of(client, "/runs")
    assert client.post("/logout", data={}).status_code == 403  # CSRF needed
    out = client.post("/logout", data={"csrf": csrf}, follow_redirects=False)
    assert out.status_code == 303 and out.headers["location"] == "/login?why=signed-out"
    replay = TestClient(
        client.app, headers={"Accept": "text/html"}, cookies={"cfnops_console": cookie or ""}
    )
    assert replay.get("/runs", follow_redirects=False).status_code == 303


def test_live_requests_do_not_count_as_activity(
    settings: Settings, roles_app: Auth, clock: Clock
) -> None:
    jobs = JobService(runtime_for(settings))
    jobs.store.create_run("r-3", "wait", WAIT, {})
    client = _client(settings, roles_app, "vera")
    for _ in range(3):
        clock.now += 30
        live = client.get("/jobs/r-3/state?state=W", headers={"X-Cfnops-Live": "1"})
        assert live.status_code == 200
    assert client.get("/runs", follow_redirects=False).status_code == 303


def test_definition_roots_refuse_outside_paths_and_symlinks_out(
    settings: Settings, client: TestClient, tmp_path: Path
) -> None:
    root = tmp_path / "defs"
    (root / "good.asl.json").write_text('{"StartAt": "W", "States": {"W": {"Type": "Succeed"}}}')
    secret = tmp_path / "config.json"
    secret.write_text('{"auths": {"registry": {"auth": "c2VjcmV0"}}}')
    (root / "link.json").symlink_to(secret)
    (root / "dirlink").symlink_to(tmp_path)
    assert client.get(f"/definitions?path={root / 'good.asl.json'}").status_code == 200
    for path in (
        secret,
        root / "link.json",
        root / "dirlink" / "config.json",
        root / ".." / "config.json",
        "/etc/passwd.json",
        tmp_path / "missing.json",
    ):
        answer = client.get(f"/definitions?path={path}")
        assert answer.status_code == 403, path
        assert "outside the definition roots" in answer.text and "c2VjcmV0" not in answer.text
        stream = client.get(f"/definitions/stream?path={path}")
        assert stream.status_code == 403
    assert client.get(f"/definitions?path={root / 'notes.txt'}").status_code == 400


SHIPPED_JS = [p for p in STATIC.glob("*.js")]


@pytest.mark.parametrize("script", SHIPPED_JS, ids=lambda p: p.name)
def test_shipped_scripts_build_no_markup_from_data(script: Path) -> None:
    text = script.read_text()
    sinks = (
        r"\.(innerHTML|outerHTML)\b",
        r"\binsertAdjacentHTML\s*\(",
        r"\bdocument\.(write|writeln)\s*\(",
        r"(?<![\w.])eval\s*\(",
        r"\bnew\s+Function\s*\(",
        r"\bset(Timeout|Interval)\s*\(\s*[\"'`]",
    )
    for sink in sinks:
        found = re.search(sink, text)
        assert found is None, f"{script.name} uses {found.group(0) if found else ''}"


@pytest.mark.parametrize("template", sorted(TEMPLATES.glob("*.html")), ids=lambda p: p.name)
def test_templates_have_no_inline_script_or_style(template: Path) -> None:
    text = template.read_text()
    for tag in re.findall(r"<script\b[^>]*>", text):
        assert 'src="/static/' in tag or 'type="application/json"' in tag, tag
    assert not re.search(r"\son[a-z]+\s*=", text), "inline event handler"
    assert not re.search(r"\sstyle\s*=", text), "inline style attribute"
    assert "javascript:" not in text
    assert "|safe" not in text.replace(" ", "")

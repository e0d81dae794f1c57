"""The console on PostgreSQL: DBOS's tables in schema ``dbos``, cfnops's in ``public``."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient
from tests._runtime import database_for, runtime_for
from tests._subprocess import worker_env
from tests.console.conftest import TOKEN, csrf_of
from tests.durable.pg_server import PostgresUnavailable, postgres_server

from cfnops.config import load_settings
from cfnops.console import Auth, create_app
from cfnops.durable import AuditLog, RunStore
from cfnops.jobs import JobService

pytestmark = [pytest.mark.slow, pytest.mark.postgres]


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    try:
        with postgres_server() as url:
            yield url
    except PostgresUnavailable as exc:
        pytest.skip(f"PostgreSQL test skipped: {exc}")


def test_runs_page_jobs_and_audit_on_postgresql(pg_url: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cfnops", "runs", "start", "cfnops.sample",
         "--input", '{"wait_seconds": 1}', "--run-id", "pg-sample-1"],
        env=worker_env(pg_url, modules=["cfnops.demo.workflows"]),
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    settings = load_settings(database_url=pg_url)
    with RunStore(database_for(settings)) as store:
        for i in range(3):
            store.enqueue("cfnops.heal", {"StackName": f"pg-web-{i}"}, run_id=f"pg-heal-{i}")
    JobService(runtime_for(settings)).store.create_run(
        "pg-job-1", "wait", {"StartAt": "W", "States": {"W": {"Type": "Succeed"}}}, {}
    )
    app = create_app(settings, Auth({"alice": TOKEN}))
    with TestClient(app, headers={"Accept": "text/html"}) as client:
        client.get(f"/login?token={TOKEN}")
        page = client.get("/runs")
        assert page.status_code == 200 and "4 runs" in page.text and "pg-heal-2" in page.text
        assert "1 run " in client.get("/runs?stack=pg-web-1").text
        assert client.get("/jobs/pg-job-1").status_code == 200
        csrf = csrf_of(client, "/jobs/pg-job-1")
        answer = client.post(
            "/jobs/pg-job-1/hold", data={"csrf": csrf, "reason": "pg"}, follow_redirects=False
        )
        assert answer.status_code == 303
    with AuditLog(database_for(settings)) as audit:
        assert [(e.action, e.actor) for e in audit.list(target="pg-job-1")] == [
            ("hold", "console:alice (operator)")
        ]

"""The console's ``/metrics``: Prometheus text behind the sign-in (session or bearer token)."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families
from starlette.testclient import TestClient
from tests.console.conftest import TOKEN


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def test_metrics_need_a_session_or_token(anonymous: TestClient) -> None:
    answer = anonymous.get("/metrics", headers={"Accept": "text/plain"}, follow_redirects=False)
    assert answer.status_code in (303, 401)
    assert "cfnops_runs" not in answer.text
    answer = anonymous.get("/metrics", headers={"Authorization": "Bearer wrong-token"})
    assert "cfnops_runs" not in answer.text


def test_metrics_with_a_bearer_token(anonymous: TestClient) -> None:
    answer = anonymous.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/plain")
    samples = _samples(answer.text)
    # the template database holds one finished cfnops.sample run
    assert samples[("cfnops_runs_started_total", (("workflow", "cfnops.sample"),))] == 1
    finished = (
        "cfnops_runs_finished_total",
        (("outcome", "SUCCEEDED"), ("workflow", "cfnops.sample")),
    )
    assert samples[finished] == 1
    assert samples[("cfnops_run_duration_seconds_count", (("workflow", "cfnops.sample"),))] == 1


def test_metrics_with_a_session(client: TestClient) -> None:
    answer = client.get("/metrics")
    assert answer.status_code == 200
    assert "cfnops_queue_oldest_age_seconds" in answer.text

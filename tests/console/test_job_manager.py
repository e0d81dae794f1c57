"""The console shows a run waiting for a resource pool (the pool events of its history)."""

from __future__ import annotations

import json
import time

from starlette.testclient import TestClient
from tests._runtime import runtime_for

from cfnops.config import Settings
from cfnops.jobs import JobService

TASK = {
    "StartAt": "Copy",
    "States": {
        "Copy": {
            "Type": "Task",
            "Comment": "cfnops:pool=db",
            "Resource": "arn:aws:states:::lambda:invoke",
            "End": True,
        }
    },
}


def test_the_job_page_shows_pool_waits(settings: Settings, client: TestClient) -> None:
    jobs = JobService(runtime_for(settings))
    jobs.store.create_run("pooled-1", "pooled", TASK, {})
    now = time.time()
    events = [
        ("ExecutionStarted", {"input": "{}"}),
        ("TaskStateEntered", {"name": "Copy", "input": "{}"}),
        ("TaskScheduled", {"resource": "invoke", "resourceType": "lambda", "parameters": "{}"}),
        ("TaskStarted", {"resource": "invoke", "resourceType": "lambda"}),
        ("ResourcePoolWaitStarted", {"pool": "db", "name": "Copy", "capacity": 3}),
    ]
    jobs.store.write_events(
        "pooled-1",
        [(i, i - 1, kind, now + i, json.dumps(d)) for i, (kind, d) in enumerate(events, start=1)],
    )
    page = client.get("/jobs/pooled-1")
    assert page.status_code == 200
    assert "ResourcePoolWaitStarted" in page.text
    # the page's data (its history table is drawn from it) carries the event and its pool
    assert '"type": "ResourcePoolWaitStarted"' in page.text
    assert '{\\"pool\\": \\"db\\", \\"name\\": \\"Copy\\"' in page.text

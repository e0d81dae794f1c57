"""A runtime per run: two services with different settings in one process each run their
runs with their own settings; a run continued elsewhere works where it was started."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cfnops.config import load_settings
from cfnops.durable import Engine, run_context
from cfnops.durable._run_context import runtime_in_context
from cfnops.jobs import JobService
from cfnops.runtime import Runtime

ARN = {
    "StartAt": "Where",
    "States": {"Where": {"Type": "Pass", "Parameters": {"arn.$": "$$.Execution.Id"}, "End": True}},
}


def _service(engine: Engine, region: str) -> JobService:
    settings = engine.settings.replace(aws=engine.settings.aws.replace(region=region))
    return JobService(Runtime.from_settings(settings, database=engine.runtime.database))


def test_two_services_with_different_settings_run_side_by_side(job_engine: Engine) -> None:
    base = job_engine.runtime
    east, west = _service(job_engine, "ap-northeast-1"), _service(job_engine, "eu-west-1")
    runs: dict[str, Any] = {}
    for service, region in ((east, "ap-northeast-1"), (west, "eu-west-1"), (east, "x")):
        run_id = service.start(ARN, {}, machine_name=f"side-{region}")
        runs[run_id] = service
    for run_id, service in runs.items():
        result = service.wait(run_id, timeout=60)
        assert result.status == "SUCCEEDED", result
        assert f":states:{service.settings.aws.region}:" in result.output["arn"], result.output
    assert job_engine.runtime is base  # starting runs changed nobody else's runtime


def test_a_run_continued_elsewhere_works_where_it_was_started(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'db.sqlite'}"
    started = Runtime.from_settings(
        load_settings(
            database_url=url,
            aws={"region": "eu-central-1", "endpoint_url": "http://127.0.0.1:4999"},
        )
    )
    context = run_context(started)
    assert context["aws"]["region"] == "eu-central-1"
    bare = Runtime.from_settings(load_settings(database_url=url))
    continued = runtime_in_context(bare, context)
    assert continued.settings.aws.region == "eu-central-1"
    assert continued.settings.aws.endpoint_url == "http://127.0.0.1:4999"
    assert continued.database is bare.database  # its own database, its own credentials
    # nothing recorded: the continuing process's own settings
    assert runtime_in_context(bare, {"aws": {}}) is bare

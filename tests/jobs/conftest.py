from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from tests._runtime import runtime_for  # noqa: E402

from cfnops.config import load_settings  # noqa: E402
from cfnops.durable import Engine  # noqa: E402
from cfnops.jobs import CapturingTransport, JobService  # noqa: E402
from cfnops.runtime import Runtime  # noqa: E402

EXAMPLES = HERE.parents[1] / "examples" / "jobnets"


@pytest.fixture(scope="session")
def job_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """The process's one engine (DBOS is a singleton): reuse one a sibling suite started."""
    existing = Engine.current()
    if existing is not None:
        yield existing
        return
    db = tmp_path_factory.mktemp("jobs") / "jobs.sqlite"
    engine = Engine.start_process(runtime_for(load_settings(database_url=f"sqlite:///{db}")))
    yield engine
    engine.shutdown(grace_seconds=1)


@pytest.fixture
def sandbox_env(
    cfnops_sandbox_server: Any, monkeypatch: pytest.MonkeyPatch
) -> Iterator[dict[str, str]]:
    """Point every boto3 client this test builds (workflows included) at the sandbox."""
    env: dict[str, str] = cfnops_sandbox_server.environment()
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    yield env


@pytest.fixture
def jobs(job_engine: Engine, request: pytest.FixtureRequest) -> Iterator[JobService]:
    """A service on the engine's settings; a test that also asks for ``slack`` gets runs
    whose runtime sends ``http:invoke`` tasks to that transport (starting a run hands
    the service's runtime to the engine, so the runs execute with it)."""
    http = request.getfixturevalue("slack") if "slack" in request.fixturenames else None
    original = job_engine.runtime
    yield JobService(Runtime.from_settings(job_engine.settings, http=http))
    job_engine.use(original)


@pytest.fixture
def slack() -> CapturingTransport:
    """What the test's job-nets send with ``http:invoke`` (see ``jobs``): never sent."""
    return CapturingTransport()

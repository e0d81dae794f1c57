from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from collections.abc import Iterator  # noqa: E402
from typing import Any  # noqa: E402

import pytest  # noqa: E402
from tests._runtime import runtime_for  # noqa: E402


@pytest.fixture(scope="session")
def job_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The process's one engine (DBOS is a singleton): reuse one a sibling suite started."""
    from cfnops.config import load_settings
    from cfnops.durable import Engine

    existing = Engine.current()
    if existing is not None:
        yield existing
        return
    db = tmp_path_factory.mktemp("jobimport") / "jobs.sqlite"
    engine = Engine.start_process(runtime_for(load_settings(database_url=f"sqlite:///{db}")))
    yield engine
    engine.shutdown(grace_seconds=1)


@pytest.fixture
def sandbox_env(cfnops_sandbox: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """Every boto3 client this test builds (workflows included) talks to the sandbox."""
    from cfnops.sandbox.extensions import ssm_commands

    env: dict[str, str] = cfnops_sandbox.environment()
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    ssm_commands.clear_outcomes()
    yield env
    ssm_commands.clear_outcomes()

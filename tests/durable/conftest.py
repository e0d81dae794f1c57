from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import durable_test_workflows  # noqa: E402,F401  (registers the test workflows)
from pg_server import PostgresUnavailable, postgres_server  # noqa: E402
from tests._runtime import runtime_for  # noqa: E402

from cfnops.config import load_settings  # noqa: E402
from cfnops.durable import Engine  # noqa: E402


@pytest.fixture(scope="session")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """One in-process engine for the session (DBOS is a process-wide singleton)."""
    db = tmp_path_factory.mktemp("durable") / "engine.sqlite"
    settings = load_settings(
        database_url=f"sqlite:///{db}",
        worker={"workflow_modules": ("durable_test_workflows",), "heartbeat_seconds": 0.5},
    )
    eng = Engine.start_process(runtime_for(settings))
    yield eng
    eng.shutdown(grace_seconds=1)


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """A throw-away PostgreSQL server for the session (skipped, with why, when none starts)."""
    try:
        with postgres_server() as url:
            yield url
    except PostgresUnavailable as exc:
        pytest.skip(f"PostgreSQL test skipped: {exc}")

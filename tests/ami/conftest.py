from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from ami_test_support import make_settings  # noqa: E402
from tests._runtime import runtime_for  # noqa: E402

from cfnops.ami import Rotator  # noqa: E402
from cfnops.config import Settings, load_settings  # noqa: E402
from cfnops.durable import Engine  # noqa: E402
from cfnops.sandbox import Sandbox  # noqa: E402


@pytest.fixture
def sandbox_env(cfnops_sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Dummy credentials and region for clients built inside workflow steps (default chain);
    the endpoint is passed explicitly. Only while a test runs."""
    wanted = {k: v for k, v in cfnops_sandbox.environment().items() if k != "AWS_ENDPOINT_URL"}
    for key, value in wanted.items():
        monkeypatch.setenv(key, value)
    return wanted


@pytest.fixture(scope="session")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """One durable engine per process (DBOS is a singleton): reuse one already running."""
    current = Engine.current()
    if current is not None:
        yield current
        return
    db = tmp_path_factory.mktemp("ami") / "engine.sqlite"
    settings = load_settings(database_url=f"sqlite:///{db}", worker={"heartbeat_seconds": 0.5})
    eng = Engine.start_process(runtime_for(settings))
    yield eng
    if Engine.current() is eng:
        eng.shutdown(grace_seconds=1)


@pytest.fixture
def settings(cfnops_sandbox: Sandbox, engine: Engine, sandbox_env: dict[str, str]) -> Settings:
    return make_settings(cfnops_sandbox, engine.settings.database_url)


@pytest.fixture
def rotator(settings: Settings, cfnops_sandbox: Sandbox) -> Iterator[Rotator]:
    with Rotator(runtime_for(settings, aws=cfnops_sandbox.clients)) as rot:
        yield rot

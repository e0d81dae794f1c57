from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests._runtime import runtime_for
from tests.heal._proc import SandboxProcess
from tests.heal._support import FAST, Heal

from cfnops.config import load_settings
from cfnops.durable import Engine
from cfnops.runtime import Runtime
from cfnops.sandbox import Sandbox


@pytest.fixture(scope="module")
def sandbox_proc() -> Iterator[SandboxProcess]:
    """A sandbox in its own process, for tests that run (and kill) cfnops subprocesses."""
    sp = SandboxProcess()
    yield sp
    sp.stop()


@pytest.fixture(scope="session")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """The process's engine (DBOS is a singleton: reuse one another conftest started)."""
    existing = Engine.current()
    if existing is not None:
        yield existing
        return
    db = tmp_path_factory.mktemp("heal") / "engine.sqlite"
    eng = Engine.start_process(
        runtime_for(
            load_settings(database_url=f"sqlite:///{db}", worker={"heartbeat_seconds": 0.5})
        )
    )
    yield eng
    if Engine.current() is eng:
        eng.shutdown(grace_seconds=1)


@pytest.fixture
def heal_env(engine: Engine, cfnops_sandbox: Sandbox) -> Iterator[Heal]:
    settings = load_settings(
        database_url=engine.settings.database_url,
        aws={"region": "us-east-1", "endpoint_url": cfnops_sandbox.endpoint_url},
        heal=FAST,
        notify={"console": False},
    )
    env = Heal(engine, cfnops_sandbox, settings)
    engine.use(
        Runtime.from_settings(
            settings,
            aws=cfnops_sandbox.clients,
            database=engine.runtime.database,
            notify_hook=env.notes.append,
        )
    )
    yield env

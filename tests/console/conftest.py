"""Console fixtures: a run database with DBOS's schema, a signed-in test client."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from tests._subprocess import worker_env

from cfnops.config import Settings, load_settings
from cfnops.console import Auth, create_app

TOKEN = "test-token-0123456789abcdef"


@pytest.fixture(scope="session")
def template_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database where one sample run finished (so DBOS's tables exist)."""
    db = tmp_path_factory.mktemp("console-template") / "runs.sqlite"
    done = subprocess.run(
        [sys.executable, "-m", "cfnops", "runs", "start", "cfnops.sample",
         "--input", '{"wait_seconds": 1}', "--run-id", "sample-1"],
        env=worker_env(db, modules=["cfnops.demo.workflows"]),
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return db


@pytest.fixture
def settings(tmp_path: Path, template_db: Path) -> Settings:
    db = tmp_path / "runs.sqlite"
    for suffix in ("", "-wal", "-shm"):
        src = Path(f"{template_db}{suffix}")
        if src.exists():
            shutil.copy(src, f"{db}{suffix}")
    defs = tmp_path / "defs"  # the Definitions page's one root
    defs.mkdir()
    return load_settings(database_url=f"sqlite:///{db}", console={"definition_roots": [defs]})


@pytest.fixture
def anonymous(settings: Settings) -> Iterator[TestClient]:
    app = create_app(settings, Auth({"alice": TOKEN}))
    with TestClient(app, headers={"Accept": "text/html"}) as client:
        yield client


@pytest.fixture
def client(anonymous: TestClient) -> TestClient:
    """Signed in as ``alice`` (the session cookie is kept by the client)."""
    answer = anonymous.get(f"/login?token={TOKEN}", follow_redirects=False)
    assert answer.status_code == 303
    return anonymous


def csrf_of(client: TestClient, page: str) -> str:
    html = client.get(page).text
    marker = 'name="csrf-token" content="'
    start = html.index(marker) + len(marker)
    return html[start : html.index('"', start)]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """The system's Chromium driven by Playwright, one per test module (skips without it)."""
    from tests.console._browser import chromium_path

    playwright_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed"
    )
    path = chromium_path()
    if path is None:
        pytest.skip("no chromium on PATH (.ci/run installs the OS package)")
    with playwright_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=path, args=["--no-sandbox"])
        yield chromium
        chromium.close()

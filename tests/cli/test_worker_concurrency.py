"""A worker's concurrency: the setting (16 by default), ``--concurrency``, and a
``--global-concurrency`` below the setting lowering it (not refused)."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest


def _banner(tmp_path: Path, *args: str) -> str:
    env = dict(os.environ, CFNOPS_DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite'}")
    proc = subprocess.Popen(
        [sys.executable, "-m", "cfnops", "worker", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 120)
        assert ready, "the worker printed nothing in 120 s"
        return proc.stdout.readline()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ((), 16),
        (("--concurrency", "3"), 3),
        (("--global-concurrency", "4"), 4),
        (("--global-concurrency", "40"), 16),
    ],
    ids=["default", "explicit", "lowered-by-global", "global-above"],
)
def test_worker_concurrency(tmp_path: Path, args: tuple[str, ...], expected: int) -> None:
    banner = _banner(tmp_path, *args)
    found = re.search(r"concurrency (\d+)", banner)
    assert found, banner
    assert int(found.group(1)) == expected

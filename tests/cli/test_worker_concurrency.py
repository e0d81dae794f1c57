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


def _banner(tmp_path: Path, *args: str, lines: int = 1, **extra: str) -> str:
    env = dict(os.environ, CFNOPS_DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite'}", **extra)
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
        return "".join(proc.stdout.readline() for _ in range(lines))
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


def test_the_banner_keeps_the_database_whole_at_80_columns(tmp_path: Path) -> None:
    deep = tmp_path / ("a-long-folder-name-" * 4) / "runs"
    deep.mkdir(parents=True)
    first, second = _banner(deep, lines=2, COLUMNS="80").splitlines()
    assert first.startswith("cfnops worker ") and first.endswith(", database:"), first
    assert second == f"  {deep / 'db.sqlite'}", second  # one line, never split

"""SQLite on a small filesystem that fills, and on one remounted read-only.

A real tmpfs is mounted for each test (that needs root or CAP_SYS_ADMIN: the tests
skip, saying so, where mounting is refused). Full: a ``job run`` whose disk fills
during its Wait exits 2 naming the file and the fix, the run stays RUNNING, and once
space is freed ``runs resume`` finishes it with its Task run once. Read-only: one line
naming the file, exit 2, nothing half-written.
"""

from __future__ import annotations

import errno
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from faults_functions import attempts, three_states
from tests._runtime import database_for
from tests._subprocess import worker_env

from cfnops.config import load_settings
from cfnops.jobs import JobStore

HERE = Path(__file__).resolve().parent
pytestmark = [pytest.mark.faults, pytest.mark.slow]


@pytest.fixture
def small_fs(tmp_path: Path) -> Iterator[Path]:
    """A 4 MB tmpfs of this test's own."""
    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {done.stderr.strip()[:200]}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True, check=False)


def _env(db: Path, **extra: str) -> dict[str, str]:
    return worker_env(db, modules=["faults_functions"], path=[HERE], **extra)


def _cfnops(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cfnops", *args], env=env, capture_output=True, text=True,
        timeout=180,
    )  # fmt: skip


def _fill(folder: Path) -> Path:
    filler = folder / "filler"
    with filler.open("wb") as fh:
        try:
            while True:
                fh.write(b"\0" * 65536)
                fh.flush()
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
    return filler


def _definition(tmp_path: Path, log: Path) -> Path:
    definition = three_states(log, 0)
    definition["States"]["Before"] = {"Type": "Wait", "Seconds": 2, "Next": "Effect"}
    path = tmp_path / f"{log.stem}.asl.json"
    path.write_text(json.dumps(definition))
    return path


def test_a_full_disk_strands_nothing(small_fs: Path, tmp_path: Path) -> None:
    db, log = small_fs / "runs.sqlite", tmp_path / "effects.log"
    env = _env(db, CFNOPS_WORKER__STRANDED_AFTER_SECONDS="3")
    path = _definition(tmp_path, log)
    warm_up = _definition(tmp_path, tmp_path / "warm-up.log")
    warm = _cfnops(env, "job", "run", str(warm_up), "--name", "warm-up")  # the tables
    assert warm.returncode == 0, warm.stderr
    client = subprocess.Popen(
        [sys.executable, "-m", "cfnops", "job", "run", str(path), "--name", "full-1"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    store = JobStore(database_for(load_settings(database_url=f"sqlite:///{db}")))
    deadline = time.monotonic() + 60
    while not any(e["type"] == "WaitStateEntered" for e in _history(store, "full-1")):
        assert time.monotonic() < deadline, "the run did not reach its Wait"
        time.sleep(0.05)
    filler = _fill(small_fs)
    _out, err = client.communicate(timeout=120)
    assert client.returncode == 2, err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert errors == [
        f"error: run full-1 cannot advance: the durable database {db} is full (no space left "
        "on its disk): database or disk is full"
    ], err
    assert "cfnops runs resume full-1" in err and "Traceback" not in err
    assert store.get_run("full-1").status == "RUNNING"
    assert attempts(log, "effect") == [] or len(attempts(log, "effect")) == 1

    filler.unlink()
    resumed = _cfnops(env, "runs", "resume", "full-1")
    assert resumed.returncode == 0, resumed.stderr
    assert store.get_run("full-1").status == "SUCCEEDED"
    assert len(attempts(log, "effect")) == 1


def _history(store: JobStore, run_id: str) -> list[dict[str, object]]:
    try:
        return list(store.history(run_id))
    except Exception:  # not created yet
        return []


def test_a_read_only_database_is_named(small_fs: Path, tmp_path: Path) -> None:
    db, log = small_fs / "runs.sqlite", tmp_path / "effects.log"
    env = _env(db)
    path = _definition(tmp_path, log)
    assert _cfnops(env, "job", "run", str(path), "--name", "before").returncode == 0
    remount = subprocess.run(
        ["mount", "-o", "remount,ro", str(small_fs)], capture_output=True, text=True
    )
    assert remount.returncode == 0, remount.stderr
    done = _cfnops(env, "job", "run", str(path), "--name", "after", "--input", '{"s": "x"}')
    assert done.returncode == 2, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and errors[0].startswith(
        f"error: the durable database {db} is read-only"
    ), done.stderr
    assert '"s"' not in done.stderr and "Traceback" not in done.stderr
    assert len(attempts(log, "effect")) == 1  # only the run before the remount

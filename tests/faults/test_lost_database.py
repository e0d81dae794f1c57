"""The SQLite file deleted or replaced under a running worker: it stops, exit 2, named.

Before, the worker went on writing to the deleted file (its open descriptor), logged
nothing and exited 0 when stopped: every run it finished was lost to other processes.
"""

from __future__ import annotations

import select
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests._subprocess import worker_env

pytestmark = [pytest.mark.faults, pytest.mark.slow]


def _worker(db: Path, log: Path) -> subprocess.Popen[str]:
    with log.open("w") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "cfnops", "worker"],
            env=worker_env(db),
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
        )
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], 90)
    assert ready and proc.stdout.readline().startswith("cfnops worker"), log.read_text()
    return proc


@pytest.mark.parametrize("how", ["deleted", "replaced"])
def test_a_worker_stops_when_its_database_file_goes(tmp_path: Path, how: str) -> None:
    db, log = tmp_path / "runs.sqlite", tmp_path / "worker.err"
    proc = _worker(db, log)
    try:
        if how == "deleted":
            db.unlink()
        else:  # a restore from a backup copied over it: another file, another inode
            shutil.copy(db, tmp_path / "copy.sqlite")
            (tmp_path / "copy.sqlite").replace(db)
        proc.wait(timeout=30)  # heartbeat every 0.5 s here: noticed within a second
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=30)
    err = log.read_text()
    assert proc.returncode == 2, err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    # a deleted file may be created again, empty, by the next connection another thread
    # of the process opens: then it reads as replaced, which it is
    assert len(errors) == 1, err
    assert errors[0].startswith(
        f"error: the durable database {db} was deleted or replaced while this process used it"
    ), err
    assert "Traceback" not in err

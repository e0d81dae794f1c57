"""A database URL that cannot be used: one line naming it, exit 2, no traceback.

Real ``cfnops`` processes with ``CFNOPS_DATABASE_URL`` pointing at a folder, at a
file that is not a database, and at a PostgreSQL server that does not answer.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests._subprocess import cfnops, worker_env

pytestmark = pytest.mark.slow

DEFINITION = {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}
SECRET = "input-that-must-not-reach-stderr"


def _run(url: str, *args: str) -> tuple[int, str, str]:
    proc = cfnops(worker_env(url), *args)
    out, err = proc.communicate(timeout=120)
    return proc.returncode, out, err


def _errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error:")]


@pytest.fixture
def definition(tmp_path: Path) -> Path:
    path = tmp_path / "pass.asl.json"
    path.write_text(json.dumps(DEFINITION))
    return path


def _cases(tmp_path: Path) -> list[tuple[str, str, str]]:
    folder = tmp_path / "a-folder"
    folder.mkdir()
    text = tmp_path / "notes.txt"
    text.write_text("these are notes, not a database\n" * 100)
    return [
        (f"sqlite:///{folder}", str(folder), "is a folder, not a database file"),
        (f"sqlite:///{text}", str(text), "is not a database"),
        (
            "postgresql://ops:hunter2@127.0.0.1:9/cfnops",
            "postgresql://ops:***@127.0.0.1:9/cfnops",
            "cannot be reached",
        ),
    ]


@pytest.mark.parametrize("command", ["runs-list", "job-run", "worker"])
def test_an_unusable_database_is_named_and_exits_2(
    tmp_path: Path, definition: Path, command: str
) -> None:
    args = {
        "runs-list": ["runs", "list"],
        "job-run": ["job", "run", str(definition), "--input", json.dumps({"s": SECRET})],
        "worker": ["worker"],
    }[command]
    for url, named, reason in _cases(tmp_path):
        code, _out, err = _run(url, *args)
        assert code == 2, (url, err)
        lines = _errors(err)
        assert len(lines) == 1, err
        assert lines[0].startswith(f"error: the durable database {named} {reason}"), err
        assert "Traceback" not in err and "report it as a cfnops bug" not in err
        assert "hunter2" not in err and SECRET not in err
        assert "ERROR dbos" not in err, err


def test_the_folder_is_left_as_it_was(tmp_path: Path, definition: Path) -> None:
    folder = tmp_path / "a-folder"
    folder.mkdir()
    code, _out, _err = _run(f"sqlite:///{folder}", "job", "run", str(definition))
    assert code == 2
    assert list(folder.iterdir()) == []  # nothing half-written inside it

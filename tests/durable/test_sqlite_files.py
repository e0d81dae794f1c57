"""The SQLite run database is private (0600 in a 0700 state folder) and never created
in a folder that does not exist outside cfnops's state directory."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from cfnops.database import DatabasePathError
from cfnops.database._sqlite import prepare_sqlite_file
from cfnops.errors import ExitCode


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_state_directory_and_file_are_private(tmp_path: Path) -> None:
    state = tmp_path / "state" / "cfnops"
    db = state / "cfnops.sqlite"
    prepare_sqlite_file(str(db), state_dir=state)
    assert mode(state) == 0o700
    assert mode(db) == 0o600


def test_existing_folder_keeps_its_mode_and_the_file_is_private(tmp_path: Path) -> None:
    (tmp_path / "runs").mkdir(mode=0o755)
    db = tmp_path / "runs" / "ops.sqlite"
    prepare_sqlite_file(str(db), state_dir=tmp_path / "elsewhere")
    assert mode(db) == 0o600


def test_missing_folder_outside_the_state_directory_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "typo" / "deeper" / "ops.sqlite"
    with pytest.raises(DatabasePathError) as refused:
        prepare_sqlite_file(str(db), state_dir=tmp_path / "state")
    assert str(tmp_path / "typo" / "deeper") in refused.value.message
    assert refused.value.exit_code == ExitCode.USAGE
    assert "mkdir -p -m 700" in (refused.value.hint or "")
    assert not (tmp_path / "typo").exists()  # nothing created


def test_engine_start_refuses_a_missing_folder(tmp_path: Path) -> None:
    from cfnops.durable._dbos_setup import make_engine

    with pytest.raises(DatabasePathError):
        make_engine(f"sqlite:///{tmp_path / 'nope' / 'x.sqlite'}")


def test_memory_database_is_left_alone() -> None:
    prepare_sqlite_file(":memory:")

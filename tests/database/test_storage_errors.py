"""The one mapping of database faults to StorageError: real faults, each named.

Each case makes a real SQLite or PostgreSQL fault through a SQLAlchemy engine (as
DBOS and the stores meet them) and checks the error class, that the database is
named (password hidden) and that neither the statement nor its parameters leak.
A last test fails when a StorageError subclass has no case here.
"""

from __future__ import annotations

import inspect
import os
import sqlite3
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from tests._runtime import database_for

import cfnops.database.errors as database_errors
from cfnops.database import (
    DatabaseCorrupted,
    DatabaseFileGone,
    DatabaseFull,
    DatabaseIsDirectory,
    DatabaseReadOnly,
    DatabaseUnreachable,
    NotADatabase,
    SchemaTooOld,
    StorageError,
    redact_url,
    storage_error,
)
from cfnops.errors import ExitCode

SECRET_INPUT = "the-run-input-must-not-leak"
DURABLE_TESTS = Path(__file__).resolve().parents[1] / "durable"


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    if str(DURABLE_TESTS) not in sys.path:
        sys.path.insert(0, str(DURABLE_TESTS))
    from pg_server import PostgresUnavailable, postgres_server

    try:
        with postgres_server() as url:
            yield url
    except PostgresUnavailable as exc:
        pytest.skip(f"PostgreSQL test skipped: {exc}")


def _fault(url: str, *statements: str, prepare: Callable[[], None] | None = None) -> StorageError:
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        if prepare is not None:
            prepare()
        with engine.begin() as conn:
            for statement in statements:
                conn.execute(sa.text(statement), {"v": SECRET_INPUT})
    except Exception as exc:
        found = storage_error(exc)
        assert found is not None, f"{type(exc).__name__}: {exc} was not mapped"
        return found
    finally:
        engine.dispose()
    raise AssertionError("no fault happened")


def _db(path: Path, *statements: str) -> Path:
    with sqlite3.connect(path) as conn:
        for statement in statements:
            conn.execute(statement)
    return path


def _checked(err: StorageError, database: str) -> StorageError:
    assert err.database == database
    assert database in err.message
    assert SECRET_INPUT not in str(err) and "INSERT" not in str(err)
    assert err.exit_code == ExitCode.USAGE
    assert err.hint
    return err


def test_a_folder_is_named_as_a_folder(tmp_path: Path) -> None:
    err = _fault(f"sqlite:///{tmp_path}", "SELECT 1")
    assert isinstance(_checked(err, str(tmp_path)), DatabaseIsDirectory)


def test_a_file_that_is_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("not a database, only words " * 40)
    err = _fault(f"sqlite:///{path}", "SELECT * FROM sqlite_master")
    assert isinstance(_checked(err, str(path)), NotADatabase)


def test_a_missing_folder_cannot_be_reached(tmp_path: Path) -> None:
    path = tmp_path / "nowhere" / "db.sqlite"
    err = _fault(f"sqlite:///{path}", "SELECT 1")
    assert isinstance(_checked(err, str(path)), DatabaseUnreachable)


def test_a_corrupted_file(tmp_path: Path) -> None:
    path = _db(
        tmp_path / "db.sqlite",
        "CREATE TABLE t (x TEXT)",
        *[f"INSERT INTO t VALUES ('{'x' * 900}{n}')" for n in range(40)],
    )
    data = bytearray(path.read_bytes())
    data[4096 : 4096 * 3] = b"\xff" * (4096 * 2)  # the table's pages: garbage
    path.write_bytes(bytes(data))
    err = _fault(f"sqlite:///{path}", "SELECT count(*), max(x) FROM t")
    assert isinstance(_checked(err, str(path)), DatabaseCorrupted)


def test_a_read_only_database(tmp_path: Path) -> None:
    path = _db(tmp_path / "db.sqlite", "CREATE TABLE t (x TEXT)")
    err = _fault(f"sqlite:///file:{path}?mode=ro&uri=true", "INSERT INTO t VALUES (:v)")
    assert isinstance(err, DatabaseReadOnly)
    assert str(path) in err.message and SECRET_INPUT not in str(err)


def test_a_full_database(tmp_path: Path) -> None:
    path = _db(tmp_path / "db.sqlite", "CREATE TABLE t (x TEXT)")
    err = _fault(
        f"sqlite:///{path}",
        "PRAGMA max_page_count = 3",  # what a full disk looks like to SQLite: SQLITE_FULL
        *["INSERT INTO t VALUES (:v || hex(randomblob(2000)))"] * 20,
    )
    assert isinstance(_checked(err, str(path)), DatabaseFull)


def test_a_file_deleted_under_an_open_connection(tmp_path: Path) -> None:
    path = _db(tmp_path / "db.sqlite", "CREATE TABLE t (x TEXT)")
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.connect() as conn:
        conn.execute(sa.text("SELECT count(*) FROM t"))
        os.unlink(path)
        with pytest.raises(sa.exc.OperationalError) as raised:
            conn.execute(sa.text("INSERT INTO t VALUES (:v)"), {"v": SECRET_INPUT})
            conn.commit()
    engine.dispose()
    err = storage_error(raised.value)
    assert isinstance(err, DatabaseFileGone)
    _checked(err, str(path))


def test_an_old_schema(tmp_path: Path) -> None:
    path = _db(tmp_path / "db.sqlite")
    err = _fault(f"sqlite:///{path}", "SELECT workflow_uuid FROM workflow_status")
    assert isinstance(_checked(err, str(path)), SchemaTooOld)


def test_postgres_unreachable_hides_the_password() -> None:
    url = "postgresql+psycopg://ops:s3cr3t@127.0.0.1:1/cfnops"
    err = _fault(url, "SELECT 1")
    assert isinstance(err, DatabaseUnreachable)
    assert "s3cr3t" not in str(err)
    assert "postgresql://ops:***@127.0.0.1:1/cfnops" in err.message


@pytest.mark.postgres
def test_postgres_read_only(pg_url: str) -> None:
    url = pg_url.replace("postgresql://", "postgresql+psycopg://")
    err = _fault(
        url,
        "SET TRANSACTION READ ONLY",
        "CREATE TABLE IF NOT EXISTS cfnops_ro_probe (x TEXT)",
    )
    assert isinstance(err, DatabaseReadOnly)
    assert redact_url(url) in err.message


@pytest.mark.postgres
def test_postgres_missing_database(pg_url: str) -> None:
    url = pg_url.replace("postgresql://", "postgresql+psycopg://").rsplit("/", 1)[0] + "/absent"
    err = _fault(url, "SELECT 1")
    assert isinstance(err, DatabaseUnreachable)
    assert "absent" in err.message


def test_every_storage_error_has_a_fault_here() -> None:
    """Fails when a new StorageError subclass is added without a real fault above."""
    source = Path(__file__).read_text()
    kinds = [
        cls
        for _, cls in inspect.getmembers(database_errors, inspect.isclass)
        if issubclass(cls, StorageError) and cls is not StorageError
    ]
    # raised by cfnops itself, not mapped from a driver: tested where they are raised
    elsewhere = {"DatabasePathError"}
    missing = [
        c.__name__ for c in kinds if c.__name__ not in elsewhere and f"{c.__name__})" not in source
    ]
    assert not missing, f"no fault test for {missing}"


def test_other_errors_are_not_storage_errors() -> None:
    assert storage_error(ValueError("x")) is None
    assert storage_error(sqlite3.IntegrityError("UNIQUE constraint failed")) is None


def test_a_newer_schema_is_refused_by_name(tmp_path: Path) -> None:
    from cfnops.config import load_settings
    from cfnops.database import SchemaTooNew
    from cfnops.durable import RunStore

    path = _db(
        tmp_path / "db.sqlite",
        "CREATE TABLE workflow_status (workflow_uuid TEXT)",
        "CREATE TABLE dbos_migrations (version INTEGER)",
        "INSERT INTO dbos_migrations VALUES (100000)",
    )
    with pytest.raises(SchemaTooNew) as refused:
        RunStore(database_for(load_settings(database_url=f"sqlite:///{path}")))
    assert str(path) in refused.value.message and "100000" in refused.value.message

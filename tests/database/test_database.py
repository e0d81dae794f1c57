"""The run database handle: one engine per handle, tables created once, two adapters."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

import cfnops.database
from cfnops.config import load_settings
from cfnops.database import Database, DatabasePathError, PostgresDatabase, SqliteDatabase
from cfnops.durable import AuditLog, RunStore

DURABLE_TESTS = Path(__file__).resolve().parents[1] / "durable"


def _metadata(name: str = "probe") -> sa.MetaData:
    md = sa.MetaData()
    sa.Table(name, md, sa.Column("id", sa.Integer, primary_key=True), sa.Index(f"ix_{name}", "id"))
    return md


def test_public_names_are_pinned() -> None:
    assert sorted(cfnops.database.__all__) == [
        "Database",
        "DatabaseCorrupted",
        "DatabaseError",
        "DatabaseFileGone",
        "DatabaseFull",
        "DatabaseIsDirectory",
        "DatabasePathError",
        "DatabaseReadOnly",
        "DatabaseUnreachable",
        "NotADatabase",
        "PostgresDatabase",
        "SchemaTooNew",
        "SchemaTooOld",
        "SqliteDatabase",
        "StorageError",
        "create_tables",
        "redact_url",
        "retry_while_unreachable",
        "schema_lock",
        "storage_error",
    ]


def test_the_url_picks_the_adapter() -> None:
    assert isinstance(Database.open("sqlite:////tmp/x.db"), SqliteDatabase)
    pg = Database.open("postgresql://u@localhost:5432/db")
    assert isinstance(pg, PostgresDatabase)
    assert pg.sqlalchemy_url() == "postgresql+psycopg://u@localhost:5432/db"
    assert pg.dbos_schema == "dbos" and Database.open("sqlite:////tmp/x.db").dbos_schema is None


def test_one_engine_per_handle_in_wal_mode(tmp_path: Path) -> None:
    db = Database.open(f"sqlite:///{tmp_path / 'runs.db'}")
    assert db.engine is db.engine
    with db.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    assert (tmp_path / "runs.db").stat().st_mode & 0o777 == 0o600
    db.dispose()


def test_tables_are_created_once_and_after_runs_once(tmp_path: Path) -> None:
    db = Database.open(f"sqlite:///{tmp_path / 'runs.db'}")
    md = _metadata()
    calls: list[sa.Engine] = []
    assert db.ensure(md, after=calls.append) is db.engine
    db.ensure(md, after=calls.append)
    assert calls == [db.engine]
    assert db.has_table("probe")
    # another process (another handle) finds the table and creates nothing
    other = Database.open(db.url)
    other.ensure(md)
    assert other.has_table("probe")


def test_stores_share_the_handles_engine(tmp_path: Path) -> None:
    db = Database.open(f"sqlite:///{tmp_path / 'runs.db'}")
    with RunStore(db) as runs, AuditLog(db) as audit:
        assert runs.database is db and audit.database is db
        assert runs.list_runs() == []
        audit.record(actor="me", action="test", target="x")
    # closing a store leaves the shared pool alone
    with db.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM cfnops_audit").scalar() == 1


def test_a_missing_folder_is_refused_naming_it(tmp_path: Path) -> None:
    db = Database.open(f"sqlite:///{tmp_path / 'nowhere' / 'runs.db'}")
    with pytest.raises(DatabasePathError) as refused:
        _ = db.engine
    assert "nowhere" in str(refused.value)


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    sys.path.insert(0, str(DURABLE_TESTS))
    from pg_server import PostgresUnavailable, postgres_server

    try:
        with postgres_server() as url:
            yield url
    except PostgresUnavailable as exc:
        pytest.skip(f"PostgreSQL test skipped: {exc}")


@pytest.mark.postgres
def test_postgres_adapter_creates_tables_under_its_lock(pg_url: str) -> None:
    db = Database.open(pg_url)
    md = _metadata("pg_probe")
    db.ensure(md)
    db.ensure(md)
    assert db.has_table("pg_probe")
    with AuditLog(db) as audit, AuditLog(load_settings(database_url=pg_url)) as again:
        entry = audit.record(actor="me", action="test", target="x")
        assert again.latest_id() == entry.id
    # the append-only trigger exists once, whichever handle created it
    with pytest.raises(sa.exc.DBAPIError), db.engine.begin() as conn:
        conn.exec_driver_sql("DELETE FROM cfnops_audit")
    db.dispose()

"""The run database handle: one engine per handle, tables created once, two adapters."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from tests._runtime import database_for

import cfnops.database
from cfnops.config import load_settings
from cfnops.database import Database, DatabasePathError, PostgresDatabase, SqliteDatabase
from cfnops.durable import AuditLog, RunStore

DURABLE_TESTS = Path(__file__).resolve().parents[1] / "durable"


def _metadata(name: str = "probe") -> sa.MetaData:
    md = sa.MetaData()
    sa.Table(name, md, sa.Column("id", sa.Integer, primary_key=True), sa.Index(f"ix_{name}", "id"))
    return md


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
    with AuditLog(db) as audit, AuditLog(database_for(load_settings(database_url=pg_url))) as again:
        entry = audit.record(actor="me", action="test", target="x")
        assert again.latest_id() == entry.id
    # the append-only trigger exists once, whichever handle created it
    with pytest.raises(sa.exc.DBAPIError), db.engine.begin() as conn:
        conn.exec_driver_sql("DELETE FROM cfnops_audit")
    db.dispose()


def _upsert_round(db: Database, name: str) -> list[tuple[int, str]]:
    md = sa.MetaData()
    table = sa.Table(
        name,
        md,
        sa.Column("run", sa.String(20), primary_key=True),
        sa.Column("n", sa.Integer, primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )
    db.ensure(md)
    with db.engine.begin() as conn:
        cfnops.database.upsert(conn, table, [{"run": "r", "n": i, "value": "a"} for i in (1, 2)])
    with db.engine.begin() as conn:  # a replay writes 2 and 3: 2 is replaced, 1 is kept
        cfnops.database.upsert(conn, table, [{"run": "r", "n": i, "value": "b"} for i in (2, 3)])
        cfnops.database.upsert(conn, table, {"run": "s", "n": 1, "value": "c"})
    with db.engine.connect() as conn:
        rows = conn.execute(sa.select(table.c.n, table.c.value).order_by(table.c.run, table.c.n))
        return [(int(n), str(v)) for n, v in rows]


def test_upsert_replaces_rows_with_the_same_key_and_keeps_the_others(tmp_path: Path) -> None:
    db = Database.open(f"sqlite:///{tmp_path / 'runs.db'}")
    assert _upsert_round(db, "upsert_probe") == [(1, "a"), (2, "b"), (3, "b"), (1, "c")]
    db.dispose()


@pytest.mark.postgres
def test_upsert_on_postgres(pg_url: str) -> None:
    db = Database.open(pg_url)
    assert _upsert_round(db, "upsert_probe_pg") == [(1, "a"), (2, "b"), (3, "b"), (1, "c")]
    db.dispose()

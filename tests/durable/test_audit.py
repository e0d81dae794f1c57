"""The audit log: append-only rows in the run database, read back by filters and the CLI."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from pg_server import PostgresUnavailable, postgres_server
from tests._runtime import database_for

from cfnops.cli.main import run
from cfnops.config import Settings, load_settings
from cfnops.durable import AuditEntry, AuditLog, BadAuditEntry


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return load_settings(database_url=f"sqlite:///{tmp_path / 'audit.sqlite'}")


def test_record_then_list_newest_first_with_filters(settings: Settings) -> None:
    with AuditLog(database_for(settings)) as audit:
        first = audit.record(actor="alice", action="approve", target="heal-1", reason=" ok ")
        audit.record(actor="bob", action="stop", target="job-7", detail={"state": "Map"})
        third = audit.record(actor="console:ops", action="reject", target="heal-1")
    assert isinstance(first, AuditEntry)
    assert first.reason == "ok" and first.at.tzinfo is UTC
    assert third.id > first.id

    # A new AuditLog (another process would do the same) reads what was written.
    with AuditLog(database_for(settings)) as audit:
        everything = audit.list()
        assert [e.action for e in everything] == ["reject", "stop", "approve"]
        assert everything[2] == first
        assert [e.id for e in audit.list(target="heal-1")] == [third.id, first.id]
        assert [e.actor for e in audit.list(action="stop")] == ["bob"]
        assert audit.list(action="stop")[0].detail == {"state": "Map"}
        assert len(audit.list(limit=1)) == 1
        assert audit.list(since=datetime.now(UTC) + timedelta(minutes=1)) == []
        assert len(audit.list(since=first.at)) == 3
        assert audit.latest_id() == third.id


def test_the_database_refuses_updates_and_deletes(settings: Settings) -> None:
    with AuditLog(database_for(settings)) as audit:
        audit.record(actor="alice", action="approve", target="heal-1")
    engine = sa.create_engine(settings.database_url)
    try:
        for statement in ("UPDATE cfnops_audit SET actor = 'mallory'", "DELETE FROM cfnops_audit"):
            with pytest.raises(sa.exc.DatabaseError, match="append-only"), engine.begin() as c:
                c.execute(sa.text(statement))
    finally:
        engine.dispose()
    with AuditLog(database_for(settings)) as audit:
        assert [e.actor for e in audit.list()] == ["alice"]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"actor": " ", "action": "approve", "target": "r"}, "actor"),
        ({"actor": "a", "action": "", "target": "r"}, "action"),
        ({"actor": "a", "action": "approve", "target": "x" * 501}, "target"),
        ({"actor": "a", "action": "approve", "target": "r", "detail": {"x": object()}}, "detail"),
    ],
    ids=["blank-actor", "empty-action", "long-target", "detail-not-json"],
)
def test_bad_entries_are_refused_and_nothing_is_written(
    settings: Settings, kwargs: dict[str, object], field: str
) -> None:
    with AuditLog(database_for(settings)) as audit:
        with pytest.raises(BadAuditEntry, match=f"audit {field}"):
            audit.record(**kwargs)  # type: ignore[arg-type]
        assert audit.list() == []
        with pytest.raises(BadAuditEntry, match="since"):
            audit.list(since=datetime(2026, 1, 1))
        with pytest.raises(BadAuditEntry, match="limit"):
            audit.list(limit=0)


def test_concurrent_writers_lose_nothing(settings: Settings) -> None:
    # No table yet: the writers also race to create it.

    def write(n: int) -> None:
        with AuditLog(database_for(settings)) as audit:
            for i in range(10):
                audit.record(actor=f"w{n}", action="stop", target=f"run-{i}")

    threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with AuditLog(database_for(settings)) as audit:
        entries = audit.list(limit=1000)
    assert len(entries) == 80 and len({e.id for e in entries}) == 80


def test_default_actor_is_the_os_user(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOGNAME", "operator7")
    assert AuditLog.default_actor() == "operator7"


def test_cli_audit_list_text_and_json(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CFNOPS_DATABASE_URL", settings.database_url)
    assert run(["audit", "list"]) == 0
    assert "no audit entries" in capsys.readouterr().out
    with AuditLog(database_for(settings)) as audit:
        audit.record(actor="alice", action="approve", target="heal-1", reason="planned")
        audit.record(actor="bob", action="stop", target="job-7", detail={"n": 1})
    assert run(["audit", "list", "--target", "heal-1"]) == 0
    out = capsys.readouterr().out
    assert "alice" in out and "planned" in out and "job-7" not in out
    assert run(["--output", "json", "audit", "list", "--action", "stop", "--limit", "5"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(d["actor"], d["target"], d["detail"]) for d in data] == [("bob", "job-7", {"n": 1})]
    assert data[0]["at"].endswith("+00:00")
    assert run(["audit", "list", "--since", "yesterday"]) == 2
    assert "ISO 8601" in capsys.readouterr().err


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    try:
        with postgres_server() as url:
            yield url
    except PostgresUnavailable as exc:
        pytest.skip(f"PostgreSQL test skipped: {exc}")


@pytest.mark.postgres
@pytest.mark.slow
def test_postgresql_audit_log_is_append_only(pg_url: str) -> None:
    settings = load_settings(database_url=pg_url)
    with AuditLog(database_for(settings)) as audit:
        entry = audit.record(actor="alice", action="approve", target="heal-pg", detail={"a": 1})
        assert audit.list(target="heal-pg") == [entry]
    with AuditLog(
        database_for(settings)
    ) as again:  # a second start finds the table and its trigger
        assert again.latest_id() >= entry.id
    engine = sa.create_engine(pg_url.replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        with pytest.raises(sa.exc.DatabaseError, match="append-only"), engine.begin() as c:
            c.execute(sa.text("DELETE FROM cfnops_audit"))
    finally:
        engine.dispose()

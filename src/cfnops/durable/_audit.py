"""The audit log: who did what to which run, when and why (append-only).

Operator actions — approve, reject, stop, redrive, rerun, hold, skip, force,
enable/disable a schedule — are written here by the CLI and the console, in the
same database as the run records (SQLite by default, PostgreSQL via
``CFNOPS_DATABASE_URL``), so every process that sees a run sees what was done
to it::

    audit = AuditLog(runtime.database)
    audit.record(actor=AuditLog.default_actor(), action="approve",
                 target="heal-web-1", reason="planned replacement")
    audit.list(target="heal-web-1")

The table has no update or delete path in cfnops, and the database refuses both
(a trigger on SQLite and on PostgreSQL), so an entry once written stays as it
was written.
"""

from __future__ import annotations

import builtins
import getpass
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from cfnops.database import Database
from cfnops.durable.errors import BadAuditEntry

TABLE = "cfnops_audit"
_metadata = sa.MetaData()
audit_table = sa.Table(
    TABLE,
    _metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    # Epoch seconds (float): the same on SQLite and PostgreSQL, and sortable.
    sa.Column("at", sa.Float, nullable=False),
    sa.Column("actor", sa.String(200), nullable=False),
    sa.Column("action", sa.String(64), nullable=False),
    sa.Column("target", sa.String(500), nullable=False),
    sa.Column("reason", sa.Text, nullable=True),
    sa.Column("detail", sa.Text, nullable=False),
    sa.Index("ix_cfnops_audit_target", "target"),
    sa.Index("ix_cfnops_audit_at", "at"),
)

_SQLITE_GUARDS = [
    f"CREATE TRIGGER IF NOT EXISTS {TABLE}_no_{verb.lower()} BEFORE {verb} ON {TABLE} "
    "BEGIN SELECT RAISE(ABORT, 'cfnops_audit is append-only'); END"
    for verb in ("UPDATE", "DELETE")
]
_PG_GUARDS = [
    f"CREATE OR REPLACE FUNCTION {TABLE}_append_only() RETURNS trigger AS $$ "
    "BEGIN RAISE EXCEPTION 'cfnops_audit is append-only'; END; $$ LANGUAGE plpgsql",
    f"DROP TRIGGER IF EXISTS {TABLE}_append_only ON {TABLE}",
    f"CREATE TRIGGER {TABLE}_append_only BEFORE UPDATE OR DELETE ON {TABLE} "
    f"FOR EACH ROW EXECUTE FUNCTION {TABLE}_append_only()",
]
_PG_HAS_GUARD = sa.text(f"SELECT 1 FROM pg_trigger WHERE tgname = '{TABLE}_append_only'")
_LIMITS = {"actor": 200, "action": 64, "target": 500}


def _append_only(engine: sa.Engine) -> None:
    """Triggers refusing UPDATE and DELETE (idempotent: run at every process start)."""
    postgres = engine.dialect.name == "postgresql"
    with engine.begin() as conn:
        if postgres and conn.execute(_PG_HAS_GUARD).first() is not None:
            return  # DROP/CREATE TRIGGER would lock the table against other writers
        for statement in _PG_GUARDS if postgres else _SQLITE_GUARDS:
            conn.execute(sa.text(statement))


@dataclass(frozen=True)
class AuditEntry:
    """One recorded operator action."""

    id: int
    at: datetime
    actor: str
    action: str
    target: str
    reason: str | None = None
    detail: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "at": self.at.isoformat(),
            "actor": self.actor,
            "action": self.action,
            "target": self.target,
            "reason": self.reason,
            "detail": dict(self.detail),
        }


def _entry(row: Any) -> AuditEntry:
    return AuditEntry(
        id=int(row.id),
        at=datetime.fromtimestamp(row.at, tz=UTC),
        actor=row.actor,
        action=row.action,
        target=row.target,
        reason=row.reason,
        detail=json.loads(row.detail),
    )


def _check(name: str, value: str) -> str:
    value = value.strip()
    if not value:
        raise BadAuditEntry(name, "is empty")
    if len(value) > _LIMITS[name]:
        raise BadAuditEntry(name, f"is longer than {_LIMITS[name]} characters")
    return value


class AuditLog:
    """Appends and reads audit entries on the run database."""

    def __init__(self, database: Database) -> None:
        """On ``database`` (``runtime.database``), which its opener closes."""
        self.database = database
        self._engine = self.database.ensure(_metadata, after=_append_only)

    @staticmethod
    def default_actor() -> str:
        """The operating-system user, as the CLI records it."""
        try:
            return getpass.getuser()
        except (KeyError, OSError):  # no passwd entry and no LOGNAME/USER
            return "unknown"

    def close(self) -> None:
        """Nothing to release: the database belongs to whoever opened it."""

    def __enter__(self) -> AuditLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def record(
        self,
        *,
        actor: str,
        action: str,
        target: str,
        reason: str | None = None,
        detail: Mapping[str, Any] | None = None,
    ) -> AuditEntry:
        """Append one entry and return it as stored."""
        values = {
            "actor": _check("actor", actor),
            "action": _check("action", action),
            "target": _check("target", target),
        }
        if reason is not None:
            reason = reason.strip() or None
        try:
            detail_text = json.dumps(dict(detail or {}), sort_keys=True)
        except (TypeError, ValueError) as exc:
            raise BadAuditEntry("detail", f"is not JSON-serialisable ({exc})") from exc
        at = datetime.now(UTC)
        with self._engine.begin() as conn:
            result = conn.execute(
                audit_table.insert().values(
                    at=at.timestamp(), reason=reason, detail=detail_text, **values
                )
            )
            new_id = int(result.inserted_primary_key[0])  # type: ignore[index]
        return AuditEntry(
            id=new_id,
            at=datetime.fromtimestamp(at.timestamp(), tz=UTC),
            reason=reason,
            detail=json.loads(detail_text),
            **values,
        )

    def list(
        self,
        *,
        target: str | None = None,
        action: str | None = None,
        since: datetime | None = None,
        limit: int = 100,
    ) -> builtins.list[AuditEntry]:
        """Entries newest first, optionally for one target or action, at or after ``since``."""
        if limit < 1:
            raise BadAuditEntry("limit", "must be at least 1")
        if since is not None and since.tzinfo is None:
            raise BadAuditEntry("since", "must carry a time zone (UTC)")
        query = sa.select(audit_table).order_by(audit_table.c.id.desc()).limit(limit)
        if target is not None:
            query = query.where(audit_table.c.target == target)
        if action is not None:
            query = query.where(audit_table.c.action == action)
        if since is not None:
            query = query.where(audit_table.c.at >= since.timestamp())
        with self._engine.connect() as conn:
            return [_entry(row) for row in conn.execute(query)]

    def latest_id(self) -> int:
        """The id of the newest entry (0 when empty): a cheap change marker."""
        with self._engine.connect() as conn:
            value = conn.execute(sa.select(sa.func.max(audit_table.c.id))).scalar()
        return int(value or 0)

"""Accepted drift: "this drift is intended, stop flagging it until a date".

Distinct from ignore rules (configuration, by type and path, forever): an
acceptance names one stack, one resource and optionally one property path (a
path covers everything below it), has a reason, who accepted it and an expiry.
While it holds, the drift is reported as ``ACCEPTED`` and never healed (a change
set that would revert it is held); after ``until`` it is drift again
(cloudformation-coverage-roadmap #1533).

An acceptance belongs to the account the stack was found in (``drift accept``
records the caller's): a stack of the same name in another account of a fleet is
not covered. Acceptances stored before accounts were recorded have no account
("") and cover every account, as they did then.

Stored in the run database (table ``cfnops_accepted_drift_v2``, SQLite or
PostgreSQL; rows of the first table, ``cfnops_accepted_drift``, are moved into it
with no account the first time a store opens), exportable to a JSON file kept in
the repository. :func:`mark` is pure; :class:`AcceptedStore` is the adapter.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from cfnops.database import Database
from cfnops.heal._model import ResourceDrift, StackDriftReport

TABLE = "cfnops_accepted_drift_v2"
_FIRST_TABLE = "cfnops_accepted_drift"  # before accounts: moved into TABLE once
_metadata = sa.MetaData()
accepted_table = sa.Table(
    TABLE,
    _metadata,
    sa.Column("account", sa.String(12), primary_key=True),  # "" = every account
    sa.Column("region", sa.String(32), primary_key=True),
    sa.Column("stack", sa.String(128), primary_key=True),
    sa.Column("logical_id", sa.String(255), primary_key=True),
    sa.Column("path", sa.String(1000), primary_key=True),  # "" = the whole resource
    sa.Column("until", sa.Float, nullable=False),  # epoch seconds
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("by", sa.String(200), nullable=False),
    sa.Column("at", sa.Float, nullable=False),
)
_FIELDS = ("region", "stack", "logical_id", "path", "until", "reason", "by", "at")


@dataclass(frozen=True)
class AcceptedDrift:
    """One acceptance of a resource's (or one property path's) drift until a time."""

    region: str
    stack: str
    logical_id: str
    path: str  # "" for the whole resource
    until: dt.datetime
    reason: str
    by: str
    at: dt.datetime
    account: str = ""  # "" = every account (acceptances stored before accounts were)

    def active(self, now: dt.datetime) -> bool:
        return now < self.until

    def applies_to(self, account: str | None) -> bool:
        """For the stack's ``account`` (``None``: the caller cannot say which)."""
        return not self.account or account is None or self.account == account

    def covers(self, path: str) -> bool:
        return not self.path or path == self.path or path.startswith(self.path.rstrip("/") + "/")

    def text(self) -> str:
        return f"accepted {self.until_text()} by {self.by}: {self.reason}"

    def until_text(self) -> str:
        """``through 2026-12-31 (UTC)`` for a date given as ``--until 2026-12-31``."""
        until = self.until.astimezone(dt.UTC)
        if (until.hour, until.minute, until.second, until.microsecond) == (0, 0, 0, 0):
            day = (until - dt.timedelta(days=1)).date().isoformat()
            return f"through {day} (UTC)"
        return "until " + until.strftime("%Y-%m-%dT%H:%M:%SZ")

    def to_json(self) -> dict[str, Any]:
        return {
            "account": self.account or None,
            "region": self.region,
            "stack": self.stack,
            "logicalId": self.logical_id,
            "path": self.path or None,
            "until": self.until.isoformat(),
            "reason": self.reason,
            "by": self.by,
            "at": self.at.isoformat(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AcceptedDrift:
        return cls(
            str(data["region"]),
            str(data["stack"]),
            str(data["logicalId"]),
            str(data.get("path") or ""),
            dt.datetime.fromisoformat(str(data["until"])),
            str(data["reason"]),
            str(data["by"]),
            dt.datetime.fromisoformat(str(data["at"])),
            str(data.get("account") or ""),
        )


# -- pure marking ---------------------------------------------------------------------


def _for(entries: Iterable[AcceptedDrift], logical_id: str) -> list[AcceptedDrift]:
    return [e for e in entries if e.logical_id == logical_id]


def mark_resource(resource: ResourceDrift, entries: Sequence[AcceptedDrift]) -> ResourceDrift:
    mine = _for(entries, resource.logical_id)
    if not mine or resource.status not in ("MODIFIED", "DELETED"):
        return resource
    props = tuple(
        replace(p, accepted=any(e.covers(p.path) for e in mine)) for p in resource.properties
    )
    whole = [e for e in mine if not e.path]
    if resource.status == "DELETED" and not whole:
        return resource
    used = whole or [e for e in mine if any(e.covers(p.path) for p in resource.properties)]
    if not used:
        return resource
    return replace(resource, properties=props, accepted="; ".join(e.text() for e in used))


def mark(
    report: StackDriftReport,
    entries: Sequence[AcceptedDrift],
    now: dt.datetime,
    region: str | None = None,
    account: str | None = None,
) -> StackDriftReport:
    """The report with accepted drift marked (active acceptances of this stack only:
    its name, and its region and account when given)."""
    mine = [
        e
        for e in entries
        if e.stack == report.stack_name
        and e.active(now)
        and region in (None, e.region)
        and e.applies_to(account)
    ]
    nested = tuple(mark(n, entries, now, region, account) for n in report.nested)
    if not mine:
        return replace(report, nested=nested)
    resources = tuple(mark_resource(r, mine) for r in report.resources)
    return replace(report, resources=resources, nested=nested)


# -- the store ------------------------------------------------------------------------


def _row(row: Any) -> AcceptedDrift:
    return AcceptedDrift(
        row.region,
        row.stack,
        row.logical_id,
        row.path,
        dt.datetime.fromtimestamp(row.until, dt.UTC),
        row.reason,
        row.by,
        dt.datetime.fromtimestamp(row.at, dt.UTC),
        row.account,
    )


class AcceptedStore:
    """Accepted drift in the run database."""

    def __init__(self, database: Database) -> None:
        """On ``database`` (``runtime.database``), which its opener closes."""
        self.database = database
        self._engine = self.database.ensure(_metadata, after=_move_first_table)

    def accept(self, entry: AcceptedDrift) -> AcceptedDrift:
        """Store ``entry`` (replacing an acceptance of the same account, stack, resource
        and path)."""
        key = {
            "account": entry.account,
            "region": entry.region,
            "stack": entry.stack,
            "logical_id": entry.logical_id,
            "path": entry.path,
        }
        table = accepted_table
        with self._engine.begin() as conn:
            conn.execute(table.delete().where(*(getattr(table.c, k) == v for k, v in key.items())))
            conn.execute(
                table.insert().values(
                    until=entry.until.timestamp(),
                    reason=entry.reason,
                    by=entry.by,
                    at=entry.at.timestamp(),
                    **key,
                )
            )
        return entry

    def list(self, *, stack: str | None = None, region: str | None = None) -> list[AcceptedDrift]:
        """Every acceptance (expired ones too), by stack, resource and path."""
        table = accepted_table
        query = sa.select(table).order_by(table.c.stack, table.c.logical_id, table.c.path)
        if stack is not None:
            query = query.where(table.c.stack == stack)
        if region is not None:
            query = query.where(table.c.region == region)
        with self._engine.connect() as conn:
            return [_row(row) for row in conn.execute(query)]


def _move_first_table(engine: sa.Engine) -> None:
    """Move the rows of the table used before accounts (no account: every account).

    Once per database: the first table is dropped in the same transaction. Two
    processes opening at once: the schema lock (held by ``Database.ensure``)
    serialises them on PostgreSQL; on
    SQLite the one that loses the race finds the table gone, or fails on it and
    then finds it gone, and goes on.
    """
    if not sa.inspect(engine).has_table(_FIRST_TABLE):
        return
    try:
        _move_rows(engine)  # under the schema lock (Database.ensure holds it)
    except sa.exc.DBAPIError:
        if sa.inspect(engine).has_table(_FIRST_TABLE):
            raise


def _move_rows(engine: sa.Engine) -> None:
    first = sa.Table(_FIRST_TABLE, sa.MetaData(), *(sa.Column(f) for f in _FIELDS))
    with engine.begin() as conn:
        if not sa.inspect(conn).has_table(_FIRST_TABLE):
            return  # another process moved it
        have = {
            (r.region, r.stack, r.logical_id, r.path)
            for r in conn.execute(sa.select(accepted_table).where(accepted_table.c.account == ""))
        }
        for row in conn.execute(sa.select(first)):
            if (row.region, row.stack, row.logical_id, row.path) not in have:
                values = {f: getattr(row, f) for f in _FIELDS}
                conn.execute(accepted_table.insert().values(account="", **values))
        conn.execute(sa.text(f"DROP TABLE {_FIRST_TABLE}"))


def export(entries: Sequence[AcceptedDrift], path: Path) -> None:
    """Write ``entries`` as JSON (sorted, stable: a file to keep in the repository)."""
    data = {"acceptedDrift": [e.to_json() for e in entries]}
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    tmp.replace(path)

"""Where the Lambda durable-execution backend keeps its executions (SQLite or PostgreSQL).

One row per execution: searchable columns (function, name, status, times, run id) and
the whole record of :mod:`cfnops.durable._history` (operations and history events) as
JSON. Every change is one transaction that first takes the row's write lock (an
``UPDATE`` of the row: SQLite's database lock, PostgreSQL's row lock), so a checkpoint
from the running invocation and a callback sent from another process never lose each
other's writes.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from cfnops.database import Database

TABLE = "cfnops_lambda_executions"
_metadata = sa.MetaData()
executions_table = sa.Table(
    TABLE,
    _metadata,
    sa.Column("arn", sa.String(1024), primary_key=True),
    sa.Column("run_id", sa.String(200), nullable=False, unique=True),
    sa.Column("function", sa.String(200), nullable=False),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("started", sa.BigInteger, nullable=False),
    sa.Column("ended", sa.BigInteger, nullable=True),
    sa.Column("record", sa.Text, nullable=False),
    sa.Index("ix_cfnops_lambda_function", "function", "started"),
)


@dataclass(frozen=True)
class ExecutionRow:
    """The searchable columns of one execution."""

    arn: str
    run_id: str
    function: str
    name: str
    status: str
    started: int
    ended: int | None


class ExecutionStore:
    """Durable executions in the run database (tables created on first use)."""

    def __init__(self, database: Database) -> None:
        self.engine = database.ensure(_metadata)
        self._lock = threading.RLock()

    def insert(
        self, record: dict[str, Any], run_id: str, conn: sa.Connection | None = None
    ) -> bool:
        """Store a new execution; False when one with its ARN exists already."""
        row = {
            "arn": record["arn"],
            "run_id": run_id,
            "function": record["function"],
            "name": record["name"],
            "status": record["status"],
            "started": record["start"],
            "ended": record["end"],
            "record": json.dumps(record),
        }
        if conn is not None:
            return self._insert(conn, row)
        with self._lock, self.engine.begin() as own:
            return self._insert(own, row)

    @staticmethod
    def _insert(conn: sa.Connection, row: dict[str, Any]) -> bool:
        found = conn.execute(
            sa.select(executions_table.c.arn).where(executions_table.c.arn == row["arn"])
        ).first()
        if found is not None:
            return False
        conn.execute(executions_table.insert().values(**row))
        return True

    def get(self, arn: str) -> dict[str, Any] | None:
        with self.engine.connect() as conn:
            raw = conn.execute(
                sa.select(executions_table.c.record).where(executions_table.c.arn == arn)
            ).scalar()
        return None if raw is None else dict(json.loads(raw))

    def arn_of_run(self, run_id: str) -> str | None:
        with self.engine.connect() as conn:
            found = conn.execute(
                sa.select(executions_table.c.arn).where(executions_table.c.run_id == run_id)
            ).scalar()
        return None if found is None else str(found)

    @contextmanager
    def update(self, arn: str) -> Iterator[tuple[dict[str, Any], sa.Connection] | None]:
        """Read, change and write one execution in one locked transaction.

        Yields ``(record, connection)`` (the connection for rows written alongside, such
        as a chained execution), or None when there is no such execution.
        """
        table = executions_table
        with self._lock, self.engine.begin() as conn:
            conn.execute(table.update().where(table.c.arn == arn).values(arn=table.c.arn))
            raw = conn.execute(sa.select(table.c.record).where(table.c.arn == arn)).scalar()
            if raw is None:
                yield None
                return
            record = json.loads(raw)
            yield record, conn
            conn.execute(
                table.update()
                .where(table.c.arn == arn)
                .values(status=record["status"], ended=record["end"], record=json.dumps(record))
            )

    def list(
        self,
        *,
        function: str | None = None,
        name: str | None = None,
        statuses: list[str] | None = None,
        started_after: int | None = None,
        started_before: int | None = None,
        newest_first: bool = True,
        offset: int = 0,
        limit: int = 1000,
    ) -> list[ExecutionRow]:
        t = executions_table
        query = sa.select(
            t.c.arn, t.c.run_id, t.c.function, t.c.name, t.c.status, t.c.started, t.c.ended
        )
        if function is not None:
            query = query.where(t.c.function == function)
        if name is not None:
            query = query.where(t.c.name == name)
        if statuses:
            query = query.where(t.c.status.in_(statuses))
        if started_after is not None:
            query = query.where(t.c.started >= started_after)
        if started_before is not None:
            query = query.where(t.c.started <= started_before)
        order = t.c.started.desc() if newest_first else t.c.started.asc()
        query = query.order_by(order, t.c.arn).offset(offset).limit(limit)
        with self.engine.connect() as conn:
            return [
                ExecutionRow(str(r[0]), str(r[1]), str(r[2]), str(r[3]), str(r[4]), r[5], r[6])
                for r in conn.execute(query)
            ]

"""DBOS's own tables, declared once for the readers that query them directly.

The console's run list, the metrics tally and the port's take-back read or update
DBOS's system tables in bulk with SQL (one statement instead of a DBOS call per run).
They share these declarations, so a column DBOS renames is changed in one place.

Only the columns cfnops reads or writes are declared: a declaration is a query
builder here, never used to create the tables (DBOS's migrations do that).
"""

from __future__ import annotations

from typing import NamedTuple

import sqlalchemy as sa


class DbosTables(NamedTuple):
    """DBOS's run, input, output and step tables in one schema (``None`` on SQLite)."""

    status: sa.Table
    inputs: sa.Table
    outputs: sa.Table
    steps: sa.Table


def dbos_tables(schema: str | None) -> DbosTables:
    """DBOS's tables in ``schema`` (``"dbos"`` on PostgreSQL, ``None`` on SQLite)."""
    md = sa.MetaData()
    status = sa.Table(
        "workflow_status",
        md,
        sa.Column("workflow_uuid", sa.Text, primary_key=True),
        sa.Column("status", sa.Text),
        sa.Column("name", sa.Text),
        sa.Column("queue_name", sa.Text),
        sa.Column("executor_id", sa.Text),
        sa.Column("owner_xid", sa.Text),
        sa.Column("created_at", sa.BigInteger),
        sa.Column("updated_at", sa.BigInteger),
        sa.Column("started_at_epoch_ms", sa.BigInteger),
        schema=schema,
    )
    inputs = sa.Table(
        "workflow_input",
        md,
        sa.Column("workflow_uuid", sa.Text, primary_key=True),
        sa.Column("inputs", sa.Text),
        schema=schema,
    )
    outputs = sa.Table(
        "workflow_output",
        md,
        sa.Column("workflow_uuid", sa.Text, primary_key=True),
        sa.Column("output", sa.Text),
        sa.Column("error", sa.Text),
        schema=schema,
    )
    steps = sa.Table(
        "operation_outputs",
        md,
        sa.Column("workflow_uuid", sa.Text),
        sa.Column("function_name", sa.Text),
        sa.Column("started_at_epoch_ms", sa.BigInteger),
        sa.Column("completed_at_epoch_ms", sa.BigInteger),
        schema=schema,
    )
    return DbosTables(status, inputs, outputs, steps)

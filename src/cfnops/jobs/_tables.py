"""The job store's tables (SQLAlchemy Core) in the durable database, and JSON helpers."""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa

__all__ = [
    "alerts",
    "callbacks",
    "controls",
    "dumps",
    "events",
    "lineage",
    "loads",
    "metadata",
    "pool_slots",
    "pools",
    "runs",
    "schedules",
]

metadata = sa.MetaData()  # every job table: created by Database.ensure
runs = sa.Table(
    "cfnops_job_runs",
    metadata,
    sa.Column("run_id", sa.String(200), primary_key=True),
    sa.Column("machine_name", sa.String(200), nullable=False),
    sa.Column("definition", sa.Text, nullable=False),
    sa.Column("input", sa.Text, nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("output", sa.Text),
    sa.Column("error", sa.Text),
    sa.Column("cause", sa.Text),
    sa.Column("started_at", sa.Float, nullable=False),
    sa.Column("stopped_at", sa.Float),
    sa.Column("redrive_count", sa.Integer, nullable=False, default=0),
    sa.Column("history_base", sa.Integer, nullable=False, default=0),
    sa.Column("stop_requested", sa.Boolean, nullable=False, default=False),
    sa.Column("dbos_id", sa.String(250), nullable=False),
    sa.Column("options", sa.Text, nullable=False, default="{}"),
    sa.Column("parent_run_id", sa.String(200)),
    sa.Column("source", sa.String(200), nullable=False, default="manual"),
)
events = sa.Table(
    "cfnops_job_events",
    metadata,
    sa.Column("run_id", sa.String(200), primary_key=True),
    sa.Column("event_id", sa.Integer, primary_key=True),
    sa.Column("previous_event_id", sa.Integer, nullable=False),
    sa.Column("type", sa.String(64), nullable=False),
    sa.Column("ts", sa.Float, nullable=False),
    sa.Column("details", sa.Text, nullable=False),
)
callbacks = sa.Table(
    "cfnops_job_callbacks",
    metadata,
    sa.Column("token", sa.String(500), primary_key=True),
    sa.Column("run_id", sa.String(200), nullable=False),
    sa.Column("status", sa.String(16), nullable=False),  # WAITING | SUCCEEDED | FAILED
    sa.Column("output", sa.Text),
    sa.Column("error", sa.Text),
    sa.Column("cause", sa.Text),
    sa.Column("updated_at", sa.Float, nullable=False),
)
schedules = sa.Table(
    "cfnops_job_schedules",
    metadata,
    sa.Column("name", sa.String(200), primary_key=True),
    sa.Column("kind", sa.String(8), nullable=False),  # schedule | event
    sa.Column("definition", sa.Text, nullable=False),
    sa.Column("machine_name", sa.String(200), nullable=False),
    sa.Column("expression", sa.Text, nullable=False),  # cron/rate, or the event pattern JSON
    sa.Column("timezone", sa.String(64), nullable=False, default="UTC"),
    sa.Column("input", sa.Text, nullable=False, default="{}"),
    sa.Column("next_fire", sa.Float),
    sa.Column("options", sa.Text, nullable=False, default="{}"),
    sa.Column("created_at", sa.Float, nullable=False),
)

# Operator actions on a live run (hold, release, skip, force), read by the executing
# process; ``applied_key`` is the position (canonical JSON) of the state entry a skip or
# force took effect at, so that a replay applies it at the same place.
controls = sa.Table(
    "cfnops_job_controls",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("run_id", sa.String(200), nullable=False, index=True),
    sa.Column("action", sa.String(16), nullable=False),  # hold | release | skip | force
    sa.Column("state", sa.String(200)),
    sa.Column("payload", sa.Text, nullable=False, default="{}"),
    sa.Column("actor", sa.String(200), nullable=False),
    sa.Column("reason", sa.Text),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("applied_key", sa.String(1000)),
)
# A rerun's origin: one row per rerun (the run itself holds its start point in options).
lineage = sa.Table(
    "cfnops_job_lineage",
    metadata,
    sa.Column("run_id", sa.String(200), primary_key=True),
    sa.Column("origin_run_id", sa.String(200), nullable=False, index=True),
    sa.Column("mode", sa.String(16), nullable=False),
    sa.Column("state", sa.String(200)),
    sa.Column("created_at", sa.Float, nullable=False),
)


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


# -- job-manager features (issue 13): resource pools, dependency waits, delay alerts ------
pools = sa.Table(
    "cfnops_job_pools",
    metadata,
    sa.Column("name", sa.String(200), primary_key=True),
    sa.Column("capacity", sa.Integer, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
)
pool_slots = sa.Table(
    "cfnops_job_pool_slots",
    metadata,
    sa.Column("pool", sa.String(200), primary_key=True),
    sa.Column("run_id", sa.String(200), primary_key=True),
    sa.Column("holder", sa.String(1000), primary_key=True),  # the Task's position (token)
    sa.Column("acquired_at", sa.Float, nullable=False),
)
alerts = sa.Table(
    "cfnops_job_alerts",
    metadata,
    sa.Column("run_id", sa.String(200), primary_key=True),
    sa.Column("condition", sa.String(32), primary_key=True),  # late-start | long-run | deadline
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("details", sa.Text, nullable=False, default="{}"),
)

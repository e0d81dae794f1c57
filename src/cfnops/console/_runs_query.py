"""The Runs page's read model: one SQL query over DBOS's run tables and the job runs.

``RunStore.list_runs`` goes through DBOS's client, which loads every row it
filters in Python; a page of 50 out of 10,000 runs, filtered by kind, stack or
text, must be one indexed query instead. This module reads DBOS's
``workflow_status`` / ``workflow_input`` / ``workflow_output`` tables (schema
``dbos`` on PostgreSQL) read-only, joined with ``cfnops_job_runs`` for job
status and state machine name. Every cfnops run is the DBOS workflow
``cfnops.run`` whose first argument is the registered workflow name.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from cfnops.console.errors import BadFilter
from cfnops.durable import dbos_tables

PAGE_SIZE = 50
STATUSES = ("RUNNING", "HELD", "QUEUED", "SUCCEEDED", "FAILED", "CANCELLED", "ABORTED")
# A running heal waiting in its approval callback (submitted, neither answered nor
# expired: cfnops.heal's step names), or a job run an operator held.
_APPROVAL_SUBMIT = "approval submit"
_APPROVAL_ENDS = ("record-approval", "delete-change-set")
KINDS = ("heal", "ami", "job", "other")
_DBOS = {
    "RUNNING": ["PENDING"],
    "QUEUED": ["ENQUEUED", "DELAYED"],
    "SUCCEEDED": ["SUCCESS"],
    "FAILED": ["ERROR", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"],
    "CANCELLED": ["CANCELLED"],
}
_SHOWN = {v: k for k, vs in _DBOS.items() for v in vs}
# How DBOS's portable serializer writes the first argument (see durable/_inputs.py).
_KIND_LIKE = {"heal": '%["cfnops.heal",%', "ami": '%["cfnops.ami.%', "job": '%["cfnops.jobs.%'}


@dataclass(frozen=True)
class RunFilter:
    """The Runs page's filters, parsed from query parameters (400 on bad values)."""

    status: str | None = None
    kind: str | None = None
    stack: str | None = None
    text: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    page: int = 1

    @classmethod
    def parse(cls, params: dict[str, str]) -> RunFilter:
        def opt(name: str) -> str | None:
            value = params.get(name, "").strip()
            return value or None

        status, kind = opt("status"), opt("kind")
        if status is not None and status.upper() not in STATUSES:
            raise BadFilter("status", status, f"use one of {', '.join(STATUSES)}")
        if kind is not None and kind.lower() not in KINDS:
            raise BadFilter("kind", kind, f"use one of {', '.join(KINDS)}")
        page_text = opt("page") or "1"
        if not page_text.isdigit() or int(page_text) < 1:
            raise BadFilter("page", page_text, "a whole number from 1")
        return cls(
            status=status.upper() if status else None,
            kind=kind.lower() if kind else None,
            stack=opt("stack"),
            text=opt("text"),
            since=_time("since", opt("since")),
            until=_time("until", opt("until")),
            page=int(page_text),
        )

    def query(self, page: int | None = None) -> dict[str, str]:
        """These filters as query parameters (for links), on ``page``."""
        out = {
            "status": self.status or "",
            "kind": self.kind or "",
            "stack": self.stack or "",
            "text": self.text or "",
            "since": self.since.isoformat(timespec="minutes") if self.since else "",
            "until": self.until.isoformat(timespec="minutes") if self.until else "",
            "page": str(page or self.page),
        }
        return {k: v for k, v in out.items() if v}


def _time(name: str, text: str | None) -> datetime | None:
    if text is None:
        return None
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise BadFilter(name, text, "an ISO 8601 time such as 2026-11-24T18:00") from None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


@dataclass(frozen=True)
class RunRow:
    run_id: str
    workflow: str
    kind: str
    status: str
    target: str
    created: datetime
    updated: datetime
    error: str | None
    job_run: str | None = None
    waiting: str | None = None  # what a HELD run waits for

    @property
    def duration(self) -> str:
        seconds = (self.updated - self.created).total_seconds()
        if self.status in ("RUNNING", "QUEUED", "HELD"):
            seconds = (datetime.now(UTC) - self.created).total_seconds()
        if seconds < 60:
            return f"{seconds:.1f} s"
        return f"{int(seconds // 60)} min {int(seconds % 60)} s"

    @property
    def link(self) -> str:
        return f"/jobs/{self.job_run}" if self.job_run else f"/runs/{self.run_id}"


@dataclass(frozen=True)
class RunPage:
    rows: list[RunRow]
    total: int
    page: int

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // PAGE_SIZE))


def _controls_table() -> sa.Table:
    return sa.Table(
        "cfnops_job_controls",
        sa.MetaData(),
        sa.Column("id", sa.Integer),
        sa.Column("run_id", sa.String(200)),
        sa.Column("action", sa.String(16)),
    )


def _jobs_table() -> sa.Table:
    return sa.Table(
        "cfnops_job_runs",
        sa.MetaData(),
        sa.Column("run_id", sa.String(200), primary_key=True),
        sa.Column("machine_name", sa.String(200)),
        sa.Column("status", sa.String(16)),
    )


class RunsQuery:
    """Pages of runs and a cheap change marker, on one SQLAlchemy engine."""

    def __init__(self, engine: sa.Engine) -> None:
        self.engine = engine
        schema = "dbos" if engine.dialect.name == "postgresql" else None
        dbos = dbos_tables(schema)
        self.status, self.inputs, self.outputs = dbos.status, dbos.inputs, dbos.outputs
        self._steps = dbos.steps
        self.jobs = _jobs_table()
        self._schema = schema

    def _held_conditions(self, has_jobs: bool) -> tuple[Any, Any]:
        """SQL: this run waits for an approval; an operator holds this job run."""
        uuid = self.status.c.workflow_uuid
        steps = self._steps
        submitted = sa.exists().where(
            steps.c.workflow_uuid == uuid, steps.c.function_name == _APPROVAL_SUBMIT
        )
        answered = sa.exists().where(
            steps.c.workflow_uuid == uuid, steps.c.function_name.in_(_APPROVAL_ENDS)
        )
        approval = sa.and_(self.status.c.status == "PENDING", submitted, sa.not_(answered))
        if not has_jobs:
            return approval, sa.false()
        c, later = _controls_table(), _controls_table().alias("later")
        released = sa.exists().where(
            later.c.run_id == c.c.run_id, later.c.action == "release", later.c.id > c.c.id
        )
        hold = sa.exists().where(c.c.run_id == uuid, c.c.action == "hold", sa.not_(released))
        return approval, sa.and_(self.status.c.status == "PENDING", hold)

    def _ready(self) -> tuple[bool, bool]:
        inspector = sa.inspect(self.engine)
        return (
            inspector.has_table("workflow_status", schema=self._schema),
            inspector.has_table("cfnops_job_runs"),
        )

    def marker(self) -> tuple[Any, ...]:
        """Changes whenever a run starts, moves or ends."""
        if not self._ready()[0]:
            return (0, 0)
        query = sa.select(sa.func.count(), sa.func.max(self.status.c.updated_at))
        with self.engine.connect() as conn:
            return tuple(conn.execute(query).one())

    def run_marker(self, run_id: str) -> tuple[Any, ...]:
        """Changes whenever one run moves (its status or its last update)."""
        query = sa.select(self.status.c.status, self.status.c.updated_at).where(
            self.status.c.workflow_uuid == run_id
        )
        with self.engine.connect() as conn:
            found = conn.execute(query).first()
        return tuple(found) if found else ()

    def _status_conditions(
        self, status: str | None, has_jobs: bool, approval: Any, hold: Any
    ) -> list[Any]:
        """What the status filter asks of a run (as its row shows it)."""
        st, jobs = self.status, self.jobs
        if status == "ABORTED":
            job_status: Any = jobs.c.status if has_jobs else sa.null()
            return [job_status == "ABORTED"]
        if status == "HELD":
            return [sa.or_(approval, hold)]
        if status == "RUNNING":
            conds = [st.c.status.in_(_DBOS["RUNNING"]), sa.not_(approval), sa.not_(hold)]
            if has_jobs:
                conds.append(sa.or_(jobs.c.status.is_(None), jobs.c.status == "RUNNING"))
            return conds
        if status and has_jobs:
            # A job-net that failed ends its DBOS workflow normally (SUCCESS): the row shows
            # the job run's status, and the filter matches what the row shows.
            shown = sa.or_(jobs.c.status.is_(None), jobs.c.status == "RUNNING")
            return [
                sa.or_(
                    sa.and_(shown, st.c.status.in_(_DBOS[status])),
                    jobs.c.status == status,
                )
            ]
        if status:
            return [st.c.status.in_(_DBOS[status])]
        return []

    def _filter_conditions(self, flt: RunFilter) -> list[Any]:
        """What the kind, stack, text and time filters ask of a run."""
        st, inp = self.status, self.inputs
        conds: list[Any] = []
        if flt.kind in _KIND_LIKE:
            conds.append(inp.c.inputs.like(_KIND_LIKE[flt.kind]))
        elif flt.kind == "other":
            conds.extend(sa.not_(inp.c.inputs.like(p)) for p in _KIND_LIKE.values())
        if flt.stack:
            conds.append(
                inp.c.inputs.contains(f'"StackName":{json.dumps(flt.stack)}', autoescape=True)
            )
        if flt.text:
            conds.append(
                sa.or_(
                    st.c.workflow_uuid.icontains(flt.text, autoescape=True),
                    inp.c.inputs.icontains(flt.text, autoescape=True),
                )
            )
        if flt.since:
            conds.append(st.c.created_at >= int(flt.since.timestamp() * 1000))
        if flt.until:
            conds.append(st.c.created_at <= int(flt.until.timestamp() * 1000))
        return conds

    def page(self, flt: RunFilter, size: int = PAGE_SIZE) -> RunPage:
        """One page of ``size`` runs (a batch action selects every match: a large size)."""
        has_runs, has_jobs = self._ready()
        if not has_runs:
            return RunPage([], 0, flt.page)
        st, inp, out, jobs = self.status, self.inputs, self.outputs, self.jobs
        joined = st.outerjoin(inp, inp.c.workflow_uuid == st.c.workflow_uuid).outerjoin(
            out, out.c.workflow_uuid == st.c.workflow_uuid
        )
        job_status: Any = sa.null()
        machine: Any = sa.null()
        if has_jobs:
            joined = joined.outerjoin(jobs, jobs.c.run_id == st.c.workflow_uuid)
            job_status, machine = jobs.c.status, jobs.c.machine_name
        approval, hold = self._held_conditions(has_jobs)
        conds: list[Any] = [st.c.name == "cfnops.run"]
        conds += self._status_conditions(flt.status, has_jobs, approval, hold)
        conds += self._filter_conditions(flt)
        where = sa.and_(*conds)
        rows_q = (
            sa.select(
                st.c.workflow_uuid,
                st.c.status,
                st.c.created_at,
                st.c.updated_at,
                inp.c.inputs,
                out.c.output,
                out.c.error,
                job_status.label("job_status"),
                machine.label("machine"),
                approval.label("approval"),
                hold.label("hold"),
            )
            .select_from(joined)
            .where(where)
            .order_by(st.c.created_at.desc())
            .limit(size)
            .offset((flt.page - 1) * size)
        )
        count_q = sa.select(sa.func.count()).select_from(joined).where(where)
        with self.engine.connect() as conn:
            total = int(conn.execute(count_q).scalar() or 0)
            rows = [_row(r) for r in conn.execute(rows_q)]
        return RunPage(rows, total, flt.page)


def _loads(text: str | None) -> Any:
    try:
        return None if text is None else json.loads(text)
    except ValueError:
        return None


def _kind(workflow: str) -> str:
    if workflow == "cfnops.heal":
        return "heal"
    for kind, prefix in (("ami", "cfnops.ami."), ("job", "cfnops.jobs.")):
        if workflow.startswith(prefix):
            return kind
    return "other"


def _row(r: Any) -> RunRow:
    args = _loads(r.inputs)
    positional = (
        (args.get("positionalArgs") or args.get("args") or []) if isinstance(args, dict) else []
    )
    workflow = str(positional[0]) if positional else "?"
    event = positional[1] if len(positional) > 1 and isinstance(positional[1], dict) else {}
    kind = _kind(workflow)
    status = _SHOWN.get(r.status, r.status)
    if r.job_status and r.job_status != "RUNNING":
        status = r.job_status
    output = _loads(r.output)
    if status == "SUCCEEDED" and isinstance(output, dict) and output.get("outcome"):
        status = str(output["outcome"])
    target = r.machine or event.get("StackName") or event.get("runId") or ""
    if event.get("Region"):
        target = f"{target} ({event['Region']})"
    waiting = None
    if status == "RUNNING" and (r.approval or r.hold):
        status = "HELD"
        waiting = "waiting for approval" if r.approval else "held by an operator"
    error = _loads(r.error)
    if isinstance(error, dict):
        error = f"{error.get('name')}: {error.get('message')}"
    return RunRow(
        run_id=r.workflow_uuid,
        workflow=workflow,
        kind=kind,
        status=status,
        target=str(target),
        created=datetime.fromtimestamp(r.created_at / 1000, tz=UTC),
        updated=datetime.fromtimestamp(r.updated_at / 1000, tz=UTC),
        error=None if error is None else str(error),
        job_run=str(event.get("runId")) if kind == "job" and event.get("runId") else None,
        waiting=waiting,
    )

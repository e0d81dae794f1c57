"""The Job run page: graph by state status, iterations, timeline, history, live deltas.

Statuses come from :func:`cfnops.jobs.derive_status`, the derivation ``cfnops job
show`` uses. The page embeds a snapshot and the newest events; older events are
fetched a page at a time (``/events?before=ID``). The live stream sends only
what changed: events after the last one sent, changed statuses and iteration
rows, the run's status and actions, holds, audit entries and reruns.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from cfnops.console._jobdata import (
    Scope,
    delta,
    event_row,
    page_of,
    parse_scope,
    scoped_states,
    snapshot,
    state_actions,
)
from cfnops.console._jobview import graph_elements, run_command_invocations
from cfnops.console._pages_control import jobs_for, require_reason
from cfnops.console._web import (
    authorize_post,
    console_of,
    principal_of,
    render,
    stream,
)
from cfnops.console.errors import BadFilter, NotFound, RunFinished
from cfnops.jobs import JobService, RunRow, derive_status, iter_states
from cfnops.jobs.errors import UnknownJobRun

QUEUE = "cfnops"  # redrives run in `cfnops worker`, never inside the console
FIRST_EVENTS = 200  # events embedded in the page; older ones come a page at a time
PAGE_EVENTS = 500


class _Derived:
    """The last few runs' histories and their derived statuses, kept while the history is
    unchanged (its fingerprint: count, last id, sum of timestamps). A state panel on a
    10,000-event run read and derived the whole history at every click (~280 ms at load
    1.7); a click on an unchanged run now costs one aggregate query."""

    SIZE = 4  # runs kept (a 10,000-event run's history is some megabytes)

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: OrderedDict[str, tuple[Any, list[dict[str, Any]], Any]] = OrderedDict()

    def get(self, jobs: JobService, row: RunRow) -> tuple[list[dict[str, Any]], Any]:
        """``(history, derive_status(history, definition))`` of ``row``'s run; both are
        shared with other requests: read them, never change them."""
        key = (jobs.store.history_fingerprint(row.run_id), row.redrive_count, row.status)
        with self._lock:
            found = self._runs.get(row.run_id)
            if found is not None and found[0] == key:
                self._runs.move_to_end(row.run_id)
                return found[1], found[2]
        history = jobs.store.history(row.run_id)
        derived = derive_status(history, row.definition)
        with self._lock:
            self._runs[row.run_id] = (key, history, derived)
            self._runs.move_to_end(row.run_id)
            while len(self._runs) > self.SIZE:
                self._runs.popitem(last=False)
        return history, derived


_DERIVED = _Derived()


def _row(jobs: JobService, run_id: str) -> RunRow:
    try:
        return jobs.store.get_run(run_id)
    except UnknownJobRun:
        raise NotFound(f"no job run {run_id!r}", hint="pick one on the Runs page") from None


def _roles(request: Request) -> frozenset[str]:
    who = principal_of(request)
    return frozenset(who.roles) if who else frozenset()


def _audit_rows(request: Request, run_id: str) -> list[dict[str, Any]]:
    entries = console_of(request).audit.list(target=run_id, limit=50)
    return [
        {"id": e.id, "at": e.at.strftime("%Y-%m-%d %H:%M:%S"), "actor": e.actor,
         "action": e.action, "reason": e.reason or "-"}
        for e in entries
    ]  # fmt: skip


def _reruns(lineage: Mapping[str, Any]) -> list[str]:
    return [str(r["runId"]) for r in lineage.get("reruns") or []]


def _load(request: Request, run_id: str) -> dict[str, Any]:
    jobs = jobs_for(request)
    row = _row(jobs, run_id)
    history, derived = _DERIVED.get(jobs, row)
    scope = parse_scope(request.query_params, row.definition)
    lineage = jobs.lineage(run_id)
    wants = request.query_params.get("timeline") == "1"
    data = snapshot(row, derived, scope, bool(lineage["held"]), _roles(request), timeline=wants)
    data["events"], data["moreEvents"] = page_of(history, None, "", FIRST_EVENTS)
    data["audit"], data["reruns"] = _audit_rows(request, run_id), _reruns(lineage)
    data["scope"] = {"state": scope.state, "map": scope.group, "iteration": scope.iteration}
    entries = console_of(request).audit.list(target=run_id, limit=50)
    return {"row": row, "data": data, "lineage": lineage, "scope": scope, "audit": entries}


async def job_page(request: Request) -> Response:
    run_id = request.path_params["run_id"]
    loaded = await anyio.to_thread.run_sync(_load, request, run_id)
    row: RunRow = loaded["row"]
    return render(
        request,
        "job.html",
        row=row,
        data=loaded["data"],
        elements=graph_elements(row.definition),
        audit=loaded["audit"],
        lineage=loaded["lineage"],
        actions=loaded["data"]["actions"],
        state_names=[name for name, _ in iter_states(row.definition)],
    )


async def job_data(request: Request) -> Response:
    loaded = await anyio.to_thread.run_sync(_load, request, request.path_params["run_id"])
    return JSONResponse(loaded["data"])


async def job_events(request: Request) -> Response:
    """A page of events, newest first: ``?before=ID&q=TEXT&limit=N``."""
    jobs, run_id = jobs_for(request), request.path_params["run_id"]
    before_text = request.query_params.get("before", "")
    limit_text = request.query_params.get("limit", str(PAGE_EVENTS))
    if before_text and not before_text.isdigit():
        raise BadFilter("before", before_text, "an event id")
    if not limit_text.isdigit() or not 1 <= int(limit_text) <= 5000:
        raise BadFilter("limit", limit_text, "a whole number from 1 to 5000")
    needle = request.query_params.get("q", "")

    def load() -> dict[str, Any]:
        _row(jobs, run_id)
        history = jobs.store.history(run_id)
        found, more = page_of(history, int(before_text) if before_text else None, needle,
                              int(limit_text))  # fmt: skip
        return {"events": found, "more": more}

    return JSONResponse(await anyio.to_thread.run_sync(load))


class _Live:
    """One open page's stream: what it has been sent, to send only what changed."""

    def __init__(self, request: Request, run_id: str, scope: Scope, after: int) -> None:
        self.request, self.run_id, self.scope = request, run_id, scope
        self.jobs = jobs_for(request)
        self.roles = _roles(request)
        self.history = self.jobs.store.history(self.run_id)
        self.sent_upto = after
        base = [e for e in self.history if int(e["id"]) <= after]
        row = _row(self.jobs, run_id)
        self.before: dict[str, Any] | None = snapshot(
            row, derive_status(base, row.definition), scope, False, self.roles
        )
        self.first = True
        self.extras: dict[str, Any] = {}

    def marker(self) -> Any:
        last = int(self.history[-1]["id"]) if self.history else 0
        self.history.extend(self.jobs.store.history(self.run_id, after=last))
        row = _row(self.jobs, self.run_id)
        lineage = self.jobs.lineage(self.run_id)
        audit = _audit_rows(self.request, self.run_id)
        self.extras = {"row": row, "lineage": lineage, "audit": audit}
        head = audit[0]["id"] if audit else 0
        return (len(self.history), row.status, lineage["held"], head, len(lineage["reruns"]))

    def payload(self) -> str:
        row: RunRow = self.extras["row"]
        lineage = self.extras["lineage"]
        now = snapshot(row, derive_status(self.history, row.definition), self.scope,
                       bool(lineage["held"]), self.roles)  # fmt: skip
        now["audit"], now["reruns"] = self.extras["audit"], _reruns(lineage)
        update = delta(self.before, now)
        if self.first:  # the page may be older than the stream: restate the run's state
            self.first = False
            for key in ("status", "error", "cause", "held", "actions", "audit", "reruns"):
                update[key] = now[key]
        self.before = now
        fresh = [event_row(e) for e in self.history if int(e["id"]) > self.sent_upto]
        if fresh:
            update["events"] = fresh
            self.sent_upto = int(fresh[-1]["id"])
        update.pop("lastEvent", None)
        update["lastEvent"] = self.sent_upto
        return json.dumps(update, ensure_ascii=False, separators=(",", ":"))


async def job_stream(request: Request) -> Response:
    run_id = request.path_params["run_id"]
    after_text = request.query_params.get("after", "0")
    if not after_text.isdigit():
        raise BadFilter("after", after_text, "the last event id the page has")

    def open_live() -> _Live:
        row = _row(jobs_for(request), run_id)
        scope = parse_scope(request.query_params, row.definition)
        return _Live(request, run_id, scope, int(after_text))

    live = await anyio.to_thread.run_sync(open_live)
    return stream(request, live.marker, live.payload)


async def state_panel(request: Request) -> Response:
    jobs, run_id = jobs_for(request), request.path_params["run_id"]
    state = request.query_params.get("state", "")

    def load() -> dict[str, Any]:
        row = _row(jobs, run_id)
        history, derived = _DERIVED.get(jobs, row)
        scope = parse_scope(request.query_params, row.definition)
        visit = scoped_states(derived, scope).get(state)
        return {
            "row": row,
            "state": state,
            "visit": visit,
            "map_name": scope.group if scope.iteration is not None else None,
            "index": scope.iteration,
            "state_actions": state_actions(row, visit, _roles(request)),
            "invocations": run_command_invocations(visit, history) if visit else [],
        }

    context = await anyio.to_thread.run_sync(load)
    return render(request, "_state_panel.html", **context)


async def stop(request: Request) -> Response:
    actor, form = await authorize_post(request, "operator")
    jobs, run_id = jobs_for(request), request.path_params["run_id"]
    row = await anyio.to_thread.run_sync(_row, jobs, run_id)
    if row.status != "RUNNING":
        raise RunFinished(run_id, row.status, "stop")
    reason = require_reason(form, "stop")
    await anyio.to_thread.run_sync(jobs.stop, run_id)
    await _audit(request, actor, "stop", run_id, reason)
    return RedirectResponse(f"/jobs/{run_id}", status_code=303)


async def redrive(request: Request) -> Response:
    actor, form = await authorize_post(request, "operator")
    jobs, run_id = jobs_for(request), request.path_params["run_id"]
    row = await anyio.to_thread.run_sync(_row, jobs, run_id)
    if row.status not in ("FAILED", "TIMED_OUT", "ABORTED"):
        raise RunFinished(run_id, row.status, "redrive")
    reason = require_reason(form, "redrive")
    dbos_id = await anyio.to_thread.run_sync(lambda: jobs.redrive(run_id, queue=QUEUE))
    await _audit(request, actor, "redrive", run_id, reason, {"dbosId": dbos_id})
    return RedirectResponse(f"/jobs/{run_id}", status_code=303)


async def _audit(
    request: Request,
    actor: str,
    action: str,
    target: str,
    reason: str,
    detail: dict[str, Any] | None = None,
) -> None:
    audit = console_of(request).audit
    await anyio.to_thread.run_sync(
        lambda: audit.record(
            actor=actor, action=action, target=target, reason=reason, detail=detail
        )
    )


routes = [
    Route("/jobs/{run_id}", job_page),
    Route("/jobs/{run_id}/data", job_data),
    Route("/jobs/{run_id}/events", job_events),
    Route("/jobs/{run_id}/stream", job_stream),
    Route("/jobs/{run_id}/state", state_panel),
    Route("/jobs/{run_id}/stop", stop, methods=["POST"]),
    Route("/jobs/{run_id}/redrive", redrive, methods=["POST"]),
]

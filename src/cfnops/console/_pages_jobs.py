"""The Job run page: graph by state status, iterations, state panels, history, actions."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from cfnops.console._jobview import (
    fold,
    graph_elements,
    iteration_events,
    iterations,
    run_command_invocations,
)
from cfnops.console._pages_control import jobs_for
from cfnops.console._web import authorize_post, console_of, render, stream
from cfnops.console.errors import BadFilter, NotFound, RunFinished
from cfnops.jobs import JobService, RunRow
from cfnops.jobs._runner import iter_states
from cfnops.jobs.errors import UnknownJobRun

QUEUE = "cfnops"  # redrives run in `cfnops worker`, never inside the console


def _jobs(request: Request) -> JobService:
    return jobs_for(request)


def _row(jobs: JobService, run_id: str) -> RunRow:
    try:
        return jobs.store.get_run(run_id)
    except UnknownJobRun:
        raise NotFound(f"no job run {run_id!r}", hint="pick one on the Runs page") from None


def _scope(
    request: Request, history: Sequence[Mapping[str, Any]]
) -> tuple[str | None, int | None, list[Mapping[str, Any]]]:
    """The Map iteration asked for (``?map=NAME&index=N``) and its events."""
    name = request.query_params.get("map") or None
    index_text = request.query_params.get("index") or None
    if name is None or index_text is None:
        return None, None, list(history)
    if not index_text.isdigit():
        raise BadFilter("index", index_text, "an iteration index (0, 1, 2, ...)")
    known = iterations(history)
    if name not in known:
        raise BadFilter("map", name, f"a Map state that ran ({', '.join(known) or 'none yet'})")
    index = int(index_text)
    return name, index, iteration_events(history, name, index)


def _data(jobs: JobService, run_id: str, request: Request) -> dict[str, Any]:
    row = _row(jobs, run_id)
    history = jobs.store.history(run_id)
    top = fold(history)
    statuses = {name: v.status for name, v in top.items()}
    name, _index, events = _scope(request, history)
    if name is not None:
        statuses.update({n: v.status for n, v in fold(events).items()})
    return {
        "runId": run_id,
        "status": row.status,
        "error": row.error,
        "cause": row.cause,
        "statuses": statuses,
        "iterations": iterations(history),
        "history": [_event_row(e) for e in history],
    }


def _event_row(e: Mapping[str, Any]) -> dict[str, Any]:
    details = e.get("details") or {}
    return {
        "id": e["id"],
        "type": e["type"],
        "timestamp": e["timestamp"],
        "state": details.get("name", ""),
        "details": json.dumps(details, ensure_ascii=False)[:400],
    }


async def job_page(request: Request) -> Response:
    run_id = request.path_params["run_id"]
    jobs = _jobs(request)
    row = await anyio.to_thread.run_sync(_row, jobs, run_id)
    data = await anyio.to_thread.run_sync(_data, jobs, run_id, request)
    audit = console_of(request).audit
    entries = await anyio.to_thread.run_sync(lambda: audit.list(target=run_id, limit=50))
    lineage = await anyio.to_thread.run_sync(jobs.lineage, run_id)
    return render(
        request,
        "job.html",
        row=row,
        data=data,
        elements=graph_elements(row.definition),
        audit=entries,
        lineage=lineage,
        state_names=[name for name, _ in iter_states(row.definition)],
    )


async def job_data(request: Request) -> Response:
    jobs = _jobs(request)
    run_id = request.path_params["run_id"]
    return JSONResponse(await anyio.to_thread.run_sync(_data, jobs, run_id, request))


async def job_stream(request: Request) -> Response:
    jobs, run_id = _jobs(request), request.path_params["run_id"]
    await anyio.to_thread.run_sync(_row, jobs, run_id)

    def marker() -> Any:
        events = jobs.store.event_times(run_id, 0)
        return (len(events), max(events, default=0), jobs.store.get_run(run_id).status)

    return stream(request, marker, lambda: json.dumps(_data(jobs, run_id, request)))


async def state_panel(request: Request) -> Response:
    jobs, run_id = _jobs(request), request.path_params["run_id"]
    state = request.query_params.get("state", "")

    def load() -> dict[str, Any]:
        row = _row(jobs, run_id)
        history = jobs.store.history(run_id)
        name, index, events = _scope(request, history)
        visits = fold(events)
        visit = visits.get(state) or fold(history).get(state)
        return {
            "row": row,
            "state": state,
            "visit": visit,
            "map_name": name,
            "index": index,
            "invocations": run_command_invocations(visit, history) if visit else [],
        }

    context = await anyio.to_thread.run_sync(load)
    return render(request, "_state_panel.html", **context)


async def stop(request: Request) -> Response:
    actor, form = await authorize_post(request, "operator")
    jobs, run_id = _jobs(request), request.path_params["run_id"]
    row = await anyio.to_thread.run_sync(_row, jobs, run_id)
    if row.status != "RUNNING":
        raise RunFinished(run_id, row.status, "stop")
    await anyio.to_thread.run_sync(jobs.stop, run_id)
    await _audit(request, actor, "stop", run_id, form)
    return RedirectResponse(f"/jobs/{run_id}", status_code=303)


async def redrive(request: Request) -> Response:
    actor, form = await authorize_post(request, "operator")
    jobs, run_id = _jobs(request), request.path_params["run_id"]
    await anyio.to_thread.run_sync(_row, jobs, run_id)
    dbos_id = await anyio.to_thread.run_sync(lambda: jobs.redrive(run_id, queue=QUEUE))
    await _audit(request, actor, "redrive", run_id, form, {"dbosId": dbos_id})
    return RedirectResponse(f"/jobs/{run_id}", status_code=303)


async def _audit(
    request: Request,
    actor: str,
    action: str,
    target: str,
    form: dict[str, str],
    detail: dict[str, Any] | None = None,
) -> None:
    audit = console_of(request).audit
    reason = form.get("reason") or None
    await anyio.to_thread.run_sync(
        lambda: audit.record(
            actor=actor, action=action, target=target, reason=reason, detail=detail
        )
    )


routes = [
    Route("/jobs/{run_id}", job_page),
    Route("/jobs/{run_id}/data", job_data),
    Route("/jobs/{run_id}/stream", job_stream),
    Route("/jobs/{run_id}/state", state_panel),
    Route("/jobs/{run_id}/stop", stop, methods=["POST"]),
    Route("/jobs/{run_id}/redrive", redrive, methods=["POST"]),
]

"""Heal: the fleet (stack, region, status), drift reports, held change sets to decide."""

from __future__ import annotations

import json
from typing import Any

import anyio
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from cfnops.console._runs_query import RunFilter
from cfnops.console._web import authorize_post, console_of, render, stream
from cfnops.console.errors import BadFilter, NotFound
from cfnops.durable import RunRecord, RunStore, StepRecord
from cfnops.durable.errors import UnknownRun
from cfnops.heal import (
    HEAL_WORKFLOW,
    answer_approval,
    gate_decision,
    held_changes,
    held_info,
    polled_drift,
    run_outcome,
)

_FLEET_PAGES = 20  # the fleet view reads up to 1,000 heal runs, newest first


def _fleet(request: Request) -> dict[str, Any]:
    query = console_of(request).runs
    latest: dict[tuple[str, str], Any] = {}
    held = []
    for number in range(1, _FLEET_PAGES + 1):
        page = query.page(RunFilter(kind="heal", page=number))
        for row in page.rows:
            stack, _, region = row.target.partition(" (")
            key = (stack, region.rstrip(")") or "default")
            latest.setdefault(key, row)
        if number >= page.pages:
            break
    with RunStore(console_of(request).database) as store:
        for row in latest.values():
            if row.status in ("RUNNING", "HELD"):  # the Runs query reads a hold as HELD
                record = store.get(row.run_id)
                info = held_info(record, store.steps(row.run_id))
                if info is not None:
                    held.append(info)
    return {"fleet": sorted(latest.items()), "held": held, "held_ids": {h.run_id for h in held}}


async def heal_page(request: Request) -> Response:
    context = await anyio.to_thread.run_sync(_fleet, request)
    return render(request, "heal.html", **context)


def _load(request: Request, run_id: str) -> tuple[RunRecord, list[StepRecord]]:
    with RunStore(console_of(request).database) as store:
        try:
            record = store.get(run_id)
        except UnknownRun:
            raise NotFound(f"no run with id {run_id!r}", hint="pick one on the Heal page") from None
        if record.workflow != HEAL_WORKFLOW:
            raise NotFound(f"run {run_id!r} is a {record.workflow} run, not a heal run")
        return record, store.steps(run_id)


async def heal_run(request: Request) -> Response:
    run_id = request.path_params["run_id"]
    record, steps = await anyio.to_thread.run_sync(_load, request, run_id)
    audit = console_of(request).audit
    entries = await anyio.to_thread.run_sync(lambda: audit.list(target=run_id, limit=50))
    return render(
        request,
        "heal_run.html",
        record=record,
        steps=steps,
        outcome=run_outcome(record, steps),
        held=held_info(record, steps),
        gate=gate_decision(steps),
        drift=polled_drift(steps),
        changes=held_changes(steps),
        audit=entries,
    )


async def heal_stream(request: Request) -> Response:
    run_id = request.path_params["run_id"]
    await anyio.to_thread.run_sync(_load, request, run_id)
    query = console_of(request).runs
    return stream(request, lambda: query.run_marker(run_id), lambda: json.dumps({"run": run_id}))


async def _decide(request: Request, verdict: str) -> Response:
    actor, form = await authorize_post(request, "approver")
    run_id = request.path_params["run_id"]
    reason = form.get("reason", "").strip()
    if not reason:
        raise BadFilter("reason", "", f"say why you {verdict} (it is recorded with your name)")
    await anyio.to_thread.run_sync(_load, request, run_id)
    database = console_of(request).database
    await anyio.to_thread.run_sync(  # records the audit row itself
        lambda: answer_approval(database, run_id, verdict, reason=reason, by=actor)
    )
    return RedirectResponse(f"/heal/runs/{run_id}", status_code=303)


async def approve(request: Request) -> Response:
    return await _decide(request, "approve")


async def reject(request: Request) -> Response:
    return await _decide(request, "reject")


routes = [
    Route("/heal", heal_page),
    Route("/heal/runs/{run_id}", heal_run),
    Route("/heal/runs/{run_id}/stream", heal_stream),
    Route("/heal/runs/{run_id}/approve", approve, methods=["POST"]),
    Route("/heal/runs/{run_id}/reject", reject, methods=["POST"]),
]

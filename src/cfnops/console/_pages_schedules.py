"""Schedules and event triggers: next fire, last outcome, enable/disable."""

from __future__ import annotations

from typing import Any

import anyio
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from cfnops.console._web import authorize_post, console_of, render
from cfnops.console.errors import NotFound
from cfnops.jobs import JobService, TriggerService
from cfnops.jobs.errors import UnknownSchedule


def _entries(request: Request) -> list[dict[str, Any]]:
    jobs = JobService(console_of(request).runtime)
    entries = TriggerService(jobs).entries()
    recent = jobs.store.list_runs(limit=2000)
    for entry in entries:
        prefix = entry["kind"] if entry["kind"] in ("event", "after") else "schedule"
        source = f"{prefix}:{entry['name']}"
        last = next((r for r in recent if r.source == source), None)
        entry["last"] = last
    return entries


async def schedules_page(request: Request) -> Response:
    entries = await anyio.to_thread.run_sync(_entries, request)
    return render(request, "schedules.html", entries=entries)


async def _set(request: Request, enabled: bool) -> Response:
    actor, form = await authorize_post(request, "operator")
    name = request.path_params["name"]
    jobs = JobService(console_of(request).runtime)
    try:
        await anyio.to_thread.run_sync(lambda: TriggerService(jobs).set_enabled(name, enabled))
    except UnknownSchedule as exc:
        raise NotFound(exc.message, hint=exc.hint) from None
    audit = console_of(request).audit
    action = "enable" if enabled else "disable"
    reason = form.get("reason") or None
    await anyio.to_thread.run_sync(
        lambda: audit.record(actor=actor, action=action, target=f"schedule:{name}", reason=reason)
    )
    return RedirectResponse("/schedules", status_code=303)


async def enable(request: Request) -> Response:
    return await _set(request, True)


async def disable(request: Request) -> Response:
    return await _set(request, False)


routes = [
    Route("/schedules", schedules_page),
    Route("/schedules/{name}/enable", enable, methods=["POST"]),
    Route("/schedules/{name}/disable", disable, methods=["POST"]),
]

"""Runs (every durable run, live), one run's steps, the audit log, and signing in."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from cfnops.console._auth import COOKIE
from cfnops.console._run_history import MAX_ITEMS, history_json, history_page, whole_number
from cfnops.console._runs_query import KINDS, STATUSES, RunFilter
from cfnops.console._web import console_of, render, stream, templates
from cfnops.console.errors import BadFilter, Forbidden, NotFound
from cfnops.durable import RunStore, UnknownExecution, UnknownRun, run_history
from cfnops.jobs import BATCH_ACTIONS


def _filter(request: Request) -> RunFilter:
    return RunFilter.parse(dict(request.query_params))


def _table_context(request: Request, flt: RunFilter) -> dict[str, Any]:
    page = console_of(request).runs.page(flt)
    return {
        "page": page,
        "flt": flt,
        "prev_q": urlencode(flt.query(page.page - 1)) if page.page > 1 else None,
        "next_q": urlencode(flt.query(page.page + 1)) if page.page < page.pages else None,
        "live_q": urlencode(flt.query()),
    }


async def runs_page(request: Request) -> Response:
    flt = _filter(request)
    context = await anyio.to_thread.run_sync(_table_context, request, flt)
    return render(
        request, "runs.html", statuses=STATUSES, kinds=KINDS, batch_actions=BATCH_ACTIONS,
        **context,
    )  # fmt: skip


async def runs_stream(request: Request) -> Response:
    flt = _filter(request)
    query = console_of(request).runs
    table = templates.get_template("_runs_table.html")

    def payload() -> str:
        return table.render(**_table_context(request, flt))

    return stream(request, query.marker, payload)


def _unknown(run_id: str) -> NotFound:
    return NotFound(f"no run with id {run_id!r}", hint="pick one on the Runs page")


async def run_page(request: Request) -> Response:
    run_id = request.path_params["run_id"]
    console = console_of(request)
    wanted = whole_number("history", request.query_params.get("history"), 1, 1, 10**6)

    def load() -> tuple[Any, Any]:
        with RunStore(console.database) as store:
            try:
                return store.get(run_id), store.steps(run_id)
            except UnknownRun:
                raise _unknown(run_id) from None

    record, steps = await anyio.to_thread.run_sync(load)
    if record.workflow == "cfnops.heal":
        return RedirectResponse(f"/heal/runs/{run_id}", status_code=303)
    if record.workflow.startswith("cfnops.jobs.") and isinstance(record.input, dict):
        return RedirectResponse(f"/jobs/{record.input.get('runId', run_id)}", status_code=303)
    events = await anyio.to_thread.run_sync(run_history, console.database, run_id)
    audit = await anyio.to_thread.run_sync(lambda: console.audit.list(target=run_id, limit=50))
    history = history_page(events, wanted)
    return render(request, "run.html", record=record, steps=steps, audit=audit, history=history)


async def run_history_data(request: Request) -> Response:
    """The run's history as JSON, paged as ``GetDurableExecutionHistory`` pages it."""
    run_id = request.path_params["run_id"]
    params = request.query_params
    marker = whole_number("Marker", params.get("Marker"), 0, 0, 10**9)
    size = whole_number("MaxItems", params.get("MaxItems"), MAX_ITEMS, 1, MAX_ITEMS)
    database = console_of(request).database

    def load() -> list[dict[str, Any]]:
        try:
            return run_history(database, run_id)
        except (UnknownRun, UnknownExecution):
            raise _unknown(run_id) from None

    events = await anyio.to_thread.run_sync(load)
    return JSONResponse({"RunId": run_id, **history_json(events, marker, size)})


async def audit_page(request: Request) -> Response:
    target = request.query_params.get("target") or None
    action = request.query_params.get("action") or None
    limit_text = request.query_params.get("limit", "200")
    if not limit_text.isdigit() or not 1 <= int(limit_text) <= 5000:
        raise BadFilter("limit", limit_text, "a whole number from 1 to 5000")
    audit = console_of(request).audit
    entries = await anyio.to_thread.run_sync(
        lambda: audit.list(target=target, action=action, limit=int(limit_text))
    )
    return render(request, "audit.html", entries=entries, target=target or "", action=action or "")


_WHY = {
    "expired": "Your session expired: sign in again.",
    "signed-out": "You are signed out.",
}


async def login(request: Request) -> Response:
    auth = console_of(request).auth
    nxt = request.query_params.get("next", "/runs")
    if not nxt.startswith("/") or nxt.startswith("//") or nxt.startswith("/\\"):
        nxt = "/runs"
    token = request.query_params.get("token")
    if request.method == "POST":
        token = str((await request.form()).get("token", ""))
    note = _WHY.get(request.query_params.get("why", ""))
    if token is None:
        # Already signed in (another tab of this browser signed in after a console
        # restart): back to where this tab was, without ending that tab's session.
        if auth.session(request.cookies.get(COOKIE), touch=False)[0] is not None:
            return RedirectResponse(nxt, status_code=303)
        return render(request, "login.html", next=nxt, failed=False, note=note)
    name = auth.name_for(token)
    if name is None or auth.principal(name).metrics_only:  # a scraper's token: no session
        return render(
            request, "login.html", status=403, next=nxt, failed=True, note=None,
            metrics_only=name is not None,
        )  # fmt: skip
    auth.end_session(request.cookies.get(COOKIE))  # a new id on each sign-in
    response = RedirectResponse(nxt, status_code=303)
    response.set_cookie(
        COOKIE,
        auth.start_session(name),
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    return response


async def logout(request: Request) -> Response:
    """Sign out: the session ends here (the cookie is useless from now on)."""
    auth = console_of(request).auth
    form = await request.form()
    cookie = request.cookies.get(COOKIE)
    if not auth.csrf_ok(cookie, str(form.get("csrf", ""))):
        raise Forbidden("missing or wrong CSRF token", hint="reload the page and try again")
    auth.end_session(cookie)
    response = RedirectResponse("/login?why=signed-out", status_code=303)
    response.delete_cookie(COOKIE, httponly=True, samesite="strict")
    return response


async def root(request: Request) -> Response:
    return RedirectResponse("/runs", status_code=303)


routes = [
    Route("/", root),
    Route("/login", login, methods=["GET", "POST"]),
    Route("/logout", logout, methods=["POST"]),
    Route("/runs", runs_page),
    Route("/runs/stream", runs_stream),
    Route("/runs/{run_id:path}/history", run_history_data),
    Route("/runs/{run_id:path}", run_page),
    Route("/audit", audit_page),
]

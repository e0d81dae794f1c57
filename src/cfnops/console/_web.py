"""What every page shares: the console's state, sessions, POST checks, rendering, errors."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
import sqlalchemy as sa
from sse_starlette.sse import EventSourceResponse
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.templating import Jinja2Templates
from starlette.types import ASGIApp, Receive, Scope, Send

from cfnops.config import Settings
from cfnops.console._auth import COOKIE, Auth
from cfnops.console._runs_query import RunsQuery
from cfnops.console.errors import Forbidden
from cfnops.database import Database
from cfnops.durable import AuditLog
from cfnops.errors import CfnopsError

HERE = Path(__file__).resolve().parent
# How often live pages look for a change (the checkpoint → browser budget is 1 s).
POLL_SECONDS = 0.2


def _when(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, int | float):
        value = datetime.fromtimestamp(value, tz=UTC)
    return str(value.strftime("%Y-%m-%d %H:%M:%S"))


def _pretty(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


templates = Jinja2Templates(directory=str(HERE / "templates"))
templates.env.filters["when"] = _when
templates.env.filters["pretty"] = _pretty
templates.env.filters["urlq"] = lambda v: quote(str(v), safe="")


@dataclass
class Console:
    """Process-wide state of one console server."""

    settings: Settings
    auth: Auth
    database: Database = field(init=False)
    engine: sa.Engine = field(init=False)
    runs: RunsQuery = field(init=False)
    audit: AuditLog = field(init=False)

    def __post_init__(self) -> None:
        self.database = Database.open(self.settings.database_url, pool_size=4)
        self.engine = self.database.engine
        self.runs = RunsQuery(self.engine)
        self.audit = AuditLog(self.database)

    def close(self) -> None:
        self.database.dispose()


def console_of(request: Request) -> Console:
    found: Console = request.app.state.console
    return found


def user_of(request: Request) -> str | None:
    """The token name of the request's session or bearer token; None when anonymous."""
    auth = console_of(request).auth
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return auth.name_for(header[7:].strip())
    return auth.session_name(request.cookies.get(COOKIE))


async def authorize_post(request: Request) -> tuple[str, dict[str, str]]:
    """The actor (``console:<name>``) and form of a state-changing request, or 403."""
    auth = console_of(request).auth
    name = user_of(request)
    if name is None:
        raise Forbidden("this action needs the console token", hint="sign in at /login")
    form = {k: str(v) for k, v in (await request.form()).items()}
    bearer = request.headers.get("authorization", "").lower().startswith("bearer ")
    if not bearer:
        origin = request.headers.get("origin")
        if origin and origin.split("://", 1)[-1] != request.headers.get("host"):
            raise Forbidden(f"cross-origin request from {origin} refused")
        given = form.get("csrf") or request.headers.get("x-csrf-token")
        if not auth.csrf_ok(request.cookies.get(COOKIE), given):
            raise Forbidden("missing or wrong CSRF token", hint="reload the page and try again")
    return f"console:{name}", form


def render(request: Request, template: str, status: int = 200, **context: Any) -> Response:
    cookie = request.cookies.get(COOKIE)
    auth = console_of(request).auth
    context.setdefault("user", user_of(request))
    context["csrf"] = auth.csrf_token(cookie) if cookie else ""
    return templates.TemplateResponse(request, template, context, status_code=status)


def error_page(request: Request, exc: CfnopsError, status: int) -> Response:
    if "text/html" not in request.headers.get("accept", "text/html"):
        body = {"error": exc.message, "hint": exc.hint}
        return Response(json.dumps(body), status_code=status, media_type="application/json")
    return render(request, "error.html", status=status, message=exc.message, hint=exc.hint)


def stream(request: Request, marker: Callable[[], Any], payload: Callable[[], str]) -> Response:
    """Server-Sent Events: ``payload()`` whenever ``marker()`` changes (polled off the loop)."""

    async def events() -> AsyncIterator[dict[str, str]]:
        last: Any = object()
        while not await request.is_disconnected():
            current = await anyio.to_thread.run_sync(marker)
            if current != last:
                last = current
                yield {"event": "update", "data": await anyio.to_thread.run_sync(payload)}
            await anyio.sleep(POLL_SECONDS)

    return EventSourceResponse(events(), ping=15)


class RequireSession:
    """Pure ASGI middleware: every path but /login and /static needs a session or token."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or path in ("/login", "/healthz") or path.startswith("/static/"):
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        if user_of(request) is not None:
            await self.app(scope, receive, send)
            return
        response: Response
        if scope["method"] in ("GET", "HEAD") and "text/html" in request.headers.get("accept", ""):
            target = path + (f"?{scope['query_string'].decode()}" if scope["query_string"] else "")
            response = RedirectResponse(f"/login?next={quote(target, safe='')}", status_code=303)
        else:
            response = HTMLResponse(
                "<h1>403 Forbidden</h1><p>This console needs its token: sign in at /login.</p>",
                status_code=403,
            )
        await response(scope, receive, send)

"""What every page shares: the console's state, sessions, POST checks, rendering, errors."""

from __future__ import annotations

import json
import logging
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
from starlette.responses import Response
from starlette.templating import Jinja2Templates

from cfnops.config import Settings
from cfnops.console._auth import COOKIE, Auth, Principal, Role
from cfnops.console._roots import definition_roots
from cfnops.console._runs_query import RunsQuery
from cfnops.console._static import static_version
from cfnops.console.errors import Forbidden
from cfnops.database import Database, DatabaseUnreachable
from cfnops.durable import AuditLog
from cfnops.errors import CfnopsError
from cfnops.runtime import Runtime

_log = logging.getLogger(__name__)

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
templates.env.globals["static_v"] = static_version(HERE / "static")
templates.env.filters["when"] = _when
templates.env.filters["pretty"] = _pretty
templates.env.filters["urlq"] = lambda v: quote(str(v), safe="")


@dataclass
class Console:
    """Process-wide state of one console server."""

    settings: Settings
    auth: Auth
    database: Database = field(init=False)
    runtime: Runtime = field(init=False)
    engine: sa.Engine = field(init=False)
    runs: RunsQuery = field(init=False)
    audit: AuditLog = field(init=False)

    definition_roots: tuple[Path, ...] = field(init=False)

    def __post_init__(self) -> None:
        self.definition_roots = definition_roots(self.settings)
        self.database = Database.open(self.settings.database_url, pool_size=4)
        # The console's runtime: job pages and heal answers use its one database handle.
        self.runtime = Runtime.from_settings(self.settings, database=self.database)
        self.engine = self.database.engine
        self.runs = RunsQuery(self.engine)
        self.audit = AuditLog(self.database)

    def close(self) -> None:
        self.database.dispose()


def console_of(request: Request) -> Console:
    found: Console = request.app.state.console
    return found


def principal_of(request: Request) -> Principal | None:
    """Who sent the request (set by :class:`RequireSession`); None when anonymous."""
    found = request.scope.get("state", {}).get("principal")
    return found if isinstance(found, Principal) else None


def user_of(request: Request) -> str | None:
    """The token name of the request's session or bearer token; None when anonymous."""
    found = principal_of(request)
    return found.name if found else None


def require_role(request: Request, role: Role) -> Principal:
    """The request's principal if its token has ``role``; :class:`Forbidden` (403) otherwise.

    Every page or action that needs more than reading calls this (or
    :func:`authorize_post`, which also checks the CSRF token)::

        who = require_role(request, "operator")
        audit.record(actor=who.actor("operator"), ...)
    """
    who = principal_of(request)
    if who is None:
        raise Forbidden("this needs the console token", hint="sign in at /login")
    if not who.has(role):
        held = ", ".join(sorted(who.roles)) or "none"
        raise Forbidden(
            f"the token {who.name!r} has the role(s) {held}; this action needs {role}",
            hint=f"ask for a token with the {role} role (docs/console.md, Roles)",
        )
    return who


async def authorize_post(request: Request, role: Role | None) -> tuple[str, dict[str, str]]:
    """The actor (``console:NAME (ROLE)``) and form of a POST, or 403.

    Checks the session or bearer token, ``role`` (None: any signed-in token, for
    a POST that changes nothing, like checking a pasted definition), the Origin
    and the CSRF token.
    """
    auth = console_of(request).auth
    who = principal_of(request) if role is None else require_role(request, role)
    if who is None:
        raise Forbidden("this needs the console token", hint="sign in at /login")
    form = {k: str(v) for k, v in (await request.form()).items()}
    bearer = request.headers.get("authorization", "").lower().startswith("bearer ")
    if not bearer:
        # Under "Referrer-Policy: no-referrer" Chromium sends "Origin: null" even from the
        # console's own forms; Sec-Fetch-Site still tells a same-origin request apart.
        site = request.headers.get("sec-fetch-site")
        if site is not None and site not in ("same-origin", "none"):
            raise Forbidden(f"a {site} request is refused")
        origin = request.headers.get("origin")
        if (
            origin
            and origin != "null"
            and origin.split("://", 1)[-1] != request.headers.get("host")
        ):
            raise Forbidden(f"cross-origin request from {origin} refused")
        given = form.get("csrf") or request.headers.get("x-csrf-token")
        if not auth.csrf_ok(request.cookies.get(COOKIE), given):
            raise Forbidden("missing or wrong CSRF token", hint="reload the page and try again")
    return (who.actor(role) if role else f"console:{who.name}"), form


def render(request: Request, template: str, status: int = 200, **context: Any) -> Response:
    cookie = request.cookies.get(COOKIE)
    auth = console_of(request).auth
    who = principal_of(request)
    context.setdefault("user", who.name if who else None)
    context["roles"] = who.roles if who else frozenset()
    context["csrf"] = auth.csrf_token(cookie) if cookie else ""
    return templates.TemplateResponse(request, template, context, status_code=status)


def error_page(request: Request, exc: CfnopsError, status: int) -> Response:
    if "text/html" not in request.headers.get("accept", "text/html"):
        body = {"error": exc.message, "hint": exc.hint}
        return Response(json.dumps(body), status_code=status, media_type="application/json")
    return render(request, "error.html", status=status, message=exc.message, hint=exc.hint)


def stream(request: Request, marker: Callable[[], Any], payload: Callable[[], str]) -> Response:
    """Server-Sent Events: ``payload()`` whenever ``marker()`` changes (polled off the loop).

    The stream ends when the session does (sign-out, expiry): the page's next
    connection is refused and it goes to the sign-in page.
    """
    auth, cookie = console_of(request).auth, request.cookies.get(COOKIE)
    by_cookie = not request.headers.get("authorization")

    async def events() -> AsyncIterator[dict[str, str]]:
        last: Any = object()
        while not await request.is_disconnected():
            if by_cookie and auth.session(cookie, touch=False)[0] is None:
                yield {"event": "signed-out", "data": "{}"}
                return
            try:
                current = await anyio.to_thread.run_sync(marker)
                data = await anyio.to_thread.run_sync(payload) if current != last else None
            except (DatabaseUnreachable, sa.exc.OperationalError) as exc:
                # a busy or restarting database: this poll is skipped, the page keeps its
                # stream and gets everything it missed from the next one that reads
                _log.info("live update skipped a poll: %s", str(exc).splitlines()[0][:200])
                data = None
            else:
                last = current
            if data is not None:
                yield {"event": "update", "data": data}
            await anyio.sleep(POLL_SECONDS)

    return EventSourceResponse(events(), ping=15)

"""Middleware every response passes: security headers, and a session before any page.

The Content-Security-Policy allows scripts, styles and connections from the
console itself only: no inline script or style, no ``eval``, no framing
(``frame-ancestors 'none'``), forms posting only back to the console. Pages
start their script from ``data-page`` on ``<body>``, never from inline code.
"""

from __future__ import annotations

from urllib.parse import quote

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from cfnops.console._auth import COOKIE, METRICS_PATH, Principal
from cfnops.console._web import console_of, error_page
from cfnops.console.errors import Forbidden

CSP = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "form-action 'self'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
    ]
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
}
PUBLIC = ("/login", "/healthz")
# Requests a live page makes on its own: they do not count as the user's activity.
LIVE_HEADER = "x-cfnops-live"


class SecurityHeaders:
    """Adds :data:`HEADERS` to every HTTP response (pages, errors, static files)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    headers[name] = value
                if scope.get("path", "") not in ("/healthz",) and not scope.get(
                    "path", ""
                ).startswith("/static/"):
                    headers["Cache-Control"] = "no-store"
            await send(message)

        await self.app(scope, receive, with_headers)


def _principal(request: Request, touch: bool) -> tuple[Principal | None, bool]:
    auth = console_of(request).auth
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        name = auth.name_for(header[7:].strip())
        return (auth.principal(name) if name else None), False
    name, expired = auth.session(request.cookies.get(COOKIE), touch=touch)
    return (auth.principal(name) if name else None), expired


class RequireSession:
    """Every path but /login, /healthz and /static needs a live session or a bearer token.

    A page asked for without one is sent to sign in (``/login?next=…``, saying
    when the session expired); data, streams and POSTs answer 401/403. A scraper's
    token (role ``metrics``) passes for ``GET /metrics`` only: anything else is 403.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or path in PUBLIC or path.startswith("/static/"):
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        touch = LIVE_HEADER not in request.headers and not path.endswith("/stream")
        who, expired = _principal(request, touch)
        if who is not None and who.metrics_only and path != METRICS_PATH:
            refused = Forbidden(
                f"the token {who.name!r} has the role metrics: it reads {METRICS_PATH} only",
                hint="sign in with a console token (docs/console.md, Roles)",
            )
            await error_page(request, refused, 403)(scope, receive, send)
            return
        if who is not None:
            scope.setdefault("state", {})["principal"] = who
            await self.app(scope, receive, send)
            return
        accept = request.headers.get("accept", "")
        wants_data = accept.startswith(("application/json", "text/event-stream"))
        response: Response
        if scope["method"] in ("GET", "HEAD") and not wants_data:
            query = scope["query_string"].decode()
            target = path + (f"?{query}" if query else "")
            why = "&why=expired" if expired else ""
            response = RedirectResponse(f"/login?next={quote(target, safe='')}{why}", 303)
        elif scope["method"] in ("GET", "HEAD"):
            body = {"error": "sign in first", "hint": "/login", "expired": expired}
            response = JSONResponse(body, status_code=401)
        else:
            response = Response(
                "403 Forbidden: this console needs its token; sign in at /login.",
                status_code=403,
                media_type="text/plain",
            )
        await response(scope, receive, send)

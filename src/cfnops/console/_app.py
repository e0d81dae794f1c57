"""The console's Starlette application: routes, static files, errors as pages."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.types import ASGIApp

from cfnops.config import Settings
from cfnops.console import (
    _pages_batch,
    _pages_control,
    _pages_defs,
    _pages_designer,
    _pages_heal,
    _pages_jobs,
    _pages_metrics,
    _pages_runs,
    _pages_schedules,
)
from cfnops.console._auth import Auth
from cfnops.console._compress import Compression
from cfnops.console._security import RequireSession, SecurityHeaders
from cfnops.console._static import VersionedStatic
from cfnops.console._web import HERE, Console, error_page
from cfnops.console.errors import ConsoleError
from cfnops.errors import CfnopsError, UsageError

_log = logging.getLogger("cfnops.console")


async def _cfnops_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, CfnopsError)
    if isinstance(exc, ConsoleError):
        status = exc.status
    elif type(exc).__name__.startswith("Unknown"):
        status = 404
    elif isinstance(exc, UsageError):
        status = 400
    else:
        status = 409  # the operation cannot be done in the run's current state
    return error_page(request, exc, status)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    message = "no such page" if exc.status_code == 404 else str(exc.detail)
    return error_page(request, CfnopsError(message, hint="use the menu above"), exc.status_code)


async def _unexpected(request: Request, exc: Exception) -> Response:
    # Logged in full for the operator running the console; the page never shows a trace.
    _log.error("console: %s %s failed", request.method, request.url.path, exc_info=exc)
    return error_page(
        request,
        CfnopsError("the console hit an internal error", hint="see the console's log"),
        500,
    )


async def _health(request: Request) -> Response:
    return PlainTextResponse("ok")


class _ConsoleApp(Starlette):
    """Starlette with the security headers outermost: even the 500 page carries them."""

    def build_middleware_stack(self) -> ASGIApp:
        return SecurityHeaders(super().build_middleware_stack())


def create_app(settings: Settings, auth: Auth) -> Starlette:
    """The console as an ASGI application (``uvicorn`` serves it; tests call it directly)."""
    console = Console(settings, auth)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            console.close()

    app = _ConsoleApp(
        routes=[
            Route("/healthz", _health),
            Mount("/static", VersionedStatic(HERE / "static"), name="static"),
            *_pages_runs.routes[:2],
            *_pages_batch.routes,
            *_pages_jobs.routes,
            *_pages_control.routes,
            *_pages_heal.routes,
            *_pages_defs.routes,
            *_pages_designer.routes,
            *_pages_schedules.routes,
            *_pages_metrics.routes,
            *_pages_runs.routes[2:],
        ],
        # Pages, fragments, JSON and static files compressed when the browser asks
        # (Accept-Encoding: br, else gzip); Server-Sent Events never are.
        middleware=[Middleware(Compression, minimum_size=1024), Middleware(RequireSession)],
        exception_handlers={
            CfnopsError: _cfnops_error,
            HTTPException: _http_error,
            Exception: _unexpected,
        },
        lifespan=lifespan,
    )
    app.state.console = console
    return app

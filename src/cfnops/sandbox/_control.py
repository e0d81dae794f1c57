"""The WSGI layer in front of moto's app: the control API and middleware hooks.

``/_cfnops/<route>`` answers JSON (GET: empty body; POST: a JSON object) so a
separate ``cfnops sandbox up`` process can be configured from tests and users::

    curl -s -XPOST localhost:5000/_cfnops/config -d '{"delays": {"drift_detection": 0}}'

Every other request first runs the due timers of :class:`SandboxState`, then
passes through the registered middleware hooks (outermost first: fault
injection, latency) and reaches moto.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from typing import Any

from cfnops.sandbox._state import current_state

__all__ = [
    "CONTROL_PREFIX",
    "ControlHandler",
    "Middleware",
    "WsgiApp",
    "build_app",
    "register_control",
    "register_middleware",
]

CONTROL_PREFIX = "/_cfnops/"

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
ControlHandler = Callable[[dict[str, Any]], dict[str, Any]]
Middleware = Callable[[dict[str, Any], Callable[..., Any], WsgiApp], Iterable[bytes]]

_lock = threading.Lock()
_controls: dict[str, ControlHandler] = {}
_middleware: list[Middleware] = []


class ControlError(ValueError):
    """A control request was malformed; answered with HTTP 400 and the message."""


def register_control(route: str, handler: ControlHandler) -> None:
    """Answer ``/_cfnops/<route>`` with ``handler(request_json) -> response_json``.

    Registering the same route again replaces the handler (installs are idempotent).
    Handlers raise :class:`ValueError` for bad input (HTTP 400).
    """
    if not route or "/" in route.strip("/"):
        raise ValueError(f"control route must be one path segment, got {route!r}")
    with _lock:
        _controls[route.strip("/")] = handler


def register_middleware(fn: Middleware) -> None:
    """Wrap moto with ``fn(environ, start_response, next_app)``; idempotent per function."""
    with _lock:
        if fn not in _middleware:
            _middleware.append(fn)


_remote_control = False


def allow_remote_control(allowed: bool) -> None:
    """Let clients other than this machine use ``/_cfnops/`` routes (off by default).

    The control routes reset the sandbox, inject faults and change delays, with no
    authentication: only loopback clients may call them unless the sandbox was
    started with ``--allow-remote``.
    """
    global _remote_control
    _remote_control = bool(allowed)


def is_loopback(address: str) -> bool:
    """``address`` (an IP or ``localhost``) is this machine only."""
    import ipaddress

    if address.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(address.strip("[]")).is_loopback
    except ValueError:
        return False


def control_routes() -> tuple[str, ...]:
    with _lock:
        return tuple(sorted(_controls))


def _json_response(
    start_response: Callable[..., Any], status: str, body: dict[str, Any]
) -> list[bytes]:
    data = json.dumps(body, default=str).encode()
    start_response(
        status, [("Content-Type", "application/json"), ("Content-Length", str(len(data)))]
    )
    return [data]


def _control(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    route = str(environ.get("PATH_INFO", ""))[len(CONTROL_PREFIX) :].strip("/")
    client = str(environ.get("REMOTE_ADDR") or "")
    if not _remote_control and client and not is_loopback(client):
        return _json_response(
            start_response,
            "403 Forbidden",
            {
                "error": f"control routes answer loopback clients only (you are {client}); "
                "start the sandbox with --allow-remote to allow others"
            },
        )
    with _lock:
        handler = _controls.get(route)
    if handler is None:
        return _json_response(
            start_response,
            "404 Not Found",
            {"error": f"no control route {route!r}", "routes": sorted(_controls)},
        )
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
        raw = environ["wsgi.input"].read(length) if length else b""
        request = json.loads(raw) if raw.strip() else {}
        if not isinstance(request, dict):
            raise ControlError("the request body must be a JSON object")
        return _json_response(start_response, "200 OK", handler(request))
    except (ValueError, TypeError) as exc:
        return _json_response(start_response, "400 Bad Request", {"error": str(exc)})


def _chain(app: WsgiApp, hooks: list[Middleware]) -> WsgiApp:
    for hook in reversed(hooks):

        def wrapped(
            environ: dict[str, Any],
            start_response: Callable[..., Any],
            _hook: Middleware = hook,
            _next: WsgiApp = app,
        ) -> Iterable[bytes]:
            return _hook(environ, start_response, _next)

        app = wrapped
    return app


def build_app(moto_app: WsgiApp) -> WsgiApp:
    """The sandbox's WSGI app: control routes, due timers, middleware, then moto.

    Middleware registered after the app was built still applies (looked up per request).
    """

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if str(environ.get("PATH_INFO", "")).startswith(CONTROL_PREFIX):
            return _control(environ, start_response)
        current_state().run_due()
        with _lock:
            hooks = list(_middleware)
        return _chain(moto_app, hooks)(environ, start_response)

    return app

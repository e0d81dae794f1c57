"""moto's threaded server with the cfnops WSGI layer in front of its app (imports moto)."""

from __future__ import annotations

import threading

from moto.moto_server.threaded_moto_server import ThreadedMotoServer
from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)
from werkzeug.serving import make_server

from cfnops.sandbox._control import build_app

__all__ = ["SandboxServer"]

_POLL_SECONDS = 0.02


class _QuietHandler(MotoRequestHandler):  # type: ignore[misc]
    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        return None


class SandboxServer(ThreadedMotoServer):  # type: ignore[misc]
    """``ThreadedMotoServer`` serving :func:`build_app` around moto's dispatcher."""

    def start(self) -> None:
        # Bind in the caller's thread so "address in use" raises here instead of
        # killing the server thread while start() waits forever.
        app = build_app(DomainDispatcherApplication(create_backend_app))
        handler = MotoRequestHandler if self._verbose else _QuietHandler
        self._server = make_server(self._ip_address, self._port, app, True, request_handler=handler)
        # werkzeug's default poll interval (0.5 s) is how long shutdown() waits: stop at once
        server = self._server
        self._thread = threading.Thread(
            target=lambda: server.serve_forever(poll_interval=_POLL_SECONDS),
            name="cfnops-sandbox",
            daemon=True,
        )
        self._thread.start()
        self._server_ready_event.set()

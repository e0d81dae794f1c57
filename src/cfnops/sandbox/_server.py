"""The sandbox's HTTP server: it listens at once and loads moto on a background thread.

Importing moto's server and installing the cfnops extensions takes most of a
second (the extensions import moto's CloudFormation backend, which imports every
service's models). The socket is bound and served before that: ``/_cfnops/health``
answers at once, and any other request waits on its connection until moto and
the extensions are loaded, then is served by them exactly as if the server had
started late (same WSGI app, same request handler).
"""

from __future__ import annotations

import gc
import json
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server

from cfnops.sandbox._control import WsgiApp, build_app
from cfnops.sandbox._regions import shared_region_lists

__all__ = ["HEALTH_PATH", "LOAD_TIMEOUT_SECONDS", "SandboxServer"]

HEALTH_PATH = "/_cfnops/health"
LOAD_TIMEOUT_SECONDS = 120.0  # a request waiting longer for the load gets HTTP 503
_POLL_SECONDS = 0.02


class _Loader:
    """Imports moto's server, installs the extensions and builds the app, once."""

    def __init__(self, verbose: bool) -> None:
        self._verbose = verbose
        self.done = threading.Event()
        self.app: WsgiApp | None = None
        self.handler: type[WSGIRequestHandler] | None = None
        self.error: BaseException | None = None
        self.seconds = 0.0

    def run(self) -> None:
        started = time.perf_counter()
        collecting = gc.isenabled()
        try:
            # moto's import builds ~1 million objects and little garbage; the cyclic
            # collector would walk the growing heap again and again meanwhile
            # (demo heal --fast: 2.4 -> 2.0 s of CPU).
            gc.disable()
            with shared_region_lists():
                from moto.moto_server.werkzeug_app import (
                    DomainDispatcherApplication,
                    MotoRequestHandler,
                    create_backend_app,
                )

                from cfnops.sandbox.extensions import install_all

                install_all()

            class _QuietMotoHandler(MotoRequestHandler):  # type: ignore[misc]
                def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
                    return None

            self.handler = MotoRequestHandler if self._verbose else _QuietMotoHandler
            self.app = build_app(DomainDispatcherApplication(create_backend_app))
            # What is alive now lives as long as the process (moto's modules and
            # backends): freezing it spares every later full collection re-walking
            # it (demo heal --fast: 2.0 -> 1.5 s of CPU). Refcounting still frees
            # frozen objects; only cyclic garbage alive at this instant is kept.
            gc.freeze()
        except BaseException as exc:  # reported to every waiting request and to wait()
            self.error = exc
        finally:
            if collecting:
                gc.enable()
            self.seconds = time.perf_counter() - started
            self.done.set()


def _json(start_response: Callable[..., Any], status: str, body: dict[str, Any]) -> list[bytes]:
    data = json.dumps(body).encode()
    start_response(
        status, [("Content-Type", "application/json"), ("Content-Length", str(len(data)))]
    )
    return [data]


def _front_app(loader: _Loader, extras: dict[str, Any]) -> WsgiApp:
    """Health at once; everything else once the load is done (HTTP 503 if it failed).

    ``extras`` (the server's own, e.g. the Lambda backend it serves) are added to every
    request's WSGI environ: the middleware registered process-wide reads them there, so
    two sandboxes in one process each serve their own.
    """

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO") == HEALTH_PATH:
            loaded = loader.done.is_set() and loader.app is not None
            body: dict[str, Any] = {"listening": True, "loaded": loaded}
            if loader.error is not None:
                body["error"] = f"{type(loader.error).__name__}: {loader.error}"
            return _json(start_response, "200 OK", body)
        if not loader.done.wait(LOAD_TIMEOUT_SECONDS):
            return _json(
                start_response,
                "503 Service Unavailable",
                {"error": f"moto is still loading after {LOAD_TIMEOUT_SECONDS:.0f} s"},
            )
        if loader.app is None:
            reason = f"{type(loader.error).__name__}: {loader.error}"
            return _json(
                start_response,
                "503 Service Unavailable",
                {"error": f"the sandbox could not load moto ({reason})"},
            )
        environ.update(extras)
        return loader.app(environ, start_response)

    return app


def _early_handler(loader: _Loader, verbose: bool) -> type[WSGIRequestHandler]:
    """werkzeug's handler until moto is loaded, then moto's on the same connection.

    moto's handler keeps underscored header names (S3 metadata) in the WSGI
    environ; a connection opened before the load switches to it on its first
    request that is not the health check (``__class__`` assignment: both are
    plain subclasses of werkzeug's handler with the same layout).
    """

    class _EarlyHandler(WSGIRequestHandler):
        def make_environ(self) -> dict[str, Any]:
            environ: dict[str, Any] = super().make_environ()
            if environ.get("PATH_INFO") == HEALTH_PATH:
                return environ
            loader.done.wait(LOAD_TIMEOUT_SECONDS)
            if loader.handler is None:
                return environ  # the front app answers 503
            self.__class__ = loader.handler  # type: ignore[assignment]
            made: dict[str, Any] = self.make_environ()
            return made

        def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
            if verbose:
                super().log_request(code, size)

    return _EarlyHandler


class SandboxServer:
    """A threaded werkzeug server in front of moto, started in the caller's thread.

    :attr:`environ` is added to the WSGI environ of every request this server passes on
    (set or pop a key at any time: each request sees one whole dict update).
    """

    def __init__(self, ip_address: str, port: int, verbose: bool = False) -> None:
        self.environ: dict[str, Any] = {}
        self._ip_address = ip_address
        self._port = port
        self._verbose = verbose
        self._loader = _Loader(verbose)
        self._server: BaseWSGIServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Bind (errors raise here), serve, and start loading moto in the background."""
        handler = _early_handler(self._loader, self._verbose)
        app = _front_app(self._loader, self.environ)
        self._server = server = make_server(
            self._ip_address, self._port, app, True, request_handler=handler
        )
        # werkzeug's default poll interval (0.5 s) is how long shutdown() waits: stop at once
        self._thread = threading.Thread(
            target=lambda: server.serve_forever(poll_interval=_POLL_SECONDS),
            name="cfnops-sandbox",
            daemon=True,
        )
        self._thread.start()
        threading.Thread(target=self._loader.run, name="cfnops-sandbox-load", daemon=True).start()

    @property
    def loaded(self) -> bool:
        return self._loader.done.is_set() and self._loader.app is not None

    def wait_loaded(self, timeout: float | None = None) -> float:
        """Block until moto is loaded; the seconds loading took. Re-raises a failed load.

        ``TimeoutError`` when ``timeout`` passes first.
        """
        if not self._loader.done.wait(timeout):
            raise TimeoutError(f"moto not loaded after {timeout} s")
        if self._loader.error is not None:
            raise self._loader.error
        return self._loader.seconds

    def get_host_and_port(self) -> tuple[str, int]:
        if self._server is None:
            raise RuntimeError("the sandbox server is not started")
        host, port = self._server.server_address[:2]
        return str(host), int(port)

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None

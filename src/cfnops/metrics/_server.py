"""``GET /metrics`` on a port of its own, for ``cfnops worker --metrics-port N``.

prometheus_client's own WSGI server, on a daemon thread: it answers the Prometheus
text format (or OpenMetrics when the scraper asks for it) of the process's registry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cfnops.telemetry import Metrics

__all__ = ["MetricsServer", "serve"]


@dataclass
class MetricsServer:
    """A running metrics endpoint: its address, and how to stop it."""

    host: str
    port: int
    _server: Any
    _thread: Any

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/metrics"

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def serve(metrics: Metrics, port: int, host: str = "127.0.0.1") -> MetricsServer:
    """Serve ``metrics`` on ``host:port`` (port 0: any free port) until :meth:`stop`."""
    from prometheus_client import start_http_server

    server, thread = start_http_server(port, addr=host, registry=metrics.registry)
    return MetricsServer(host, int(server.server_address[1]), server, thread)

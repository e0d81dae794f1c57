"""A local Slack-webhook receiver over real HTTP: records each POSTed JSON body."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class WebhookReceiver:
    """``http://127.0.0.1:PORT/hook``: answers 200 and keeps every body, in order."""

    def __init__(self) -> None:
        bodies: list[dict[str, Any]] = []
        self.bodies = bodies

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                size = int(self.headers.get("Content-Length", "0"))
                bodies.append(json.loads(self.rfile.read(size)))
                self.send_response(200)
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/hook"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def texts(self) -> list[str]:
        return [str(b.get("text", "")) + json.dumps(b.get("blocks", [])) for b in self.bodies]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

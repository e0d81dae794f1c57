"""Compressed answers: Brotli when the browser offers ``br``, else Starlette's gzip.

Browsers offer ``br`` over HTTPS, and Chromium on loopback HTTP too; Brotli makes the
10,000-event page's document and the vendored graph library smaller than gzip does, at
a similar cost (quality 5). What is never compressed, as with gzip: Server-Sent Events
(each update must reach the page when it is sent), images and other already-compressed
types, partial (206) answers and answers that already carry a ``Content-Encoding``.
"""

from __future__ import annotations

from typing import Any

import brotli  # type: ignore[import-untyped]  # Google's bindings ship no type hints
from starlette.datastructures import Headers, MutableHeaders
from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["Compression", "accepts_brotli"]

_NOT_COMPRESSED = (
    "text/event-stream", "image/", "audio/", "video/", "font/woff", "application/gzip",
    "application/x-gzip", "application/zip", "application/grpc",
)  # fmt: skip


def accepts_brotli(accept_encoding: str) -> bool:
    """Whether an ``Accept-Encoding`` value offers ``br`` (and not with ``q=0``)."""
    for part in accept_encoding.split(","):
        token, _, params = part.partition(";")
        if token.strip().lower() != "br":
            continue
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    return float(value) > 0
                except ValueError:
                    return False
        return True
    return False


class Compression:
    """ASGI middleware: Brotli for ``br``, otherwise Starlette's :class:`GZipMiddleware`."""

    def __init__(self, app: ASGIApp, minimum_size: int = 1024, quality: int = 5) -> None:
        self.app = app
        self.minimum_size = minimum_size
        self.quality = quality
        self.gzip = GZipMiddleware(app, minimum_size=minimum_size)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not accepts_brotli(
            Headers(scope=scope).get("accept-encoding", "")
        ):
            await self.gzip(scope, receive, send)
            return
        await _BrotliAnswer(self.minimum_size, self.quality, send).run(self.app, scope, receive)


class _BrotliAnswer:
    """One answer: its start held until the first body shows whether to compress."""

    def __init__(self, minimum_size: int, quality: int, send: Send) -> None:
        self.minimum_size, self.quality, self.send = minimum_size, quality, send
        self.start: Message | None = None
        self.untouched = False
        self.compressor: Any = None

    async def run(self, app: ASGIApp, scope: Scope, receive: Receive) -> None:
        await app(scope, receive, self.on_message)

    def _squeeze(self, body: bytes, more: bool) -> bytes:
        out = self.compressor.process(body)
        return bytes(out + (self.compressor.flush() if more else self.compressor.finish()))

    async def on_message(self, message: Message) -> None:
        kind = message["type"]
        if kind == "http.response.start":
            headers = Headers(raw=message.get("headers") or [])
            media = headers.get("content-type", "").lower()
            self.untouched = (
                "content-encoding" in headers
                or message.get("status") == 206
                or media.startswith(_NOT_COMPRESSED)
            )
            if self.untouched:
                await self.send(message)
            else:
                message.setdefault("headers", [])
                self.start = message
            return
        if self.untouched or kind != "http.response.body":
            if self.start is not None:  # a body that is not a body (pathsend, trailers)
                await self.send(self.start)
                self.start = None
            await self.send(message)
            return
        body: bytes = message.get("body", b"")
        more = bool(message.get("more_body", False))
        if self.start is None:  # a later part of a streamed answer
            await self.send({**message, "body": self._squeeze(body, more)})
            return
        start, self.start = self.start, None
        headers = MutableHeaders(raw=start["headers"])
        headers.add_vary_header("Accept-Encoding")
        if not more and len(body) < self.minimum_size:
            await self.send(start)
            await self.send(message)
            return
        self.compressor = brotli.Compressor(quality=self.quality)
        squeezed = self._squeeze(body, more)
        headers["Content-Encoding"] = "br"
        if more:
            del headers["Content-Length"]
        else:
            headers["Content-Length"] = str(len(squeezed))
        await self.send(start)
        await self.send({**message, "body": squeezed})

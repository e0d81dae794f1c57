"""The console's static files: versioned URLs cached for a year, everything else revalidated.

Pages link ``/static/NAME?v=VERSION``, VERSION being a hash of the static files'
contents, so a new release (or an edited file) is a new URL: those answers carry
``Cache-Control: public, max-age=31536000, immutable``. A URL without the current
version (an old page, a hand-typed link) gets ``no-cache`` (revalidated each time).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

__all__ = ["LONG_CACHE", "VersionedStatic", "static_version"]

LONG_CACHE = "public, max-age=31536000, immutable"


def static_version(folder: Path) -> str:
    """A short hash of every file under ``folder`` (names and contents)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(folder)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


class VersionedStatic(StaticFiles):
    """Static files with the cache lifetime their URL earns."""

    def __init__(self, folder: Path) -> None:
        super().__init__(directory=str(folder))
        self.version = static_version(folder)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        query = scope.get("query_string", b"").decode("latin-1")
        lifetime = LONG_CACHE if f"v={self.version}" in query.split("&") else "no-cache"

        async def with_cache(message: dict[str, object]) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (k, v)
                    for k, v in list(message.get("headers") or [])  # type: ignore[call-overload]
                    if k.lower() != b"cache-control"
                ]
                headers.append((b"cache-control", lifetime.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await super().__call__(scope, receive, with_cache)  # type: ignore[arg-type]

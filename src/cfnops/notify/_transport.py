"""HTTP for webhooks through the standard library, behind a small port.

:class:`RecordingTransport` ships with the library so callers (and cfnops's own
tests) can capture requests without a network.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class HttpResponse:
    status: int
    body: str


class HttpTransport(Protocol):
    """``post(url, body, headers)`` → the response; raises ``OSError`` on network failure."""

    def post(self, url: str, body: bytes, headers: dict[str, str]) -> HttpResponse: ...


class UrllibTransport:
    """POSTs with :mod:`urllib.request` (no extra dependency)."""

    def __init__(self, timeout: float = 10.0) -> None:
        self.timeout = timeout

    def post(self, url: str, body: bytes, headers: dict[str, str]) -> HttpResponse:
        if not url.startswith("https://") and not url.startswith("http://127.0.0.1"):
            raise ValueError("webhook URLs must use https")
        request = urllib.request.Request(url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return HttpResponse(int(response.status), response.read().decode(errors="replace"))
        except urllib.error.HTTPError as exc:
            return HttpResponse(int(exc.code), exc.read().decode(errors="replace"))


@dataclass
class RecordingTransport:
    """Records each request and answers from ``responses`` (then ``200 ok``)."""

    responses: list[HttpResponse | Exception] = field(default_factory=list)
    requests: list[tuple[str, bytes, dict[str, str]]] = field(default_factory=list)

    def post(self, url: str, body: bytes, headers: dict[str, str]) -> HttpResponse:
        self.requests.append((url, body, dict(headers)))
        if self.responses:
            answer = self.responses.pop(0)
            if isinstance(answer, Exception):
                raise answer
            return answer
        return HttpResponse(200, "ok")

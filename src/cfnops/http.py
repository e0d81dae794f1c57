"""HTTP requests as values and the transport port that sends them.

What a job-net's ``arn:aws:states:::http:invoke`` task sends
(:mod:`cfnops.jobs`) goes through the :class:`HttpTransport` the runtime carries
(``Runtime.http``; none: plain HTTPS through the standard library). A test or an
offline demo hands the runtime one that records instead
(``cfnops.jobs.CapturingTransport``)::

    runtime = Runtime.from_settings(settings, http=CapturingTransport())

Notifications (Slack, webhooks) have their own, narrower port:
``cfnops.notify.HttpTransport`` (``Runtime.transport``), a POST of a body.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

__all__ = ["HttpRequest", "HttpResponse", "HttpTransport"]


@dataclass(frozen=True)
class HttpRequest:
    method: str
    url: str
    headers: Mapping[str, str]
    body: bytes | None


@dataclass(frozen=True)
class HttpResponse:
    status: int
    headers: Mapping[str, str] = field(default_factory=dict)
    body: str = ""


class HttpTransport(Protocol):
    """``send(request)`` → the response, whatever its status; a request that gets no
    answer raises (the job-net task fails with ``States.Http.Socket`` or
    ``States.TaskFailed``)."""

    def send(self, request: HttpRequest) -> HttpResponse: ...

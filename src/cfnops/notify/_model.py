"""What a notification carries, independent of the channel that delivers it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

Severity = Literal["info", "warning", "error"]


@dataclass(frozen=True)
class DriftRow:
    """One drifted resource as notifications show it."""

    logical_id: str
    resource_type: str
    status: str
    properties: tuple[str, ...] = ()


@dataclass(frozen=True)
class Notification:
    """A channel-independent message.

    ``subject`` and ``message`` are what SNS sends verbatim; Slack and the console
    render the structured fields (stack, outcome, drifted resources, URL, run id).
    """

    subject: str
    message: str
    outcome: str = ""
    severity: Severity = "info"
    stack: str | None = None
    stack_id: str | None = None
    change_set_id: str | None = None
    console_url: str | None = None
    run_id: str | None = None
    drifted: tuple[DriftRow, ...] = ()
    details: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    # The same key is delivered once by channels that can deduplicate: SNS FIFO topics
    # (MessageDeduplicationId). A durable step sets it from its run, so a message sent
    # again after a crash is dropped there. Others (Slack, standard SNS) send it again.
    idempotency_key: str | None = None


@runtime_checkable
class Notifier(Protocol):
    """A delivery channel. ``send`` raises on failure; :func:`notify_all` retries and logs."""

    name: str

    def send(self, notification: Notification) -> None: ...

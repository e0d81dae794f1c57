"""Subscribe rotation to the sandbox's EventBridge bus (a local handler, as a Lambda target).

The handler receives exactly what the deployed rule would pass to the Lambda
function (``deploy/ami-rotation.yaml``): "Backup Job State Change" events with
state ``COMPLETED`` for EC2 resources.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from cfnops.ami import BACKUP_COMPLETED_PATTERN, Rotation, Rotator

__all__ = ["RotationSubscription", "subscribe_rotation"]


@dataclass
class RotationSubscription:
    """What the handler did; :meth:`wait` blocks until ``count`` results or errors."""

    subscription_id: str
    results: list[Rotation] = field(default_factory=list)
    errors: list[BaseException] = field(default_factory=list)
    _changed: threading.Condition = field(default_factory=threading.Condition)

    def record(self, results: list[Rotation] | None, error: BaseException | None) -> None:
        with self._changed:
            if results:
                self.results.extend(results)
            if error is not None:
                self.errors.append(error)
            self._changed.notify_all()

    def wait(self, count: int = 1, timeout: float = 60.0) -> bool:
        with self._changed:
            return self._changed.wait_for(
                lambda: len(self.results) + len(self.errors) >= count, timeout
            )

    def close(self) -> None:
        from cfnops.sandbox.extensions import events

        events.unregister_handler(self.subscription_id)


def subscribe_rotation(
    rotator: Rotator, pattern: dict[str, Any] | None = None
) -> RotationSubscription:
    """Rotate on every matching event the sandbox bus delivers."""
    from cfnops.sandbox.extensions import events

    sub = RotationSubscription("")

    def handle(event: dict[str, Any]) -> None:
        try:
            results = rotator.event(event, source=f"event {event.get('id')}")
        except BaseException as exc:
            sub.record(None, exc)
            raise
        sub.record(results, None)

    sub.subscription_id = events.register_handler(pattern or BACKUP_COMPLETED_PATTERN, handle)
    return sub

"""What a heal run needs besides its event: settings, AWS clients, notification channels.

The workflow's event is JSON; settings and clients are process-wide. CLI commands
and tests call :func:`configure_runtime`; elsewhere (AWS Lambda, a worker) the
runtime is built once from :func:`cfnops.config.load_settings` (environment and
``cfnops.toml``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console

from cfnops.aws import AwsClients
from cfnops.config import Settings, load_settings
from cfnops.notify import Delivery, Notification, notify_all


@dataclass
class HealRuntime:
    settings: Settings
    clients: AwsClients
    # A region other than the default gets its own AwsClients (same session settings).
    _regional: dict[str, AwsClients] = field(default_factory=dict)
    notify_hook: Callable[[Notification], None] | None = None
    console: Console | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def clients_for(self, region: str | None) -> AwsClients:
        if region is None or region == self.clients.settings.region:
            return self.clients
        with self._lock:
            found = self._regional.get(region)
            if found is None:
                aws = self.clients.settings.model_copy(update={"region": region})
                found = AwsClients(aws, session=self.clients._session)
                self._regional[region] = found
            return found

    def cfn(self, region: str | None) -> Any:
        return self.clients_for(region).client("cloudformation")

    def notify(self, notification: Notification, region: str | None) -> list[Delivery]:
        if self.notify_hook is not None:
            self.notify_hook(notification)
        return notify_all(
            notification, self.settings, self.clients_for(region), console=self.console
        )


_lock = threading.Lock()
_runtime: HealRuntime | None = None


def configure_runtime(
    settings: Settings,
    clients: AwsClients | None = None,
    *,
    notify_hook: Callable[[Notification], None] | None = None,
    console: Console | None = None,
) -> HealRuntime:
    """Set the process-wide runtime heal runs use (returns it)."""
    global _runtime
    with _lock:
        _runtime = HealRuntime(
            settings, clients or AwsClients(settings.aws), notify_hook=notify_hook, console=console
        )
        return _runtime


def current_runtime() -> HealRuntime:
    """The configured runtime, or one built from the environment on first use."""
    global _runtime
    with _lock:
        if _runtime is None:
            settings = load_settings()
            _runtime = HealRuntime(settings, AwsClients(settings.aws))
        return _runtime

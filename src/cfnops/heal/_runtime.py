"""What a heal run needs besides its event: settings, AWS clients, notification channels.

The workflow's event is JSON; settings and clients are process-wide. CLI commands
and tests call :func:`configure_runtime`; elsewhere (AWS Lambda, a worker) the
runtime is built once from :func:`cfnops.config.load_settings` (environment and
``cfnops.toml``).
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console

from cfnops.aws import AwsClients
from cfnops.config import Settings, load_settings
from cfnops.notify import Delivery, Notification, notify_all

# The account a heal run works in (account id, role name), set for the run's whole
# execution by the workflow (:func:`in_account`). Steps run inline in the run's
# thread (``DBOS.run_step``), so every AWS client a step asks for is that account's.
_account: ContextVar[tuple[str, str | None] | None] = ContextVar(
    "cfnops_heal_account", default=None
)
_RENEW_BEFORE = dt.timedelta(minutes=5)  # re-assume a role this long before it expires


@contextmanager
def in_account(account: str | None, role_name: str | None) -> Iterator[None]:
    """Within this block, :meth:`HealRuntime.clients_for` answers ``account``'s clients
    (entered with STS AssumeRole of ``role_name``); ``None``: the caller's own account."""
    token = _account.set((account, role_name) if account else None)
    try:
        yield
    finally:
        _account.reset(token)


@dataclass
class HealRuntime:
    settings: Settings
    clients: AwsClients
    # A region other than the default gets its own AwsClients (same session settings).
    _regional: dict[str, AwsClients] = field(default_factory=dict)
    notify_hook: Callable[[Notification], None] | None = None
    console: Console | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    # (account, role, region) → (credentials' expiry, clients)
    _assumed: dict[tuple[str, str | None, str | None], tuple[dt.datetime, AwsClients]] = field(
        default_factory=dict
    )

    def home_for(self, region: str | None) -> AwsClients:
        """The caller's own account's clients in ``region``."""
        if region is None or region == self.clients.settings.region:
            return self.clients
        with self._lock:
            found = self._regional.get(region)
            if found is None:
                aws = self.clients.settings.model_copy(update={"region": region})
                found = AwsClients(aws, session=self.clients._session)
                self._regional[region] = found
            return found

    def clients_for(self, region: str | None) -> AwsClients:
        """Clients in ``region`` of the account the current run works in (:func:`in_account`).

        Another account's credentials come from STS AssumeRole, cached and renewed
        five minutes before they expire (a held run may wait for hours).
        """
        home = self.home_for(region)
        target = _account.get()
        if target is None or target[0] == home.account_id():
            return home
        from cfnops.heal._scan import assume_role

        key = (target[0], target[1], region)
        now = dt.datetime.now(dt.UTC)
        with self._lock:
            cached = self._assumed.get(key)
        if cached is not None and cached[0] - now > _RENEW_BEFORE:
            return cached[1]
        creds = assume_role(home, target[0], target[1], session_name="cfnops-heal", command="heal")
        expires = creds.get("Expiration")
        if not isinstance(expires, dt.datetime):
            expires = now + dt.timedelta(hours=1)
        found = home.assumed(creds, region)
        with self._lock:
            self._assumed[key] = (expires, found)
        return found

    def account(self, region: str | None) -> str:
        """The account the current run works in (:func:`in_account`, else the caller's)."""
        target = _account.get()
        return target[0] if target is not None else self.home_for(region).account_id()

    def cfn(self, region: str | None) -> Any:
        return self.clients_for(region).client("cloudformation")

    def notify(self, notification: Notification, region: str | None) -> list[Delivery]:
        if self.notify_hook is not None:
            self.notify_hook(notification)
        # Notifications go to the operator's channels, in the caller's own account.
        return notify_all(notification, self.settings, self.home_for(region), console=self.console)


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

"""The account a heal run works in, over the runtime the engine hands it.

A heal run's event is JSON; its settings, clients and notifiers come from the
:class:`~cfnops.runtime.Runtime` (``context.runtime`` on cfnops's engine, given
explicitly under the SDK's runner or AWS Lambda). :class:`HealAccount` answers
the clients of the run's target account in any region: the caller's own, or
another one entered by STS AssumeRole (cached and renewed by the runtime's
clients).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cfnops.aws import AwsClients
from cfnops.config import Settings
from cfnops.notify import Delivery, Notification
from cfnops.runtime import Runtime

__all__ = ["HealAccount"]


@dataclass(frozen=True)
class HealAccount:
    """``runtime`` aimed at ``account`` (``None``: the caller's own) via ``role_name``."""

    runtime: Runtime
    account: str | None = None
    role_name: str | None = None

    @property
    def settings(self) -> Settings:
        return self.runtime.settings

    def home_for(self, region: str | None) -> AwsClients:
        """The caller's own account's clients in ``region``."""
        return self.runtime.aws.in_region(region)

    def clients_for(self, region: str | None) -> AwsClients:
        """Clients in ``region`` of the account the run works in."""
        from cfnops.heal._scan import enter_account

        home = self.home_for(region)
        if self.account is None:
            return home
        return enter_account(
            home, self.account, self.role_name, session_name="cfnops-heal", command="heal"
        )

    def account_id(self, region: str | None) -> str:
        """The account the run works in (the caller's when none was named)."""
        return self.account or self.home_for(region).account_id()

    def cfn(self, region: str | None) -> Any:
        return self.clients_for(region).client("cloudformation")

    def notify(self, notification: Notification, region: str | None) -> list[Delivery]:
        # Notifications go to the operator's channels, in the caller's own account.
        return self.runtime.notify(notification, region)

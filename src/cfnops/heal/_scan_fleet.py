"""What ``cfnops drift scan`` (and a scheduled scan) does between parsing and rendering.

:func:`plan_scan` turns what the operator named (accounts or the organization, a
role, regions) into a :class:`ScanPlan` after every pre-flight check: malformed
account ids and unknown regions are refused, and every account is entered (its role
assumed) before the first stack is read, so a mistake is one line and exit 2 before
any scanning. :func:`run_scan` scans the plan and marks the accepted drift.

Between the two an entry point may tune its own process (the CLI freezes its heap
there: the clients and botocore's models then exist, the scan's allocations not yet).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from cfnops.aws import AwsClients, check_region
from cfnops.heal._accepted import AcceptedStore
from cfnops.heal._scan import (
    ScanResult,
    ScanRow,
    check_accounts,
    enter_accounts,
    organization_accounts,
    scan,
    with_accepted,
)
from cfnops.heal.errors import BadScanTarget
from cfnops.runtime import Runtime

__all__ = ["ScanPlan", "plan_scan", "run_scan"]


@dataclass(frozen=True)
class ScanPlan:
    """Where a scan reads: each account's clients (roles assumed) and the regions."""

    accounts: Mapping[str, AwsClients]
    regions: tuple[str, ...]


def plan_scan(
    runtime: Runtime,
    *,
    accounts: str | Sequence[str] | None = None,
    organization: bool = False,
    role_name: str | None = None,
    regions: Sequence[str] = (),
) -> ScanPlan:
    """The accounts (comma-separated ids, a list, or every ACTIVE account of the
    ``organization``; neither: the caller's own) entered through ``role_name``, in
    ``regions`` (none: the runtime's region).

    Raises :class:`~cfnops.heal.errors.BadScanTarget` (exit 2) before anything is
    scanned: both accounts and organization, a malformed account id, ListAccounts
    refused, a role that cannot be assumed; an unknown region raises ``AwsSetupError``.
    """
    if accounts and organization:
        raise BadScanTarget("--accounts/--organization", "give one of them, not both")
    where = tuple(check_region(r) for r in regions)
    clients = runtime.aws
    if isinstance(accounts, str):
        wanted: list[str] | None = check_accounts(accounts) if accounts else None
    else:
        wanted = check_accounts(",".join(accounts)) if accounts else None
    if organization:
        wanted = organization_accounts(clients)
    entered = enter_accounts(clients, wanted or [clients.account_id()], role_name)
    return ScanPlan(entered, where or (clients.region,))


def run_scan(
    runtime: Runtime,
    plan: ScanPlan,
    *,
    concurrency: int = 8,
    on_row: Callable[[ScanRow], None] | None = None,
) -> ScanResult:
    """Every root stack of every (account, region) of ``plan`` (nested followed, StackSet
    instances listed), with the runtime's ignore rules and accepted drift applied."""
    settings = runtime.settings
    result = scan(
        dict(plan.accounts),
        plan.regions,
        ignore=settings.heal.ignore,
        concurrency=concurrency,
        poll_seconds=min(5, settings.heal.drift_poll_seconds),
        on_row=on_row,
    )
    return with_accepted(result, AcceptedStore(runtime.database).list())

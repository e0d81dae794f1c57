"""What ``cfnops heal`` does between parsing and rendering, as one capability call.

:func:`plan_heal` turns what the operator named into fleet targets, after every
pre-flight check (roles assumed, stacks exist and are roots, none already being
healed), so a mistake is one line and exit 2 before any durable run starts.
:func:`run_heal` starts the process's engine on the runtime, heals the targets
and stops the engine (held runs stay pending for ``cfnops approve``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from cfnops.aws import AwsClients
from cfnops.durable import Engine, RunStore
from cfnops.errors import UsageError
from cfnops.heal import _fleet
from cfnops.heal._cfn import describe_stack
from cfnops.heal._runs import active_heals, run_key
from cfnops.heal._scan import check_accounts, enter_accounts
from cfnops.heal._workflow import root_name
from cfnops.heal.errors import HealAlreadyRunning, NestedStackHeal
from cfnops.runtime import Runtime

__all__ = ["plan_heal", "run_heal"]

_ACCOUNTS_HINT = "cfnops heal --all --accounts 111111111111,222222222222 --role-name NAME"


def plan_heal(
    runtime: Runtime,
    stacks: Sequence[str] = (),
    *,
    all_stacks: bool = False,
    tags: Mapping[str, str] | None = None,
    names: Sequence[str] = (),
    regions: Sequence[str | None] = (None,),
    accounts: str | None = None,
    role_name: str | None = None,
) -> list[_fleet.FleetTarget]:
    """The fleet targets for these stacks (or ``all_stacks`` matching ``tags``/``names``)
    in each of ``regions`` and ``accounts`` (comma-separated ids; ``None``: the caller's).

    Raises :class:`~cfnops.errors.UsageError` (or a heal usage error) before any run
    starts: a role that cannot be assumed, an unknown or nested stack, a stack another
    run is healing, no stack matching the filters.
    """
    if bool(stacks) == all_stacks:
        raise UsageError("give stack names or --all (not both)", hint="cfnops heal web")
    if not all_stacks and (tags or names):
        raise UsageError(
            "--tag and --name select stacks for --all", hint="add --all, or name the stacks"
        )
    entered = _enter(runtime, accounts, role_name)  # every role assumed before any run
    if all_stacks:
        targets = _fleet.select_stacks(
            runtime,
            list(regions),
            tags=dict(tags or {}),
            names=list(names),
            accounts=entered,
            role_name=role_name,
        )
        if not targets:
            raise UsageError(
                "no stack matches the filters",
                hint="'cfnops drift --all' lists the stacks here; check --name (a glob such as "
                "'web-*'), --tag and --region",
            )
        return targets
    targets = [
        _fleet.FleetTarget(s, r, a, role_name if a else None)
        for a in entered or [None]
        for r in regions
        for s in stacks
    ]
    _refuse_if_already_healing(runtime, targets)
    _check_stacks_exist(runtime, targets, entered)
    return targets


def run_heal(
    runtime: Runtime,
    targets: Sequence[_fleet.FleetTarget],
    *,
    only: bool = False,
    concurrency: int | None = None,
    on_update: Callable[[tuple[_fleet.FleetRow, ...]], None] | None = None,
    poll_seconds: float | None = None,
) -> _fleet.FleetSummary:
    """Heal ``targets`` on the process's engine (started on ``runtime``, stopped after:
    held runs stay pending and the next cfnops process resumes them); ``poll_seconds``
    (how often the runs' statuses are read) defaults to heal_fleet's."""
    engine = Engine.start_process(runtime)
    try:
        return _fleet.heal_fleet(
            engine,
            runtime.settings,
            targets,
            concurrency=concurrency,
            only=only,
            on_update=on_update,
            poll_seconds=_fleet.FLEET_POLL_SECONDS if poll_seconds is None else poll_seconds,
        )
    finally:
        engine.shutdown(grace_seconds=0)


def _enter(
    runtime: Runtime, accounts: str | None, role_name: str | None
) -> dict[str | None, AwsClients] | None:
    """``accounts``: each account's clients (``None``: the caller's own), every role
    assumed now, so a role that cannot be assumed is exit 2 before any run starts."""
    if not accounts:
        if role_name:
            raise UsageError("--role-name goes with --accounts", hint=_ACCOUNTS_HINT)
        return None
    wanted = check_accounts(accounts, "heal")
    clients = runtime.aws
    entered = enter_accounts(clients, wanted, role_name, session_name="cfnops-heal", command="heal")
    own = clients.account_id()
    return {(None if a == own else a): c for a, c in entered.items()}


def _check_stacks_exist(
    runtime: Runtime,
    targets: list[_fleet.FleetTarget],
    entered: dict[str | None, AwsClients] | None = None,
) -> None:
    """Fail fast, as ``cfnops drift`` does: an unknown stack, an unreachable endpoint or
    missing credentials are one line and exit 2 before any durable run starts."""
    for target in targets:
        base = (entered or {}).get(target.account) or runtime.aws
        clients = base.in_region(target.region)  # cached: one client set per (account, region)
        found = describe_stack(clients.client("cloudformation"), target.stack)
        if found is None:
            region = target.region or clients.region
            where = f"account {target.account}, {region}" if target.account else region
            raise UsageError(
                f"stack {target.stack} does not exist in {where}",
                hint="check the name and --region ('cfnops drift --all' lists the stacks)",
            )
        if found.get("RootId"):
            raise NestedStackHeal(target.stack, root_name(str(found["RootId"])))


def _refuse_if_already_healing(runtime: Runtime, targets: list[_fleet.FleetTarget]) -> None:
    """A named stack another run is healing: exit 2 with how to free it, before starting."""
    region = runtime.settings.aws.region
    with RunStore(runtime.database) as store:
        active = active_heals(store, region)
    for target in targets:
        running = active.get(run_key(target.account, target.region or region, target.stack))
        if running is not None:
            raise HealAlreadyRunning(target.stack, running)

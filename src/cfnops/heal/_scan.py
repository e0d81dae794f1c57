"""Fleet drift scans across accounts and regions (``cfnops drift scan``).

Accounts come from ``--accounts`` or from Organizations ``ListAccounts`` (ACTIVE
ones); each is entered with STS ``AssumeRole`` of ``--role-name`` (the caller's
own account is used as is). Every (account, region) lists its root stacks and
their StackSets' instances; each root stack gets a drift report (nested stacks
followed, coverage counted). Reports run on a pool whose concurrency adapts:
every throttling answer botocore sees (``needs-retry``) halves the target, and
each run of successes adds one back (additive increase, multiplicative
decrease), so a throttled account slows the scan instead of failing it. The
effective rate (stacks per minute) and the concurrency range are reported.

API references: AssumeRole (STS), ListAccounts (Organizations), DescribeStacks,
ListStackSets, ListStackInstances (CloudFormation).
"""

from __future__ import annotations

import datetime as dt
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import botocore.exceptions

from cfnops import logcontext, tracing
from cfnops.aws import AwsClients, error_code
from cfnops.config import IgnoreRule
from cfnops.heal._accepted import AcceptedDrift, mark
from cfnops.heal._coverage import Coverage, total
from cfnops.heal._model import StackDriftReport
from cfnops.heal._report import DetectionPacer, drift_report, list_stacks
from cfnops.heal.errors import BadScanTarget

if TYPE_CHECKING:
    from mypy_boto3_cloudformation import CloudFormationClient
    from mypy_boto3_cloudformation.type_defs import StackInstanceSummaryTypeDef

_ACCOUNT = re.compile(r"^\d{12}$")
_THROTTLING = frozenset(
    {"Throttling", "ThrottlingException", "TooManyRequestsException", "RequestLimitExceeded"}
)


@dataclass(frozen=True)
class ScanTarget:
    account: str
    region: str


@dataclass(frozen=True)
class StackSetInstance:
    stack_set: str
    account: str
    region: str
    stack_id: str | None
    status: str
    drift: str  # the instance stack's drift from this scan, else the API's DriftStatus

    def to_json(self) -> dict[str, Any]:
        return {
            "stackSet": self.stack_set,
            "account": self.account,
            "region": self.region,
            "stackId": self.stack_id,
            "status": self.status,
            "drift": self.drift,
        }


@dataclass(frozen=True)
class ScanRow:
    account: str
    region: str
    report: StackDriftReport | None
    stack: str
    error: str | None = None

    @property
    def status(self) -> str:
        return "ERROR" if self.report is None else self.report.effective_status

    def to_json(self) -> dict[str, Any]:
        return {
            "account": self.account,
            "region": self.region,
            "stack": self.stack,
            "status": self.status,
            "error": self.error,
            "report": self.report.to_json() if self.report else None,
        }


@dataclass(frozen=True)
class ScanResult:
    rows: tuple[ScanRow, ...]
    stack_sets: tuple[StackSetInstance, ...]
    seconds: float
    throttled: int
    concurrency: tuple[int, int, int]  # start, lowest, highest

    @property
    def coverage(self) -> Coverage:
        return total(r.report.coverage_with_nested for r in self.rows if r.report)

    @property
    def stacks_per_minute(self) -> float:
        return round(60.0 * len(self.rows) / self.seconds, 1) if self.seconds else 0.0

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in self.rows:
            out[r.status] = out.get(r.status, 0) + 1
        return dict(sorted(out.items()))

    def to_json(self) -> dict[str, Any]:
        start, low, high = self.concurrency
        return {
            "counts": self.counts(),
            "coverage": self.coverage.to_json(),
            "seconds": round(self.seconds, 2),
            "stacksPerMinute": self.stacks_per_minute,
            "throttled": self.throttled,
            "concurrency": {"start": start, "lowest": low, "highest": high},
            "stacks": [r.to_json() for r in self.rows],
            "stackSets": [s.to_json() for s in self.stack_sets],
        }


class AdaptiveLimit:
    """Additive-increase / multiplicative-decrease concurrency, fed by throttling events."""

    def __init__(self, start: int, lowest: int = 1, highest: int | None = None) -> None:
        self.limit, self.lowest, self.highest = start, lowest, highest or start
        self.seen_low, self.seen_high = start, start
        self.throttled, self._streak, self._running = 0, 0, 0
        self._cond = threading.Condition()

    def throttle(self) -> None:
        with self._cond:
            self.throttled += 1
            self._streak = 0
            self.limit = max(self.lowest, self.limit // 2)
            self.seen_low = min(self.seen_low, self.limit)

    def success(self) -> None:
        with self._cond:
            self._streak += 1
            if self._streak >= self.limit and self.limit < self.highest:
                self.limit += 1
                self._streak = 0
                self.seen_high = max(self.seen_high, self.limit)

    def __enter__(self) -> AdaptiveLimit:
        with self._cond:
            while self._running >= self.limit:
                self._cond.wait(0.05)
            self._running += 1
        return self

    def __exit__(self, *exc: object) -> None:
        with self._cond:
            self._running -= 1
            self._cond.notify_all()


def check_accounts(text: str, command: str = "drift scan") -> list[str]:
    accounts = [a.strip() for a in text.split(",") if a.strip()]
    bad = [a for a in accounts if not _ACCOUNT.match(a)]
    if bad or not accounts:
        shown = ", ".join(bad) or repr(text)
        raise BadScanTarget("--accounts", f"{shown}: an account id is 12 digits", command)
    return accounts


def organization_accounts(clients: AwsClients) -> list[str]:
    """ACTIVE accounts of the caller's organization (ListAccounts, every page)."""
    org = clients.client("organizations")
    out: list[str] = []
    try:
        for page in org.get_paginator("list_accounts").paginate():
            out.extend(a["Id"] for a in page["Accounts"] if a.get("Status", "ACTIVE") == "ACTIVE")
    except botocore.exceptions.ClientError as exc:
        code = error_code(exc)
        raise BadScanTarget("--organization", f"ListAccounts failed ({code})") from exc
    return out


def enter_account(
    clients: AwsClients,
    account: str,
    role_name: str | None,
    *,
    session_name: str = "cfnops-drift-scan",
    command: str = "drift scan",
) -> AwsClients:
    """``account``'s clients (STS AssumeRole of ``role_name``, cached by ``clients``);
    the caller's own account as is; :class:`BadScanTarget` if refused."""
    if account == clients.account_id():
        return clients
    if not role_name:
        raise BadScanTarget("--role-name", f"needed to enter account {account}", command)
    try:
        return clients.assume(account, role_name, session_name=session_name)
    except botocore.exceptions.ClientError as exc:
        code = error_code(exc)
        arn = f"arn:aws:iam::{account}:role/{role_name}"
        raise BadScanTarget(
            f"account {account}", f"role {role_name} cannot be assumed ({code}): {arn}", command
        ) from exc


def enter_accounts(
    clients: AwsClients,
    accounts: Sequence[str],
    role_name: str | None,
    *,
    session_name: str = "cfnops-drift-scan",
    command: str = "drift scan",
) -> dict[str, AwsClients]:
    """Clients per account: the caller's own as is, others through AssumeRole."""
    return {
        account: enter_account(
            clients, account, role_name, session_name=session_name, command=command
        )
        for account in accounts
    }


def _watch_throttling(
    clients: AwsClients, limit: AdaptiveLimit, watching: list[Callable[[], None]]
) -> CloudFormationClient:
    """The region's CloudFormation client, its throttling answers fed to ``limit``.

    Clients are cached (per account and region) and outlive the scan: the handler's
    removal is appended to ``watching``, for the scan to call when it ends, so
    repeated scans in one process (a schedule) do not pile handlers up.
    """
    cfn = clients.client("cloudformation")

    def on_retry(response: Any = None, **_: Any) -> None:
        if isinstance(response, tuple) and len(response) == 2 and isinstance(response[1], dict):
            code = response[1].get("Error", {}).get("Code", "")
            if code in _THROTTLING:
                limit.throttle()

    cfn.meta.events.register("needs-retry.cloudformation", on_retry)
    watching.append(lambda: cfn.meta.events.unregister("needs-retry.cloudformation", on_retry))
    return cfn


def _stack_sets(cfn: CloudFormationClient) -> list[tuple[str, StackInstanceSummaryTypeDef]]:
    out: list[tuple[str, StackInstanceSummaryTypeDef]] = []
    try:
        names = [
            s["StackSetName"]
            for page in cfn.get_paginator("list_stack_sets").paginate(Status="ACTIVE")
            for s in page["Summaries"]
        ]
        for name in names:
            for page in cfn.get_paginator("list_stack_instances").paginate(StackSetName=name):
                out.extend((name, item) for item in page["Summaries"])
    except botocore.exceptions.ClientError:
        return out  # no StackSets permission here: nothing to list
    return out


def _instance_drift(rows: Sequence[ScanRow], stack_set: str, item: Mapping[str, Any]) -> str:
    """The instance stack's drift from this scan, else the API's ``DriftStatus``.

    Matched by stack id; failing that by account, region and a name of the form
    ``StackSet-<set>-…`` (AWS) or ``StackSet:<set>`` (moto's instance stacks).
    """
    stack_id = str(item.get("StackId") or "")
    account, region = str(item.get("Account", "")), str(item.get("Region", ""))
    named = re.compile(rf"^StackSet[-:]{re.escape(stack_set)}([-:]|$)")
    for r in rows:
        if r.report is not None and r.report.stack_id == stack_id:
            return r.status
    for r in rows:
        if (r.account, r.region) == (account, region) and named.match(r.stack):
            return r.status
    return str(item.get("DriftStatus") or "NOT_CHECKED")


def with_accepted(result: ScanResult, entries: Sequence[AcceptedDrift]) -> ScanResult:
    """Accepted drift (``drift accept``) marked ACCEPTED: not drift until it expires."""
    if not entries:
        return result
    now = dt.datetime.now(dt.UTC)
    rows = tuple(
        replace(r, report=mark(r.report, entries, now, r.region, r.account)) if r.report else r
        for r in result.rows
    )
    return replace(result, rows=rows)


def scan(
    per_account: dict[str, AwsClients],
    regions: Sequence[str],
    *,
    ignore: tuple[IgnoreRule, ...] = (),
    concurrency: int = 8,
    poll_seconds: float = 2.0,
    on_row: Callable[[ScanRow], None] | None = None,
) -> ScanResult:
    """Drift reports for every root stack of every (account, region), StackSets listed."""
    watching: list[Callable[[], None]] = []
    try:
        return _scan(per_account, regions, ignore, concurrency, poll_seconds, on_row, watching)
    finally:
        for stop in watching:
            stop()


def _scan(
    per_account: dict[str, AwsClients],
    regions: Sequence[str],
    ignore: tuple[IgnoreRule, ...],
    concurrency: int,
    poll_seconds: float,
    on_row: Callable[[ScanRow], None] | None,
    watching: list[Callable[[], None]],
) -> ScanResult:
    started = time.monotonic()
    limit = AdaptiveLimit(concurrency)
    pacer = DetectionPacer()
    jobs: list[tuple[str, str, CloudFormationClient, dict[str, Any]]] = []
    raw_sets: list[tuple[str, StackInstanceSummaryTypeDef]] = []
    for account, clients in per_account.items():
        for region in regions:
            regional = clients.in_region(region)
            cfn = _watch_throttling(regional, limit, watching)
            for s in list_stacks(cfn):
                if not s.get("ParentId"):
                    jobs.append((account, region, cfn, s))
            raw_sets.extend(_stack_sets(cfn))

    def one(job: tuple[str, str, CloudFormationClient, dict[str, Any]]) -> ScanRow:
        account, region, cfn, listed = job
        name = str(listed["StackName"])
        with limit:
            try:
                report = drift_report(
                    cfn, name, ignore=ignore, poll_seconds=poll_seconds, known=listed, pacer=pacer
                )
                row = ScanRow(account, region, report, name)
                limit.success()
            except Exception as exc:  # one stack's failure is reported, the scan goes on
                row = ScanRow(account, region, None, name, error=str(exc))
        if on_row is not None:
            on_row(row)
        return row

    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        # each stack's AWS calls under the caller's span (a scan step), with its log fields
        rows = tuple(pool.map(tracing.carry(logcontext.carry(one)), jobs))
    instances = tuple(
        StackSetInstance(
            name,
            str(item.get("Account", "")),
            str(item.get("Region", "")),
            item.get("StackId"),
            str(item.get("Status", "")),
            _instance_drift(rows, name, item),
        )
        for name, item in raw_sets
    )
    return ScanResult(
        rows,
        instances,
        time.monotonic() - started,
        limit.throttled,
        (concurrency, limit.seen_low, limit.seen_high),
    )

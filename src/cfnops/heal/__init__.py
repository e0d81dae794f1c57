"""Configuration healing: drift reports and the durable heal workflow.

- :func:`drift_report` — a stack's drift (nested stacks followed), ignore rules applied;
- :data:`HEAL_WORKFLOW` (``cfnops.heal``) — detect → REVERT_DRIFT change set →
  safety gate → execute or hold for approval → notify; :func:`heal_stack` is the
  SDK-level function the Lambda handler runs unchanged;
- :func:`decide` — the pure safety gate over a change set;
- :func:`start_heal`, :func:`approve`, :func:`reject`, :func:`heal_fleet` — runs;
- :func:`plan_scan`, :func:`run_scan` — a fleet drift scan (``cfnops drift scan``);
- :data:`DRIFT_SCAN_WORKFLOW` (``cfnops.drift-scan``) — a scheduled fleet scan that
  notifies when drift appears or clears; :class:`DriftScheduler` fires the
  ``[drift_scan.schedules.*]`` of :func:`plan_drift_schedules` in ``cfnops worker``.
"""

from cfnops.heal._accepted import AcceptedDrift, AcceptedStore, check_path, parse_until
from cfnops.heal._accepted import export as export_accepted
from cfnops.heal._adopt import adopt_template
from cfnops.heal._adopt import selected as selected_drift
from cfnops.heal._cfn import describe_stack
from cfnops.heal._changeview import ChangeView, DetailView
from cfnops.heal._event import HealEvent, parse_event
from cfnops.heal._fleet import (
    BUCKETS,
    FLEET_POLL_SECONDS,
    FleetRow,
    FleetSummary,
    FleetTarget,
    heal_fleet,
    select_stacks,
)
from cfnops.heal._held_view import held_changes, polled_drift
from cfnops.heal._ignore import apply_ignore, rule_matches
from cfnops.heal._model import PropertyDrift, ResourceDrift, StackDriftReport
from cfnops.heal._names import change_set_name, request_token
from cfnops.heal._plan import plan_heal, run_heal
from cfnops.heal._policy import GateDecision, GatePolicy, decide
from cfnops.heal._render import fleet_coverage, report_markdown
from cfnops.heal._report import drift_report, drift_reports, list_stacks
from cfnops.heal._runs import (
    active_heals,
    answer_approval,
    approve,
    gate_decision,
    held_info,
    reject,
    run_key,
    run_outcome,
    start_heal,
)
from cfnops.heal._runtime import HealAccount
from cfnops.heal._scan import (
    ScanResult,
    check_accounts,
    enter_account,
    enter_accounts,
    organization_accounts,
    scan,
    with_accepted,
)
from cfnops.heal._scan_changes import DriftChanges, StackChange, compare_states
from cfnops.heal._scan_fleet import ScanPlan, plan_scan, run_scan
from cfnops.heal._scan_render import scan_html, scan_markdown
from cfnops.heal._scan_schedule import (
    DriftPlan,
    DriftScheduler,
    plan_drift_schedules,
    run_drift_scheduler,
    start_drift_scan,
)
from cfnops.heal._scan_schedule import describe as describe_drift_schedules
from cfnops.heal._scan_watch import DRIFT_SCAN_WORKFLOW
from cfnops.heal._urls import change_set_console_url, region_from_stack_arn
from cfnops.heal._verify import DetectedResource, DriftedPath, Match, verify
from cfnops.heal._workflow import HEAL_WORKFLOW, heal, heal_stack, root_name

__all__ = [
    "BUCKETS",
    "DRIFT_SCAN_WORKFLOW",
    "FLEET_POLL_SECONDS",
    "HEAL_WORKFLOW",
    "AcceptedDrift",
    "AcceptedStore",
    "ChangeView",
    "DetailView",
    "DetectedResource",
    "DriftChanges",
    "DriftPlan",
    "DriftScheduler",
    "DriftedPath",
    "FleetRow",
    "FleetSummary",
    "FleetTarget",
    "GateDecision",
    "GatePolicy",
    "HealAccount",
    "HealEvent",
    "Match",
    "PropertyDrift",
    "ResourceDrift",
    "ScanPlan",
    "ScanResult",
    "StackChange",
    "StackDriftReport",
    "active_heals",
    "adopt_template",
    "answer_approval",
    "apply_ignore",
    "approve",
    "change_set_console_url",
    "change_set_name",
    "check_accounts",
    "check_path",
    "compare_states",
    "decide",
    "describe_drift_schedules",
    "describe_stack",
    "drift_report",
    "drift_reports",
    "enter_account",
    "enter_accounts",
    "export_accepted",
    "fleet_coverage",
    "gate_decision",
    "heal",
    "heal_fleet",
    "heal_stack",
    "held_changes",
    "held_info",
    "list_stacks",
    "organization_accounts",
    "parse_event",
    "parse_until",
    "plan_drift_schedules",
    "plan_heal",
    "plan_scan",
    "polled_drift",
    "region_from_stack_arn",
    "reject",
    "report_markdown",
    "request_token",
    "root_name",
    "rule_matches",
    "run_drift_scheduler",
    "run_heal",
    "run_key",
    "run_outcome",
    "run_scan",
    "scan",
    "scan_html",
    "scan_markdown",
    "select_stacks",
    "selected_drift",
    "start_drift_scan",
    "start_heal",
    "verify",
    "with_accepted",
]

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

from cfnops.heal._accepted import AcceptedDrift, AcceptedStore
from cfnops.heal._accepted import export as export_accepted
from cfnops.heal._adopt import adopt_template
from cfnops.heal._adopt import selected as selected_drift
from cfnops.heal._changeview import ChangeView, DetailView
from cfnops.heal._fleet import FleetRow, FleetSummary, FleetTarget, heal_fleet, select_stacks
from cfnops.heal._held_view import held_changes, polled_drift
from cfnops.heal._model import PropertyDrift, ResourceDrift, StackDriftReport
from cfnops.heal._plan import plan_heal, run_heal
from cfnops.heal._policy import GateDecision, GatePolicy, decide
from cfnops.heal._render import fleet_coverage
from cfnops.heal._report import drift_report, drift_reports, list_stacks
from cfnops.heal._runs import (
    answer_approval,
    approve,
    gate_decision,
    held_info,
    reject,
    run_outcome,
    start_heal,
)
from cfnops.heal._runtime import HealAccount
from cfnops.heal._scan import ScanResult
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
from cfnops.heal._workflow import HEAL_WORKFLOW, heal_stack

__all__ = [
    "DRIFT_SCAN_WORKFLOW",
    "HEAL_WORKFLOW",
    "AcceptedDrift",
    "AcceptedStore",
    "ChangeView",
    "DetailView",
    "DriftPlan",
    "DriftScheduler",
    "FleetRow",
    "FleetSummary",
    "FleetTarget",
    "GateDecision",
    "GatePolicy",
    "HealAccount",
    "PropertyDrift",
    "ResourceDrift",
    "ScanPlan",
    "ScanResult",
    "StackDriftReport",
    "adopt_template",
    "answer_approval",
    "approve",
    "decide",
    "describe_drift_schedules",
    "drift_report",
    "drift_reports",
    "export_accepted",
    "fleet_coverage",
    "gate_decision",
    "heal_fleet",
    "heal_stack",
    "held_changes",
    "held_info",
    "list_stacks",
    "plan_drift_schedules",
    "plan_heal",
    "plan_scan",
    "polled_drift",
    "reject",
    "run_drift_scheduler",
    "run_heal",
    "run_outcome",
    "run_scan",
    "scan_html",
    "scan_markdown",
    "select_stacks",
    "selected_drift",
    "start_drift_scan",
    "start_heal",
]

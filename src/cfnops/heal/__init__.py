"""Configuration healing: drift reports and the durable heal workflow.

- :func:`drift_report` — a stack's drift (nested stacks followed), ignore rules applied;
- :data:`HEAL_WORKFLOW` (``cfnops.heal``) — detect → REVERT_DRIFT change set →
  safety gate → execute or hold for approval → notify; :func:`heal_stack` is the
  SDK-level function the Lambda handler runs unchanged;
- :func:`decide` — the pure safety gate over a change set;
- :func:`start_heal`, :func:`approve`, :func:`reject`, :func:`heal_fleet` — runs;
- :data:`DRIFT_SCAN_WORKFLOW` (``cfnops.drift-scan``) — a scheduled fleet scan that
  notifies when drift appears or clears; :class:`DriftScheduler` fires the
  ``[drift_scan.schedules.*]`` of :func:`plan_drift_schedules` in ``cfnops worker``.
"""

from cfnops.heal._changeview import ChangeView, DetailView
from cfnops.heal._event import HealEvent, parse_event
from cfnops.heal._fleet import FleetRow, FleetSummary, FleetTarget, heal_fleet, select_stacks
from cfnops.heal._ignore import apply_ignore, rule_matches
from cfnops.heal._model import PropertyDrift, ResourceDrift, StackDriftReport
from cfnops.heal._names import change_set_name, request_token
from cfnops.heal._policy import GateDecision, GatePolicy, decide
from cfnops.heal._report import drift_report, drift_reports
from cfnops.heal._runs import approve, reject, run_outcome, start_heal
from cfnops.heal._runtime import HealRuntime, configure_runtime, current_runtime
from cfnops.heal._scan_changes import DriftChanges, StackChange, compare_states
from cfnops.heal._scan_schedule import (
    DriftPlan,
    DriftScheduler,
    plan_drift_schedules,
    run_drift_scheduler,
    start_drift_scan,
)
from cfnops.heal._scan_watch import DRIFT_SCAN_WORKFLOW
from cfnops.heal._urls import change_set_console_url, region_from_stack_arn
from cfnops.heal._verify import DetectedResource, DriftedPath, Match, verify
from cfnops.heal._workflow import HEAL_WORKFLOW, heal, heal_stack

__all__ = [
    "DRIFT_SCAN_WORKFLOW",
    "HEAL_WORKFLOW",
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
    "HealEvent",
    "HealRuntime",
    "Match",
    "PropertyDrift",
    "ResourceDrift",
    "StackChange",
    "StackDriftReport",
    "apply_ignore",
    "approve",
    "change_set_console_url",
    "change_set_name",
    "compare_states",
    "configure_runtime",
    "current_runtime",
    "decide",
    "drift_report",
    "drift_reports",
    "heal",
    "heal_fleet",
    "heal_stack",
    "parse_event",
    "plan_drift_schedules",
    "region_from_stack_arn",
    "reject",
    "request_token",
    "rule_matches",
    "run_drift_scheduler",
    "run_outcome",
    "select_stacks",
    "start_drift_scan",
    "start_heal",
    "verify",
]

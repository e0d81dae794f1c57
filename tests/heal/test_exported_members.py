"""The public names of cfnops.heal and cfnops.notify (a change here is an API change)."""

from __future__ import annotations

import cfnops.heal
import cfnops.notify


def test_heal_exports() -> None:
    assert sorted(cfnops.heal.__all__) == [
        "AcceptedDrift",
        "AcceptedStore",
        "BUCKETS",
        "ChangeView",
        "DRIFT_SCAN_WORKFLOW",
        "DetailView",
        "DetectedResource",
        "DriftChanges",
        "DriftPlan",
        "DriftScheduler",
        "DriftedPath",
        "FLEET_POLL_SECONDS",
        "FleetRow",
        "FleetSummary",
        "FleetTarget",
        "GateDecision",
        "GatePolicy",
        "HEAL_WORKFLOW",
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
    for name in cfnops.heal.__all__:
        assert getattr(cfnops.heal, name) is not None


def test_notify_exports() -> None:
    for name in cfnops.notify.__all__:
        assert getattr(cfnops.notify, name) is not None
    assert {"Notification", "Notifier", "notify_all", "truncate_for_slack"} <= set(
        cfnops.notify.__all__
    )

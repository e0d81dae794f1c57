"""The public names of cfnops.heal and cfnops.notify (a change here is an API change)."""

from __future__ import annotations

import cfnops.heal
import cfnops.notify


def test_heal_exports() -> None:
    assert sorted(cfnops.heal.__all__) == [
        "AcceptedDrift",
        "AcceptedStore",
        "ChangeView",
        "DRIFT_SCAN_WORKFLOW",
        "DetailView",
        "DriftPlan",
        "DriftScheduler",
        "FleetRow",
        "FleetSummary",
        "FleetTarget",
        "GateDecision",
        "GatePolicy",
        "HEAL_WORKFLOW",
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
    for name in cfnops.heal.__all__:
        assert getattr(cfnops.heal, name) is not None


def test_notify_exports() -> None:
    for name in cfnops.notify.__all__:
        assert getattr(cfnops.notify, name) is not None
    assert {"Notification", "Notifier", "notify_all", "truncate_for_slack"} <= set(
        cfnops.notify.__all__
    )

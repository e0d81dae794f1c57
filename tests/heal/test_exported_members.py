"""The public names of cfnops.heal and cfnops.notify (a change here is an API change)."""

from __future__ import annotations

import cfnops.heal
import cfnops.notify


def test_heal_exports() -> None:
    assert sorted(cfnops.heal.__all__) == [
        "ChangeView",
        "DRIFT_SCAN_WORKFLOW",
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
        "HEAL_WORKFLOW",
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
    for name in cfnops.heal.__all__:
        assert getattr(cfnops.heal, name) is not None


def test_notify_exports() -> None:
    for name in cfnops.notify.__all__:
        assert getattr(cfnops.notify, name) is not None
    assert {"Notification", "Notifier", "notify_all", "truncate_for_slack"} <= set(
        cfnops.notify.__all__
    )

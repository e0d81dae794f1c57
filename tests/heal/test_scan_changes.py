"""compare_states: what appeared, cleared or changed between two scans (pure)."""

from __future__ import annotations

from typing import Any

import pytest

from cfnops.heal._scan_changes import changes_message, changes_subject, compare_states

A, B, C = "111111111111/eu-west-1/a", "111111111111/eu-west-1/b", "111111111111/eu-west-1/c"


def _s(status: str, *drifted: str) -> dict[str, Any]:
    return {"status": status, "drifted": list(drifted)}


def test_first_scan_reports_current_drift_as_appeared() -> None:
    got = compare_states(None, {A: _s("DRIFTED", "Param"), B: _s("IN_SYNC")})
    assert [(c.key, c.resources) for c in got.appeared] == [(A, ("Param",))]
    assert got.cleared == () and got.first and got.any


def test_unchanged_drift_is_no_change() -> None:
    before = {A: _s("DRIFTED", "Param"), B: _s("IN_SYNC")}
    got = compare_states(before, {A: _s("DRIFTED", "Param"), B: _s("IN_SYNC")})
    assert not got.any and got.drifted == 1 and not got.first


def test_cleared_and_gone_stacks_are_cleared() -> None:
    before = {A: _s("DRIFTED", "Param"), B: _s("DRIFTED", "Queue"), C: _s("IN_SYNC")}
    got = compare_states(before, {A: _s("IN_SYNC"), C: _s("IN_SYNC")})
    assert [(c.key, c.note) for c in got.cleared] == [(A, "back in sync"), (B, "no longer found")]
    assert got.appeared == () and B not in got.state


def test_other_resources_drifting_is_a_change() -> None:
    got = compare_states({A: _s("DRIFTED", "Param")}, {A: _s("DRIFTED", "Param", "Queue")})
    assert [(c.key, c.resources, c.note) for c in got.changed] == [
        (A, ("Param", "Queue"), "was Param")
    ]


@pytest.mark.parametrize("status", ["ERROR", "NOT_CHECKABLE", "UNKNOWN"])
def test_a_stack_not_checked_keeps_its_previous_state(status: str) -> None:
    before = {A: _s("DRIFTED", "Param")}
    got = compare_states(before, {A: _s(status)})
    assert not got.any  # a failed call neither clears nor raises drift
    assert [c.key for c in got.not_checked] == [A]
    assert got.state[A]["status"] == "DRIFTED" and got.state[A]["carried"] is True
    # ... so the next scan that sees it in sync reports it cleared
    again = compare_states(got.state, {A: _s("IN_SYNC")})
    assert [c.key for c in again.cleared] == [A]


def test_a_stack_set_instance_without_known_drift_is_kept_quietly() -> None:
    key = "stackset:ss/222222222222/eu-west-1"
    got = compare_states({key: _s("DRIFTED")}, {key: _s("NOT_CHECKED")})
    assert not got.any and got.not_checked == () and got.state[key]["status"] == "DRIFTED"
    assert [c.key for c in compare_states(None, {key: _s("DRIFTED")}).appeared] == [key]


def test_message_lists_each_stack_in_a_code_block() -> None:
    got = compare_states({B: _s("DRIFTED", "Queue")}, {A: _s("DRIFTED", "Param"), B: _s("IN_SYNC")})
    text = changes_message("nightly", "drift-scan-nightly-1", got)
    assert f"APPEARED  {A}  Param" in text and f"CLEARED   {B}  Queue  (back in sync)" in text
    assert text.count("```") == 2 and text.endswith("Run: drift-scan-nightly-1")
    assert changes_subject("nightly", got) == (
        "cfnops drift scan nightly: drift appeared on 1 stack(s), cleared on 1"
    )

"""The verified gate: every change of a REVERT_DRIFT change set matched to detected drift."""

from __future__ import annotations

from typing import Any

import pytest

from cfnops.config import DEFAULT_PROTECTED_TYPES
from cfnops.heal import ChangeView, GatePolicy, decide
from cfnops.heal._verify import DetectedResource, DriftedPath, Match, verify

POLICY = GatePolicy(DEFAULT_PROTECTED_TYPES, (), "web")
DETECTED = {
    "Param": DetectedResource("Param", "MODIFIED", (DriftedPath("/Value", "updated-value"),)),
    "Tagged": DetectedResource("Tagged", "MODIFIED", (DriftedPath("/Tags/0/Value", '"b"'),)),
    "Gone": DetectedResource("Gone", "DELETED"),
    "Quiet": DetectedResource("Quiet", "IN_SYNC"),
    "Unread": DetectedResource("Unread", "NOT_CHECKED"),
}


def _detail(path: str, **target: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "Path": path,
        "Name": path.split("/")[2],
        "RequiresRecreation": "Never",
        "BeforeValue": "updated-value",
        "AfterValue": "initial-value",
        "BeforeValueFrom": "ACTUAL_STATE",
        "AfterValueFrom": "TEMPLATE",
        "AttributeChangeType": "Modify",
        "Drift": {"PreviousValue": "initial-value", "ActualValue": "updated-value"},
    }
    base.update(target)
    return {"Target": base, "Evaluation": "Static", "ChangeSource": "DirectModification"}


def _change(lid: str = "Param", *details: dict[str, Any], **rc: Any) -> ChangeView:
    api: dict[str, Any] = {
        "LogicalResourceId": lid,
        "ResourceType": "AWS::SSM::Parameter",
        "Action": "Modify",
        "Replacement": "False",
        "ResourceDriftStatus": "MODIFIED",
        "Details": list(details) or [_detail("/Properties/Value")],
    }
    api.update(rc)
    return ChangeView.from_api({"Type": "Resource", "ResourceChange": api})


def test_a_genuine_revert_is_matched_path_by_path_and_executes() -> None:
    changes = (
        _change(),
        _change("Gone", Action="Add", ResourceDriftStatus="DELETED", Details=[]),
    )
    decision = decide(changes, POLICY, DETECTED)
    assert decision.decision == "EXECUTE"
    assert decision.matches == (
        Match("Param", "/Properties/Value", True, "/Value", "drifted"),
        Match("Gone", None, True, None, "deleted out of band"),
    )


def test_a_whole_property_change_is_covered_by_drift_below_it() -> None:
    detail = _detail("/Properties/Tags", Drift=None)
    (m,) = verify((_change("Tagged", detail),), DETECTED)
    assert m.explained and m.drift_path == "/Tags/0/Value"


@pytest.mark.parametrize(
    ("change", "path", "reason"),
    [
        pytest.param(
            _change("Quiet"), None, "changed but detection found it IN_SYNC", id="in-sync"
        ),
        pytest.param(
            _change("Unread"), None, "changed but detection found it NOT_CHECKED", id="unchecked"
        ),
        pytest.param(
            _change("Stranger"),
            None,
            "changed but detection found it not in the detection",
            id="unknown-resource",
        ),
        pytest.param(
            _change("Param", _detail("/Properties/Description", Drift=None)),
            "/Properties/Description",
            "path did not drift (drifted: /Value)",
            id="undrifted-path",
        ),
        pytest.param(
            _change(
                "Param", _detail("/Properties/Value", AfterValue="{{changeSet:KNOWN_AFTER_APPLY}}")
            ),
            "/Properties/Value",
            "value known only after apply",
            id="known-after-apply",
        ),
        pytest.param(
            _change(
                "Param",
                _detail("/Properties/Value", RequiresRecreation="Always"),
                Replacement="True",
            ),
            "/Properties/Value",
            "RequiresRecreation=Always but the schema says Value updates in place",
            id="replacement-against-schema",
        ),
        pytest.param(
            _change(ResourceDriftStatus="UNSUPPORTED"),
            None,
            "ResourceDriftStatus UNSUPPORTED: its actual state cannot be compared",
            id="unsupported",
        ),
        pytest.param(
            _change(ResourceDriftStatus="UNKNOWN"),
            None,
            "ResourceDriftStatus UNKNOWN: its actual state cannot be compared",
            id="unknown",
        ),
        pytest.param(
            _change(
                ResourceDriftIgnoredAttributes=[
                    {"Path": "/Properties/Value", "Reason": "WRITE_ONLY_PROPERTY"}
                ]
            ),
            "/Properties/Value",
            "CloudFormation ignored drift at /Properties/Value (WRITE_ONLY_PROPERTY) yet writes it",
            id="ignored-attribute",
        ),
        pytest.param(
            _change(
                "Param",
                _detail("/Properties/Value", Drift={"ActualValue": "third-value"}),
            ),
            "/Properties/Value",
            "actual value changed since detection ('updated-value' → 'third-value')",
            id="changed-again",
        ),
        pytest.param(
            _change("Quiet", Action="Add", Details=[]),
            None,
            "added but detection found it IN_SYNC",
            id="add-of-a-live-resource",
        ),
    ],
)
def test_each_phantom_is_unexplained_with_its_reason(
    change: ChangeView, path: str | None, reason: str
) -> None:
    schema = {"AWS::SSM::Parameter/Value": "Never"}
    (m,) = verify((change,), DETECTED, schema)
    assert (m.logical_id, m.path, m.explained, m.reason) == (
        change.logical_id,
        path,
        False,
        reason,
    )
    decision = decide((change,), POLICY, DETECTED, schema)
    assert decision.decision == "HOLD"
    at = f" at {path}" if path else ""
    assert f"{change.logical_id} (AWS::SSM::Parameter) unexplained change{at}: {reason}" in (
        decision.reasons
    )


def test_sync_with_actual_alone_is_metadata_but_mixed_with_real_changes_holds() -> None:
    sync = _change("Quiet", Action="SyncWithActual", ResourceDriftStatus="MODIFIED")
    (alone,) = verify((sync,), DETECTED)
    assert alone.explained and alone.reason == "SyncWithActual only (metadata)"
    matches = verify((_change(), sync), DETECTED)
    assert [m.explained for m in matches] == [True, False]
    assert matches[1].reason == "SyncWithActual mixed with real changes"
    by_type = _change(
        "Quiet", _detail("/Properties/Description", AttributeChangeType="SyncWithActual")
    )
    assert verify((_change(), by_type), DETECTED)[1].reason == (
        "SyncWithActual mixed with real changes"
    )


def test_replacement_the_schema_confirms_is_held_only_as_a_replacement() -> None:
    change = _change(
        "Param", _detail("/Properties/Name", RequiresRecreation="Always"), Replacement="True"
    )
    detected = {"Param": DetectedResource("Param", "MODIFIED", (DriftedPath("/Name"),))}
    decision = decide((change,), POLICY, detected, {"AWS::SSM::Parameter/Name": "Always"})
    assert decision.reasons == (
        "Param (AWS::SSM::Parameter) requires replacement (Replacement=True)",
    )
    assert decision.matches[0].explained


def test_without_a_detection_the_gate_does_not_verify() -> None:
    assert decide((_change("Quiet"),), POLICY).decision == "EXECUTE"
    assert decide((_change("Quiet"),), POLICY).matches == ()

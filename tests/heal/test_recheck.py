"""cfnops.heal._recheck: what a heal left drifted, and why (pure)."""

from __future__ import annotations

from typing import Any

from cfnops.heal._recheck import still_drifted


def _res(lid: str, *props: tuple[str, str], status: str = "MODIFIED", **kw: Any) -> dict[str, Any]:
    return {
        "logicalId": lid,
        "resourceType": "AWS::SSM::Parameter",
        "status": status,
        "effectiveStatus": kw.get("effective", status),
        "properties": [
            {"path": p, "expected": "e", "actual": a, "ignored": kw.get("ignored", False)}
            for p, a in props
        ],
    }


def test_in_sync_after_is_nothing() -> None:
    assert still_drifted([_res("P", ("/Value", "x"))], []) == []


def test_the_same_difference_is_not_reverted() -> None:
    got = still_drifted([_res("P", ("/Value", "x"))], [_res("P", ("/Value", "x"))])
    assert [(g["logicalId"], g["path"]) for g in got] == [("P", "/Value")]
    assert got[0]["reason"].startswith("not reverted")


def test_a_new_value_or_a_new_path_is_changed_again() -> None:
    before = [_res("P", ("/Value", "x"))]
    after = [_res("P", ("/Value", "y"), ("/Description", "d"))]
    reasons = {g["path"]: g["reason"] for g in still_drifted(before, after)}
    assert reasons["/Value"] == "changed again: actual 'x' at detection, 'y' after the heal"
    assert reasons["/Description"].startswith("changed again: it was in sync")


def test_a_deleted_resource_is_named() -> None:
    got = still_drifted([_res("P", ("/Value", "x"))], [_res("P", status="DELETED")])
    assert got == [
        {
            "logicalId": "P",
            "resourceType": "AWS::SSM::Parameter",
            "path": None,
            "reason": "deleted: the resource is gone after the heal",
        }
    ]


def test_only_what_the_heal_reverted_is_judged() -> None:
    # Q was not healed (ignored drift at first); R drifted after the heal began elsewhere.
    before = [_res("P", ("/Value", "x")), _res("Q", ("/Value", "x"), effective="IGNORED")]
    after = [_res("Q", ("/Value", "x")), _res("R", ("/Value", "z"))]
    assert still_drifted(before, after) == []


def test_ignored_properties_after_do_not_count() -> None:
    before = [_res("P", ("/Value", "x"))]
    after = [_res("P", ("/Value", "x"), ignored=True)]
    assert still_drifted(before, after) == []

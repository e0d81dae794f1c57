"""Booleans and numbers never compare equal, even on the fast paths."""

from __future__ import annotations

from cfnops.diff import diff_templates


def test_a_boolean_becoming_a_number_is_a_difference() -> None:
    def template(value: object) -> dict[str, object]:
        return {"Resources": {"Q": {"Type": "AWS::SQS::Queue", "Properties": {"X": value}}}}

    assert diff_templates(template(True), template(1)).difference_count == 1
    assert diff_templates(template(False), template(0)).difference_count == 1
    assert diff_templates(template(1), template(1.0)).difference_count == 0
    assert diff_templates(template("true"), template(True)).difference_count == 0

"""Definition validation: Step Functions codes and JSON pointers."""

from __future__ import annotations

from typing import Any

import pytest

from cfnops.asl import InvalidDefinition, check_definition, validate


def pass_end(**extra: Any) -> dict[str, Any]:
    return {"Type": "Pass", "End": True, **extra}


def machine(**states: Any) -> dict[str, Any]:
    return {"StartAt": next(iter(states)), "States": states}


def findings(definition: Any, **kw: Any) -> set[tuple[str, str]]:
    return {(f.code, f.pointer) for f in validate(definition, **kw)}


def test_valid_definition_has_no_findings() -> None:
    d = machine(
        A={"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke", "Next": "B",
           "Retry": [{"ErrorEquals": ["States.ALL"], "MaxAttempts": 2}],
           "Catch": [{"ErrorEquals": ["States.ALL"], "Next": "F"}]},
        B={"Type": "Choice", "Choices": [{"Variable": "$.x", "IsPresent": True, "Next": "C"}],
           "Default": "F"},
        C={"Type": "Map", "ItemProcessor": {"StartAt": "I", "States": {"I": pass_end()}},
           "End": True},
        F={"Type": "Fail", "Error": "E"},
    )  # fmt: skip
    assert validate(d) == []
    check_definition(d)


def test_missing_next_target_names_the_pointer() -> None:
    d = machine(StopHttpd={"Type": "Pass", "Next": "Nowhere"})
    assert ("MISSING_TRANSITION_TARGET", "/States/StopHttpd/Next") in findings(d)


def test_unreachable_state_and_missing_terminal() -> None:
    d = machine(A={"Type": "Pass", "Next": "A"}, B=pass_end())
    got = findings(d)
    assert ("UNREACHABLE_STATE", "/States/B") in got
    assert ("MISSING_END_STATE", "/") in got


def test_fields_not_allowed_for_the_state_type() -> None:
    d = machine(A=pass_end(Resource="arn:x"), B={"Type": "Succeed", "Next": "A"})
    got = findings(d)
    assert ("SCHEMA_VALIDATION_FAILED", "/States/A") in got
    assert ("SCHEMA_VALIDATION_FAILED", "/States/B") in got


def test_next_and_end_rules() -> None:
    d = machine(A={"Type": "Pass"}, B={"Type": "Pass", "Next": "A", "End": True})
    assert {p for _, p in findings(d)} >= {"/States/A", "/States/B"}


@pytest.mark.parametrize(
    ("state", "pointer"),
    [
        (pass_end(InputPath="$.a["), "/States/A/InputPath"),
        (pass_end(ResultPath="$.a[*]"), "/States/A/ResultPath"),
        (pass_end(Parameters={"x.$": "not a path"}), "/States/A/Parameters"),
        (pass_end(Parameters={"in": {"x.$": "States.Nope()"}}), "/States/A/Parameters/in"),
        ({"Type": "Wait", "Timestamp": "2016-13-05T21:29:29Z", "End": True},
         "/States/A/Timestamp"),
        ({"Type": "Wait", "End": True}, "/States/A"),
        ({"Type": "Task", "Resource": "arn:r", "End": True,
          "Retry": [{"ErrorEquals": ["States.ALL", "X"]}]}, "/States/A/Retry/0/ErrorEquals"),
        ({"Type": "Task", "Resource": "arn:r", "End": True,
          "Retry": [{"ErrorEquals": ["X"], "BackoffRate": 0.5}]}, "/States/A/Retry/0/BackoffRate"),
    ],
    ids=["input-path", "result-path", "parameters", "nested-intrinsic", "timestamp",
         "wait-needs-one", "states-all-alone", "backoff"],
)  # fmt: skip
def test_field_syntax(state: dict[str, Any], pointer: str) -> None:
    assert pointer in {p for _, p in findings(machine(A=state))}


def test_illegal_intrinsic_escape_message_matches_step_functions() -> None:
    d = machine(
        IntrinsicEscape=pass_end(
            Parameters={"parsed.$": 'States.StringToJson(\'{"t":"a \\"q\\" b"}\')'}
        )
    )
    with pytest.raises(InvalidDefinition) as info:
        check_definition(d)
    assert info.value.cause == (
        "Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: The value for the field "
        "'parsed.$' must be a valid JSONPath or a valid intrinsic function call at "
        "/States/IntrinsicEscape/Parameters'"
    )


def test_query_language_rules() -> None:
    jsonata_top = {"QueryLanguage": "JSONata", **machine(A=pass_end(QueryLanguage="JSONPath"))}
    assert ("SCHEMA_VALIDATION_FAILED", "/States/A/QueryLanguage") in findings(jsonata_top)
    jsonata_fields = {"QueryLanguage": "JSONata", **machine(A=pass_end(InputPath="$"))}
    assert ("SCHEMA_VALIDATION_FAILED", "/States/A/InputPath") in findings(jsonata_fields)
    bad_expr = {"QueryLanguage": "JSONata", **machine(A=pass_end(Output="{% $x + %}"))}
    assert ("SCHEMA_VALIDATION_FAILED", "/States/A/Output") in findings(bad_expr)
    assert findings({"QueryLanguage": "JSONata", **machine(A=pass_end(Output="{% 1 %}"))}) == set()


def test_nested_branches_are_validated_with_their_pointer() -> None:
    d = machine(
        P={"Type": "Parallel", "End": True,
           "Branches": [{"StartAt": "X", "States": {"X": {"Type": "Pass", "Next": "Y"}}}]}
    )  # fmt: skip
    assert ("MISSING_TRANSITION_TARGET", "/States/P/Branches/0/States/X/Next") in findings(d)


def test_strict_mode_adds_checks() -> None:
    d = machine(A={"Type": "Task", "Resource": "not-an-arn", "End": True})
    assert validate(d) == []
    assert ("SCHEMA_VALIDATION_FAILED", "/States/A/Resource") in findings(d, strict=True)

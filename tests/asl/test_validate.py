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
    d = machine(
        A=pass_end(Resource="arn:aws:states:::lambda:invoke"), B={"Type": "Succeed", "Next": "A"}
    )
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
        ({"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke", "End": True,
          "Retry": [{"ErrorEquals": ["States.ALL", "X"]}]}, "/States/A/Retry/0/ErrorEquals"),
        ({"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke", "End": True,
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
    d = machine(**{"S" * 81: pass_end()})
    assert validate(d) == []
    assert ("SCHEMA_VALIDATION_FAILED", "/States/" + "S" * 81) in findings(d, strict=True)


def test_resource_must_be_an_arn() -> None:
    d = machine(A={"Type": "Task", "Resource": "not-an-arn", "End": True})
    assert [str(f) for f in validate(d)] == [
        "SCHEMA_VALIDATION_FAILED: Value is not a valid resource ARN at /States/A/Resource"
    ]


def test_choice_paths_are_reference_paths() -> None:
    d = machine(
        C={"Type": "Choice", "Default": "E",
           "Choices": [{"Variable": "x", "NumericEqualsPath": "$.a", "Next": "E"}]},
        E={"Type": "Succeed"},
    )  # fmt: skip
    assert [str(f) for f in validate(d)] == [
        "SCHEMA_VALIDATION_FAILED: Value is not a Reference Path: Reference path didn't start "
        "with '$' at /States/C/Choices/0/Variable"
    ]


def test_variable_names() -> None:
    d = machine(A=pass_end(Assign={"states": 1, "bad-name": 2, "ok_1": 3}))
    assert findings(d) == {
        ("RESERVED_VARIABLE_NAME", "/States/A/Assign/states"),
        ("INVALID_VARIABLE_NAME", "/States/A/Assign/bad-name"),
    }


@pytest.mark.parametrize("label", ["", "x" * 41, "label_{invalid_char}", "has space"])
def test_map_label_rules(label: str) -> None:
    d = machine(M={"Type": "Map", "Label": label, "End": True,
                   "ItemProcessor": {"StartAt": "I", "States": {"I": pass_end()}}})  # fmt: skip
    assert ("SCHEMA_VALIDATION_FAILED", "/States/M/Label") in findings(d)

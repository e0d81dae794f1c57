"""Definition validation as Step Functions' CreateStateMachine does it.

Each problem is a :class:`~cfnops.asl.Finding` with Step Functions' code
(``SCHEMA_VALIDATION_FAILED``, ``MISSING_TRANSITION_TARGET``, ``UNREACHABLE_STATE`` …) and
the JSON pointer of the offending field, e.g. ``/States/StopHttpd/Next``.
``strict`` adds checks for what this engine accepts but AWS would run differently.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from cfnops.asl import _jsonata
from cfnops.asl._choice import COMPARISON_OPERATORS
from cfnops.asl._intrinsics import IntrinsicSyntaxError, parse_intrinsic
from cfnops.asl._jsonpath import JsonPathSyntaxError, parse_path
from cfnops.asl._schema import (
    CATCHER_FIELDS,
    FIELDS,
    JSONATA_ONLY,
    JSONPATH_ONLY,
    RETRIER_FIELDS,
    STATE_TYPES,
    TOP_LEVEL_FIELDS,
)
from cfnops.asl._timestamps import parse_timestamp
from cfnops.asl.errors import Finding, InvalidDefinition

__all__ = ["check_definition", "validate"]

_SCHEMA = "SCHEMA_VALIDATION_FAILED"
_ARN = re.compile(r"^arn:[A-Za-z0-9-]+:[A-Za-z0-9-]+:[^:]*:[^:]*:.+$")
_VARIABLE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# Whitespace, brackets, wildcards, special and control characters are not allowed in a Label.
_LABEL_FORBIDDEN = re.compile(r"[\s<>{}\[\]?*\"#%\\^|~`$&,;:/\x00-\x1f\x7f-\x9f]")
_QUERY_LANGUAGES = ("JSONPath", "JSONata")
_TERMINAL_TYPES = ("Succeed", "Fail")


def _esc(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


class _Validator:
    def __init__(self, strict: bool) -> None:
        self.strict = strict
        self.findings: list[Finding] = []

    def add(self, code: str, message: str, pointer: str) -> None:
        self.findings.append(Finding(code, message, pointer))

    # --- machines ----------------------------------------------------------------------
    def machine(self, machine: Any, ptr: str, query_language: str, *, top: bool) -> None:
        if not isinstance(machine, Mapping):
            self.add(_SCHEMA, "Expected an object", ptr or "/")
            return
        if top:
            for key in machine:
                if key not in TOP_LEVEL_FIELDS:
                    self.add(_SCHEMA, f'The field "{key}" is not supported by Step Functions',
                             ptr or "/")  # fmt: skip
            ql = machine.get("QueryLanguage", "JSONPath")
            if ql not in _QUERY_LANGUAGES:
                self.add(_SCHEMA, "Value is not one of [JSONPath, JSONata]",
                         f"{ptr}/QueryLanguage")  # fmt: skip
                ql = "JSONPath"
            query_language = ql
            if "TimeoutSeconds" in machine and not _is_int(machine["TimeoutSeconds"], 0):
                self.add(_SCHEMA, "Expected a non-negative integer", f"{ptr}/TimeoutSeconds")
        else:
            for key in machine:
                if key not in ("StartAt", "States", "Comment", "ProcessorConfig",
                               "QueryLanguage"):  # fmt: skip
                    self.add(_SCHEMA, f'The field "{key}" is not supported by Step Functions',
                             ptr)  # fmt: skip
        states = machine.get("States")
        start = machine.get("StartAt")
        missing = [f for f in ("StartAt", "States") if f not in machine]
        if missing:
            self.add(_SCHEMA, f"These fields are required: [{', '.join(missing)}]", ptr or "/")
        if not isinstance(states, Mapping):
            if "States" in machine:
                self.add(_SCHEMA, "Expected an object", f"{ptr}/States")
            return
        if not states:
            self.add(_SCHEMA, "At least one state is required", f"{ptr}/States")
        if isinstance(start, str) and start not in states:
            self.add("MISSING_TRANSITION_TARGET", f"Missing 'Next' target: {start}",
                     f"{ptr}/StartAt")  # fmt: skip
        for name, state in states.items():
            sptr = f"{ptr}/States/{_esc(name)}"
            if self.strict and len(name) > 80:
                self.add(_SCHEMA, "State names must be at most 80 characters", sptr)
            self.state(name, state, sptr, query_language, states)
        self.reachability(states, start, ptr)

    def reachability(self, states: Mapping[str, Any], start: Any, ptr: str) -> None:
        if not isinstance(start, str) or start not in states:
            return
        seen = {start}
        todo = [start]
        while todo:
            state = states[todo.pop()]
            if not isinstance(state, Mapping):
                continue
            for target in _targets(state):
                if target in states and target not in seen:
                    seen.add(target)
                    todo.append(target)
        for name in states:
            if name not in seen:
                self.add("UNREACHABLE_STATE", f'State "{name}" is not reachable.',
                         f"{ptr}/States/{_esc(name)}")  # fmt: skip
        terminal = any(
            isinstance(states[n], Mapping)
            and (states[n].get("Type") in _TERMINAL_TYPES or states[n].get("End") is True)
            for n in seen
        )
        if not terminal:
            self.add("MISSING_END_STATE", "Workflow has no terminal state", ptr or "/")

    # --- states ------------------------------------------------------------------------
    def state(self, name: str, state: Any, ptr: str, parent_ql: str,
              states: Mapping[str, Any]) -> None:  # fmt: skip
        if not isinstance(state, Mapping):
            self.add(_SCHEMA, "Expected an object", ptr)
            return
        stype = state.get("Type")
        if stype not in STATE_TYPES:
            self.add(_SCHEMA, "These fields are required: [Type]" if stype is None else
                     f"Unsupported state type: {stype}", ptr)  # fmt: skip
            return
        ql = state.get("QueryLanguage", parent_ql)
        if ql not in _QUERY_LANGUAGES:
            self.add(_SCHEMA, "Value is not one of [JSONPath, JSONata]", f"{ptr}/QueryLanguage")
            ql = parent_ql
        elif parent_ql == "JSONata" and ql == "JSONPath":
            self.add(_SCHEMA, "A state cannot use JSONPath when the state machine uses JSONata",
                     f"{ptr}/QueryLanguage")  # fmt: skip
        allowed = FIELDS[stype]
        for key in state:
            if key not in allowed:
                self.add(_SCHEMA, f'The field "{key}" is not supported by Step Functions', ptr)
            elif ql == "JSONata" and key in JSONPATH_ONLY:
                self.add(_SCHEMA, f'The field "{key}" is not supported in JSONata states',
                         f"{ptr}/{key}")  # fmt: skip
            elif ql == "JSONPath" and key in JSONATA_ONLY:
                self.add(_SCHEMA, f'The field "{key}" is supported only in JSONata states',
                         f"{ptr}/{key}")  # fmt: skip
        self.transitions(stype, state, ptr, states)
        getattr(self, f"state_{stype.lower()}")(state, ptr, ql, states)
        if ql == "JSONPath":
            self.jsonpath_fields(state, ptr)
        else:
            self.jsonata_fields(state, ptr)
        if "Assign" in state:
            self.assign(state["Assign"], f"{ptr}/Assign", ql)

    def transitions(self, stype: str, state: Mapping[str, Any], ptr: str,
                    states: Mapping[str, Any]) -> None:  # fmt: skip
        has_next, has_end = "Next" in state, state.get("End") is True
        if stype in ("Choice", "Succeed", "Fail"):
            for key in ("Next", "End"):
                if key in state:
                    self.add(_SCHEMA, f'The field "{key}" is not supported by Step Functions',
                             ptr)  # fmt: skip
        elif has_next and has_end:
            self.add(_SCHEMA, "Only one of Next or End may be set", ptr)
        elif not has_next and not has_end:
            self.add(_SCHEMA, "These fields are required: [Next or End]", ptr)
        if has_next:
            self.target(state["Next"], f"{ptr}/Next", states)

    def target(self, name: Any, ptr: str, states: Mapping[str, Any]) -> None:
        if not isinstance(name, str):
            self.add(_SCHEMA, "Expected a string", ptr)
        elif name not in states:
            self.add("MISSING_TRANSITION_TARGET", f"Missing 'Next' target: {name}", ptr)

    # --- per type ----------------------------------------------------------------------
    def state_pass(self, state: Mapping[str, Any], ptr: str, ql: str, states: Any) -> None:
        if ql == "JSONPath" and "Parameters" in state:
            self.payload(state["Parameters"], f"{ptr}/Parameters")

    def state_succeed(self, state: Mapping[str, Any], ptr: str, ql: str, states: Any) -> None:
        return

    def state_fail(self, state: Mapping[str, Any], ptr: str, ql: str, states: Any) -> None:
        for a, b in (("Error", "ErrorPath"), ("Cause", "CausePath")):
            if a in state and b in state:
                self.add(_SCHEMA, f"Only one of {a} or {b} may be set", ptr)
            value = state.get(b)
            if ql == "JSONPath" and isinstance(value, str) and not _valid_path_or_intrinsic(value):
                self.add(_SCHEMA, f"The value for the field '{b}' must be a valid JSONPath "
                             "or a valid intrinsic function call", f"{ptr}/{b}")  # fmt: skip

    def state_wait(self, state: Mapping[str, Any], ptr: str, ql: str, states: Any) -> None:
        given = [k for k in ("Seconds", "Timestamp", "SecondsPath", "TimestampPath") if k in state]
        if len(given) != 1:
            self.add(_SCHEMA, "Exactly one of Seconds, Timestamp, SecondsPath or TimestampPath "
                     "is required", ptr)  # fmt: skip
        if "Timestamp" in state:
            value = state["Timestamp"]
            if not (ql == "JSONata" and _jsonata.is_expression(value)) and (
                parse_timestamp(value) is None
            ):
                self.add(_SCHEMA, "String does not match RFC3339 timestamp", f"{ptr}/Timestamp")
        if "Seconds" in state:
            value = state["Seconds"]
            if not (ql == "JSONata" and _jsonata.is_expression(value)) and not _is_int(value, 0):
                self.add(_SCHEMA, "Expected a non-negative integer", f"{ptr}/Seconds")

    def state_task(self, state: Mapping[str, Any], ptr: str, ql: str, states: Any) -> None:
        if not isinstance(state.get("Resource"), str):
            self.add(_SCHEMA, "These fields are required: [Resource]", ptr)
        elif not _ARN.match(state["Resource"]):
            self.add(_SCHEMA, "Value is not a valid resource ARN", f"{ptr}/Resource")
        for field in ("Parameters", "ResultSelector"):
            if ql == "JSONPath" and field in state:
                self.payload(state[field], f"{ptr}/{field}")
        for field in ("TimeoutSeconds", "HeartbeatSeconds"):
            if field in state and field + "Path" in state:
                self.add(_SCHEMA, f"Only one of {field} or {field}Path may be set", ptr)
            value = state.get(field)
            if value is not None and not _jsonata.is_expression(value) and not _is_int(value, 1):
                self.add(_SCHEMA, "Expected a positive integer", f"{ptr}/{field}")
        t, h = state.get("TimeoutSeconds"), state.get("HeartbeatSeconds")
        if isinstance(t, int) and isinstance(h, int) and _is_int(t, 1) and h >= t:
            self.add(_SCHEMA, "HeartbeatSeconds must be smaller than TimeoutSeconds",
                     f"{ptr}/HeartbeatSeconds")  # fmt: skip
        self.handlers(state, ptr, ql, states)

    def state_parallel(self, state: Mapping[str, Any], ptr: str, ql: str, states: Any) -> None:
        branches = state.get("Branches")
        if not isinstance(branches, list) or not branches:
            self.add(_SCHEMA, "These fields are required: [Branches]", ptr)
        else:
            for i, branch in enumerate(branches):
                self.machine(branch, f"{ptr}/Branches/{i}", ql, top=False)
        for field in ("Parameters", "ResultSelector"):
            if ql == "JSONPath" and field in state:
                self.payload(state[field], f"{ptr}/{field}")
        self.handlers(state, ptr, ql, states)

    def state_map(self, state: Mapping[str, Any], ptr: str, ql: str, states: Any) -> None:
        key = "ItemProcessor" if "ItemProcessor" in state else "Iterator"
        if key not in state:
            self.add(_SCHEMA, "These fields are required: [ItemProcessor]", ptr)
        else:
            self.machine(state[key], f"{ptr}/{key}", ql, top=False)
            config = state[key].get("ProcessorConfig") if isinstance(state[key], Mapping) else None
            modes = (None, "INLINE", "DISTRIBUTED")
            if isinstance(config, Mapping) and config.get("Mode") not in modes:
                self.add(_SCHEMA, "Value is not one of [INLINE, DISTRIBUTED]",
                         f"{ptr}/{key}/ProcessorConfig/Mode")  # fmt: skip
        for field in ("ItemSelector", "Parameters", "ResultSelector"):
            if ql == "JSONPath" and field in state:
                self.payload(state[field], f"{ptr}/{field}")
        for a in ("MaxConcurrency", "ToleratedFailureCount", "ToleratedFailurePercentage"):
            if a in state and a + "Path" in state:
                self.add(_SCHEMA, f"Only one of {a} or {a}Path may be set", ptr)
        if "Label" in state:
            self.label(state["Label"], f"{ptr}/Label")
        if self.strict and "ItemReader" in state:
            self.add(_SCHEMA, "ItemReader (S3 input) is not supported by the local engine",
                     f"{ptr}/ItemReader")  # fmt: skip
        self.handlers(state, ptr, ql, states)

    def state_choice(self, state: Mapping[str, Any], ptr: str, ql: str, states: Any) -> None:
        choices = state.get("Choices")
        if not isinstance(choices, list) or not choices:
            self.add(_SCHEMA, "These fields are required: [Choices]", ptr)
            choices = []
        for i, rule in enumerate(choices):
            rptr = f"{ptr}/Choices/{i}"
            if not isinstance(rule, Mapping):
                self.add(_SCHEMA, "Expected an object", rptr)
                continue
            if "Next" not in rule:
                self.add(_SCHEMA, "These fields are required: [Next]", rptr)
            else:
                self.target(rule["Next"], f"{rptr}/Next", states)
            if ql == "JSONata":
                if "Condition" not in rule:
                    self.add(_SCHEMA, "These fields are required: [Condition]", rptr)
                elif _jsonata.is_expression(rule["Condition"]):
                    self.jsonata_text(rule["Condition"], f"{rptr}/Condition")
            else:
                self.rule(rule, rptr, top=True)
            if "Assign" in rule:
                self.assign(rule["Assign"], f"{rptr}/Assign", ql)
        if "Default" in state:
            self.target(state["Default"], f"{ptr}/Default", states)

    def rule(self, rule: Mapping[str, Any], ptr: str, *, top: bool) -> None:
        extra = {"Next", "Comment", "Assign", "Output"} if top else {"Comment"}
        for combinator in ("And", "Or"):
            if combinator in rule:
                subs = rule[combinator]
                if not isinstance(subs, list) or not subs:
                    self.add(
                        _SCHEMA, f"{combinator} needs a non-empty array", f"{ptr}/{combinator}"
                    )
                    return
                for i, sub in enumerate(subs):
                    if isinstance(sub, Mapping):
                        self.rule(sub, f"{ptr}/{combinator}/{i}", top=False)
                return
        if "Not" in rule:
            if isinstance(rule["Not"], Mapping):
                self.rule(rule["Not"], f"{ptr}/Not", top=False)
            return
        ops = [k for k in rule if k not in extra and k != "Variable"]
        if "Variable" not in rule:
            self.add(_SCHEMA, "These fields are required: [Variable]", ptr)
        else:
            self.reference_path(rule["Variable"], f"{ptr}/Variable")
        if len(ops) != 1 or ops[0] not in COMPARISON_OPERATORS:
            self.add(_SCHEMA, "A choice rule needs exactly one comparison operator", ptr)
            return
        op = ops[0]
        if op.endswith("Path"):
            self.reference_path(rule[op], f"{ptr}/{op}")
        elif (
            op.startswith("Timestamp")
            and not op.endswith("Path")
            and parse_timestamp(rule[op]) is None
        ):
            self.add(_SCHEMA, "String does not match RFC3339 timestamp", f"{ptr}/{op}")

    def label(self, label: Any, ptr: str) -> None:
        # https://docs.aws.amazon.com/step-functions/latest/dg/state-map-distributed.html
        if not isinstance(label, str) or not label:
            self.add(_SCHEMA, "The Label field must be a non-empty string", ptr)
        elif len(label) > 40:
            self.add(_SCHEMA, "The Label field must be at most 40 characters long", ptr)
        elif _LABEL_FORBIDDEN.search(label):
            self.add(_SCHEMA, "The Label field contains invalid characters", ptr)

    # --- retry / catch -----------------------------------------------------------------
    def handlers(self, state: Mapping[str, Any], ptr: str, ql: str, states: Any) -> None:
        for i, retrier in enumerate(state.get("Retry") or []):
            self.retrier(retrier, f"{ptr}/Retry/{i}")
        for i, catcher in enumerate(state.get("Catch") or []):
            self.catcher(catcher, f"{ptr}/Catch/{i}", ql, states)

    def retrier(self, retrier: Any, rptr: str) -> None:
        self.error_equals(retrier, rptr)
        for key in retrier:
            if key not in RETRIER_FIELDS:
                self.add(_SCHEMA, f'The field "{key}" is not supported by Step Functions',
                         rptr)  # fmt: skip
        if "MaxAttempts" in retrier and not _is_int(retrier["MaxAttempts"], 0):
            self.add(_SCHEMA, "Expected a non-negative integer", f"{rptr}/MaxAttempts")
        if "IntervalSeconds" in retrier and not _is_int(retrier["IntervalSeconds"], 1):
            self.add(_SCHEMA, "Expected a positive integer", f"{rptr}/IntervalSeconds")
        rate = retrier.get("BackoffRate", 2.0)
        if not isinstance(rate, int | float) or isinstance(rate, bool) or rate < 1.0:
            self.add(_SCHEMA, "BackoffRate must be at least 1.0", f"{rptr}/BackoffRate")
        if retrier.get("JitterStrategy", "NONE") not in ("FULL", "NONE"):
            self.add(_SCHEMA, "Value is not one of [FULL, NONE]", f"{rptr}/JitterStrategy")

    def catcher(self, catcher: Any, cptr: str, ql: str, states: Any) -> None:
        self.error_equals(catcher, cptr)
        for key in catcher:
            if key not in CATCHER_FIELDS:
                self.add(_SCHEMA, f'The field "{key}" is not supported by Step Functions',
                         cptr)  # fmt: skip
        if "Next" not in catcher:
            self.add(_SCHEMA, "These fields are required: [Next]", cptr)
        else:
            self.target(catcher["Next"], f"{cptr}/Next", states)
        if ql == "JSONPath" and isinstance(catcher.get("ResultPath"), str):
            self.result_path(catcher["ResultPath"], f"{cptr}/ResultPath")
        if "Assign" in catcher:
            self.assign(catcher["Assign"], f"{cptr}/Assign", ql)

    def error_equals(self, handler: Any, ptr: str) -> None:
        names = handler.get("ErrorEquals") if isinstance(handler, Mapping) else None
        if not isinstance(names, list) or not names:
            self.add(_SCHEMA, "These fields are required: [ErrorEquals]", ptr)
        elif "States.ALL" in names and len(names) > 1:
            self.add(_SCHEMA, "States.ALL must appear alone in ErrorEquals", f"{ptr}/ErrorEquals")

    # --- field syntax ------------------------------------------------------------------
    def jsonpath_fields(self, state: Mapping[str, Any], ptr: str) -> None:
        for field in ("InputPath", "OutputPath", "ItemsPath", "SecondsPath", "TimestampPath",
                      "TimeoutSecondsPath", "HeartbeatSecondsPath", "MaxConcurrencyPath",
                      "ToleratedFailureCountPath", "ToleratedFailurePercentagePath"):  # fmt: skip
            value = state.get(field)
            if isinstance(value, str) and not _valid_path(value):
                self.add(_SCHEMA, f"The value for the field '{field}' must be a valid JSONPath",
                         f"{ptr}/{field}")  # fmt: skip
        if isinstance(state.get("ResultPath"), str):
            self.result_path(state["ResultPath"], f"{ptr}/ResultPath")

    def result_path(self, value: str, ptr: str) -> None:
        try:
            parsed = parse_path(value)
        except JsonPathSyntaxError:
            parsed = None
        if parsed is None or parsed.root != "$" or not parsed.definite:
            self.add(_SCHEMA, "The value for the field 'ResultPath' must be a valid "
                     "reference path", ptr)  # fmt: skip

    def jsonata_fields(self, state: Mapping[str, Any], ptr: str) -> None:
        for field in ("Arguments", "Output", "Items", "Seconds", "Timestamp", "Error", "Cause",
                      "TimeoutSeconds", "HeartbeatSeconds", "MaxConcurrency"):  # fmt: skip
            if field in state:
                self.jsonata_value(state[field], f"{ptr}/{field}")

    def jsonata_value(self, value: Any, ptr: str) -> None:
        if _jsonata.is_expression(value):
            self.jsonata_text(value, ptr)
        elif isinstance(value, Mapping):
            for k, v in value.items():
                self.jsonata_value(v, f"{ptr}/{_esc(k)}")
        elif isinstance(value, list):
            for i, v in enumerate(value):
                self.jsonata_value(v, f"{ptr}/{i}")

    def jsonata_text(self, value: str, ptr: str) -> None:
        problem = _jsonata.check_syntax(_jsonata.expression_of(value))
        if problem is not None:
            self.add(_SCHEMA, f"The JSONata expression is not valid: {problem}", ptr)

    def payload(self, template: Any, ptr: str) -> None:
        """Parameters-like templates: every ``key.$`` must hold a path or intrinsic call."""
        if isinstance(template, Mapping):
            for key, value in template.items():
                if key.endswith(".$"):
                    if not isinstance(value, str) or not _valid_path_or_intrinsic(value):
                        self.add(_SCHEMA, f"The value for the field '{key}' must be a valid "
                                 "JSONPath or a valid intrinsic function call", ptr)  # fmt: skip
                else:
                    self.payload(value, f"{ptr}/{_esc(key)}")
        elif isinstance(template, list):
            for i, value in enumerate(template):
                self.payload(value, f"{ptr}/{i}")

    def reference_path(self, value: Any, ptr: str) -> None:
        if not isinstance(value, str) or not value.startswith("$"):
            self.add(_SCHEMA, "Value is not a Reference Path: Reference path didn't start with '$'",
                     ptr)  # fmt: skip
        elif not _valid_path(value):
            self.add(_SCHEMA, "Value is not a Reference Path", ptr)

    def assign(self, assign: Any, ptr: str, ql: str) -> None:
        if not isinstance(assign, Mapping):
            self.add(_SCHEMA, "Expected an object", ptr)
            return
        for key in assign:
            name = key[:-2] if ql == "JSONPath" and key.endswith(".$") else key
            if name == "states":
                self.add("RESERVED_VARIABLE_NAME", "Cannot assign to reserved variable '$states'.",
                         f"{ptr}/{_esc(key)}")  # fmt: skip
            elif not _VARIABLE_NAME.match(name):
                self.add("INVALID_VARIABLE_NAME", f"Invalid variable name '{name}': the variable "
                         "name contains invalid characters.", f"{ptr}/{_esc(key)}")  # fmt: skip
        if ql == "JSONata":
            self.jsonata_value(assign, ptr)
        else:
            self.payload(assign, ptr)


def _targets(state: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    if isinstance(state.get("Next"), str):
        out.append(state["Next"])
    if isinstance(state.get("Default"), str):
        out.append(state["Default"])
    for rule in state.get("Choices") or []:
        if isinstance(rule, Mapping) and isinstance(rule.get("Next"), str):
            out.append(rule["Next"])
    for catcher in state.get("Catch") or []:
        if isinstance(catcher, Mapping) and isinstance(catcher.get("Next"), str):
            out.append(catcher["Next"])
    return out


def _is_int(value: Any, minimum: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= minimum


def _valid_path(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        parse_path(value)
    except JsonPathSyntaxError:
        return False
    return True


def _valid_path_or_intrinsic(value: str) -> bool:
    if value.startswith("States."):
        try:
            parse_intrinsic(value)
        except IntrinsicSyntaxError:
            return False
        return True
    return _valid_path(value)


def validate(definition: Any, *, strict: bool = False) -> list[Finding]:
    """Return every problem found in ``definition`` (empty when it is valid).

    >>> validate({"StartAt": "A", "States": {"A": {"Type": "Pass", "Next": "B"}}})[0].pointer
    '/States/A/Next'
    """
    v = _Validator(strict)
    v.machine(definition, "", "JSONPath", top=True)
    return v.findings


def check_definition(definition: Any, *, strict: bool = False) -> None:
    """Raise :class:`InvalidDefinition` if ``validate`` finds anything."""
    findings = validate(definition, strict=strict)
    if findings:
        raise InvalidDefinition(findings)

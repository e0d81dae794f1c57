"""Data that sends a Choice state down a given branch: the starter file's Choice cases.

A Choice rule (https://docs.aws.amazon.com/step-functions/latest/dg/state-choice.html)
compares the value at ``Variable`` with a constant. For each rule we build an
*assignment* (JSONPath → value) that makes it true (a witness) or false (a counter):
``StringEquals "x"`` is made true by ``"x"`` and false by ``"x-other"``, ``NumericLessThan
5`` by ``4`` and ``5``, ``IsPresent true`` by any value and by leaving the path out; ``And``,
``Or`` and ``Not`` combine their children's; a ``…Path`` comparison sets both paths.
Branch *i* takes the witness of rule *i* and
the counters of the rules before it (the first matching rule wins); ``Default`` the
counters of every rule (a rule with no counter is left to the run to decide). Rules we
cannot solve (JSONata ``Condition``, the context object ``$$``, variables, filters) give no
assignment.

An assignment is only a guess: the starter puts it into the execution input, or into one
Task's mocked answer under that Task's ``ResultPath``, and keeps it only when a run of
the job-net really goes from the Choice to the branch's state.
"""

from __future__ import annotations

import copy
import itertools
import re
from collections.abc import Iterator, Mapping
from typing import Any

from cfnops.jobs._jobtest_condition import VAR, solve_condition

__all__ = ["ABSENT", "Assignment", "branch_assignments", "place", "result_shape", "split_for_task"]


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()  # the path is left out of the data
Assignment = dict[tuple[str | int, ...], Any]
_SEGMENT = re.compile(r"\.([A-Za-z_][\w-]*)|\['([^'\]]+)'\]|\[(\d+)\]")
_EPOCH, _FAR = "1970-01-01T00:00:00Z", "9999-12-31T23:59:59Z"


def _path(text: Any) -> tuple[str | int, ...] | None:
    """``$.a.b`` / ``$['a']`` / ``$.a[0]`` → ``("a", "b")`` / ``("a", 0)``; None for what we
    cannot place (the context object ``$$``, variables, filters, wildcards)."""
    if not isinstance(text, str) or not text.startswith("$") or text.startswith("$$"):
        return None
    rest, parts = text[1:], []
    while rest:
        match = _SEGMENT.match(rest)
        if match is None:
            return None
        index = match.group(3)
        parts.append(int(index) if index is not None else (match.group(1) or match.group(2)))
        rest = rest[match.end() :]
    return tuple(parts)


def _number_pair(op: str, n: float) -> tuple[Any, Any]:
    return {
        "NumericEquals": (n, n + 1),
        "NumericLessThan": (n - 1, n),
        "NumericLessThanEquals": (n, n + 1),
        "NumericGreaterThan": (n + 1, n),
        "NumericGreaterThanEquals": (n, n - 1),
    }[op]


def _string_pair(op: str, s: str) -> tuple[Any, Any] | None:
    pairs: dict[str, tuple[Any, Any]] = {
        "StringEquals": (s, s + "-other"),
        "StringLessThanEquals": (s, s + "~"),
        "StringGreaterThanEquals": (s, ""),
        "StringMatches": (s.replace("\\*", "\0").replace("*", "x").replace("\0", "*"), "\0"),
        "TimestampEquals": (s, _FAR if s != _FAR else _EPOCH),
        "TimestampLessThan": (_EPOCH, s),
        "TimestampLessThanEquals": (s, _FAR),
        "TimestampGreaterThan": (_FAR, s),
        "TimestampGreaterThanEquals": (s, _EPOCH),
    }
    if op == "StringLessThan":
        return ("", s) if s else None
    if op == "StringGreaterThan":
        return (s + "~", s)
    if op == "StringGreaterThanEquals" and not s:
        return None
    return pairs.get(op)


def _type_pair(op: str, want: bool) -> tuple[Any, Any]:
    samples = {"IsPresent": ("present", ABSENT), "IsNull": (None, "x"), "IsString": ("s", 1),
               "IsNumeric": (1, "s"), "IsBoolean": (True, "s"),
               "IsTimestamp": (_EPOCH, "not a timestamp")}  # fmt: skip
    yes, no = samples[op]
    return (yes, no) if want else (no, yes)


_PATH_BASES: dict[str, Any] = {"Numeric": 0, "String": "m", "Timestamp": "2000-01-01T00:00:00Z"}


def _path_comparison(rule: Mapping[str, Any], want: bool) -> Assignment | None:
    """``StringEqualsPath`` and the like: the other path gets a base value, ``Variable``
    one that compares with it as wanted."""
    path = _path(rule.get("Variable"))
    for op, operand in rule.items():
        if not op.endswith("Path") or op == "Variable":
            continue
        other = _path(operand)
        if path is None or other is None or other == path:
            return None
        if op == "BooleanEqualsPath":
            return {other: True, path: want}
        kind = next((k for k in _PATH_BASES if op.startswith(k)), None)
        if kind is None:
            return None
        base = _PATH_BASES[kind]
        pair = _leaf({op[: -len("Path")]: base})
        if pair is None:
            return None
        return {other: base, path: pair[0] if want else pair[1]}
    return None


def _leaf(rule: Mapping[str, Any]) -> tuple[Any, Any] | None:
    """(value making the comparison true, value making it false), or None."""
    for op, operand in rule.items():
        if op in ("Variable", "Next", "Comment", "Assign", "Output"):
            continue
        if op.endswith("Path"):
            return None
        numeric = isinstance(operand, int | float) and not isinstance(operand, bool)
        if op.startswith("Numeric") and numeric:
            return _number_pair(op, operand)
        if (op.startswith("String") or op.startswith("Timestamp")) and isinstance(operand, str):
            return _string_pair(op, operand)
        if op == "BooleanEquals" and isinstance(operand, bool):
            return (operand, not operand)
        if op.startswith("Is") and isinstance(operand, bool):
            return _type_pair(op, operand)
        return None
    return None


def _merge(parts: list[Assignment | None]) -> Assignment | None:
    merged: Assignment = {}
    for part in parts:
        if part is None:
            return None
        for path, value in part.items():
            if path in merged and merged[path] != value:
                return None
            merged[path] = value
    return merged


def _merge_loose(base: Assignment, parts: list[Assignment | None]) -> Assignment:
    """``base`` plus every part that is known and agrees with what is there already."""
    merged = dict(base)
    for part in parts:
        if part is not None and all(merged.get(p, v) == v for p, v in part.items()):
            merged.update(part)
    return merged


def _solve(rule: Mapping[str, Any], want: bool) -> Assignment | None:
    """An assignment making ``rule`` evaluate to ``want``."""
    if "Condition" in rule:  # JSONata (see cfnops.jobs._jobtest_condition)
        return solve_condition(rule["Condition"], want)
    if "Not" in rule:
        return _solve(rule["Not"], not want)
    if "And" in rule or "Or" in rule:
        children = list(rule.get("And") or rule.get("Or") or [])
        all_needed = ("And" in rule) == want  # And true / Or false: every child agrees
        if all_needed:
            return _merge([_solve(c, want) for c in children])
        return next((a for a in (_solve(c, want) for c in children) if a is not None), None)
    if any(op.endswith("Path") and op != "Variable" for op in rule):
        return _path_comparison(rule, want)
    path = _path(rule.get("Variable"))
    pair = _leaf(rule)
    if path is None or pair is None:
        return None
    return {path: pair[0] if want else pair[1]}


def branch_assignments(state: Mapping[str, Any]) -> Iterator[tuple[str, Assignment | None]]:
    """(next state, assignment) for each branch of a Choice, rules first, then Default."""
    rules = [r for r in state.get("Choices", []) if isinstance(r, Mapping)]
    counters = [_solve(r, False) for r in rules]
    seen: set[str] = set()
    for i, rule in enumerate(rules):
        target = str(rule.get("Next"))
        if target in seen:
            continue
        seen.add(target)
        witness = _solve(rule, True)
        # the rules before it must not match: their counters, where known and compatible
        yield target, None if witness is None else _merge_loose(witness, counters[:i])
    default = state.get("Default")
    if isinstance(default, str) and default not in seen:
        yield default, _merge_loose({}, counters)


def place(data: Any, assignment: Assignment) -> Any:
    """``data`` (a copy) with every path of ``assignment`` set (or left out for ABSENT);
    variables (``VAR`` keys) are not data and are left out."""
    if () in assignment:
        return assignment[()]
    out = copy.deepcopy(data) if isinstance(data, dict) else {}
    for path, value in assignment.items():
        if path[:1] == (VAR,):
            continue
        node: Any = out
        for key, after in itertools.pairwise(path):
            empty: Any = [] if isinstance(after, int) else {}
            node = _slot(node, key, empty)
        last = path[-1]
        if value is ABSENT:
            if isinstance(node, dict):
                node.pop(last, None)
        elif isinstance(last, int):
            node.extend([None] * (last + 1 - len(node)))
            node[last] = value
        else:
            node[last] = value
    return out


def _slot(node: Any, key: str | int, empty: Any) -> Any:
    """``node[key]``, made ``empty`` when it is missing or of the wrong kind."""
    if isinstance(key, int):
        node.extend([None] * (key + 1 - len(node)))
        if not isinstance(node[key], type(empty)):
            node[key] = empty
        return node[key]
    child = node.get(key)
    if not isinstance(child, type(empty)):
        child = node[key] = empty
    return child


_RESULT = re.compile(r"^\{%\s*\$states\.result((?:\.[A-Za-z_]\w*|\[\d+\])*)\s*%\}$")


def _result_path(expression: Any) -> tuple[str | int, ...] | None:
    """``{% $states.result.a[0].b %}`` → ``("a", 0, "b")``; None for anything else."""
    match = _RESULT.match(expression.strip()) if isinstance(expression, str) else None
    if match is None:
        return None
    return _path("$" + match.group(1))


def _through_output(output: Any, path: tuple[str | int, ...]) -> tuple[str | int, ...] | None:
    """Where in the answer an ``Output`` template takes the value at ``path`` from:
    ``{"Status": "{% $states.result.Status %}"}`` and ``("Status",)`` → ``("Status",)``."""
    node = output
    for i, key in enumerate(path):
        if isinstance(node, str):
            source = _result_path(node)
            return None if source is None else source + path[i:]
        if isinstance(node, list) and isinstance(key, int) and key < len(node):
            node = node[key]
            continue
        if not (isinstance(node, Mapping) and isinstance(key, str) and key in node):
            return None
        node = node[key]
    return _result_path(node) if isinstance(node, str) else None


def split_for_task(
    assignment: Assignment, task: Mapping[str, Any], language: str = "JSONPath"
) -> tuple[Assignment, Assignment] | None:
    """(part for the execution input, part for the Task's answer) when the Task's answer
    reaches where the Choice reads: under its ``ResultPath`` (JSONPath), as its output or
    through ``Output``/``Assign`` of ``$states.result…`` (JSONata); None otherwise."""
    rest: Assignment = {}
    mine: Assignment = {}
    jsonata = task.get("QueryLanguage", language) == "JSONata"
    assigned = task.get("Assign")
    assign: Mapping[str, Any] = assigned if isinstance(assigned, Mapping) else {}
    where: tuple[str | int, ...] | None
    if jsonata:
        where = () if "Output" not in task else _result_path(task["Output"])
    elif "ResultSelector" in task or task.get("ResultPath", "$") is None:
        where = None
    else:
        where = _path(task.get("ResultPath", "$"))
    for path, value in assignment.items():
        if path[:1] == (VAR,):
            source = _result_path(assign.get(str(path[1]))) if jsonata else None
            if source is not None:
                mine[source + path[2:]] = value
        elif jsonata and where is not None:
            mine[where + path] = value
        elif jsonata and _through_output(task.get("Output"), path) is not None:
            mine[_through_output(task.get("Output"), path) or ()] = value
        elif not jsonata and where is not None and path[: len(where)] == where:
            mine[path[len(where) :]] = value
        else:
            rest[path] = value
    return (rest, mine) if mine else None


_READS = re.compile(r"\$states\.result((?:\.[A-Za-z_]\w*|\[\d+\])+)")


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def result_shape(task: Mapping[str, Any], language: str, name: str) -> Any:
    """An answer holding every field the Task's own expressions read from it (``{}``: none):
    ``$states.result.a[0].b`` in ``Assign``/``Output`` (JSONata), ``"x.$": "$.a.b"`` in
    ``ResultSelector`` (JSONPath); each field holds ``"<Task>.<path>"``."""
    paths: list[tuple[str | int, ...]] = []
    if task.get("QueryLanguage", language) == "JSONata":
        for text in _strings([task.get("Assign"), task.get("Output")]):
            for match in _READS.finditer(text):
                path = _path("$" + match.group(1))
                if path is not None:
                    paths.append(path)
    else:
        selector = task.get("ResultSelector")
        for key, value in selector.items() if isinstance(selector, Mapping) else []:
            if str(key).endswith(".$"):
                path = _path(value)
                if path:
                    paths.append(path)
    shape: Any = {}
    for path in sorted(set(paths), key=len, reverse=True):  # deepest first: no overwrite
        if _reachable(shape, path):
            label = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)
            shape = place(shape, {path: f"{name}{label}"})
    return shape


def _reachable(shape: Any, path: tuple[str | int, ...]) -> bool:
    """Whether setting ``path`` keeps what deeper paths already set."""
    node = shape
    for key in path:
        if isinstance(key, int):
            if not isinstance(node, list) or key >= len(node):
                return True
            node = node[key]
        else:
            if not isinstance(node, dict) or key not in node:
                return True
            node = node[key]
    return False

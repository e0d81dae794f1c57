"""Field evaluation for the data-flow check: JSONPath, intrinsic and JSONata references
resolved against sample data, where an unknown value makes a reference *not checked*.

Built on the pure ASL functions (``parse_path``, ``evaluate_call``, the JSONata binding).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Any

from cfnops.asl import _jsonata
from cfnops.asl._flowcheck_model import (
    CheckFinding,
    NotChecked,
    Unknown,
    contains_unknown,
    without_unknowns,
)
from cfnops.asl._intrinsics import Call, IntrinsicSyntaxError, evaluate_call, parse_intrinsic
from cfnops.asl._jsonpath import JsonPath, JsonPathSyntaxError, PathNotFound, parse_path
from cfnops.asl._values import dumps_compact
from cfnops.asl.errors import StatesFailure

__all__ = ["Env", "Sink", "Undecided", "probe"]

_MISSING: Any = object()
_ARRAY: Any = object()  # a name step applied to an array: JSONata maps it, evaluate instead


class Undecided(Exception):
    """A reference reached an unknown value: the expression cannot be decided."""

    def __init__(self, unknown: Unknown) -> None:
        super().__init__(unknown.origin)
        self.unknown = unknown


@dataclass
class Sink:
    """Collects findings and not-checked references, once per pointer and message."""

    findings: dict[tuple[str, str], CheckFinding] = field(default_factory=dict)
    unchecked: dict[str, NotChecked] = field(default_factory=dict)

    def error(self, ptr: str, code: str, message: str, suggestion: str | None = None) -> None:
        self.findings.setdefault(
            (ptr, message), CheckFinding("error", code, ptr, message, suggestion)
        )

    def warn(self, ptr: str, code: str, message: str, suggestion: str | None = None) -> None:
        self.findings.setdefault(
            (ptr, message), CheckFinding("warning", code, ptr, message, suggestion)
        )

    speculative: bool = False
    """True while walking a branch the sample data does not select: failures that depend on
    the values (not the structure) of the samples are then *not checked*, not errors."""

    def not_checked(self, ptr: str, unknown: Unknown) -> None:
        self.unchecked.setdefault(ptr, NotChecked(ptr, f"reads {unknown.origin}"))

    resolved: set[str] = field(default_factory=set)
    deferred: dict[tuple[str, str], CheckFinding] = field(default_factory=dict)

    def key_error(self, ptr: str, code: str, message: str, suggestion: str | None = None) -> None:
        """A key no object has: an error, unless on an untaken branch another visit resolves it."""
        if self.speculative:
            finding = CheckFinding("error", code, ptr, message, suggestion)
            self.deferred.setdefault((ptr, message), finding)
        else:
            self.error(ptr, code, message, suggestion)

    def finish(self) -> None:
        for (ptr, message), finding in self.deferred.items():
            if ptr in self.resolved:
                reason = f"on a branch the sample data does not take: {message}"
                self.unchecked.setdefault(ptr, NotChecked(ptr, reason))
            else:
                self.findings.setdefault((ptr, message), finding)

    def value_error(self, ptr: str, code: str, message: str, suggestion: str | None = None) -> None:
        if self.speculative:
            reason = f"on a branch the sample data does not take: {message}"
            self.unchecked.setdefault(ptr, NotChecked(ptr, reason))
        else:
            self.error(ptr, code, message, suggestion)


@dataclass(frozen=True, slots=True)
class Env:
    """``$`` (input), ``$$`` (context) and the variables visible to one field."""

    input: Any
    context: dict[str, Any]
    variables: dict[str, Any]


def probe(path: JsonPath, root: Any) -> Any:
    """The value at ``path``; an :class:`Unknown` met on the way; else PathNotFound."""
    try:
        value = path.evaluate(root)
    except PathNotFound:
        cur = root
        for st in path.steps:
            if isinstance(cur, Unknown):
                return cur
            if st.kind == "name" and isinstance(cur, dict) and st.name in cur:
                cur = cur[st.name]
            elif st.kind == "index" and isinstance(cur, list) and -len(cur) <= st.index < len(cur):
                cur = cur[st.index]
            else:
                break
        if isinstance(cur, Unknown):
            return cur
        raise
    if not path.definite and contains_unknown(root):
        return Unknown(f"an unknown value under {path.text}")
    return value


def _root(path: JsonPath, env: Env) -> Any:
    if path.root == "$":
        return env.input
    if path.root == "$$":
        return env.context
    return env.variables.get(path.variable, _MISSING)


def _where_missing(path: JsonPath, root: Any) -> str:
    """``'Execution' is not a key of $ (it has: a, b)`` for the first step that fails."""
    cur, done = root, path.root
    for st in path.steps:
        if st.kind == "name" and isinstance(cur, dict) and st.name in cur:
            cur, done = cur[st.name], f"{done}.{st.name}"
            continue
        if st.kind == "index" and isinstance(cur, list) and -len(cur) <= st.index < len(cur):
            cur, done = cur[st.index], f"{done}[{st.index}]"
            continue
        if st.kind == "name" and isinstance(cur, dict):
            keys = ", ".join(list(cur)[:12]) or "no keys"
            return f"'{st.name}' is not a key of {done} (it has: {keys})"
        return f"{done} is {dumps_compact(cur)[:60]}, not an object or array with that step"
    return "nothing matched"


def _suggest_missing(path: JsonPath, env: Env) -> str | None:
    if path.root == "$" and path.steps and path.steps[0].kind == "name":
        first = path.steps[0].name
        if isinstance(env.context, dict) and first in env.context:
            return "$" + path.text  # a context object field: $$.Execution.Input…
    root = _root(path, env)
    cur = root
    done = path.root
    for st in path.steps:
        if st.kind == "name" and isinstance(cur, dict):
            if st.name in cur:
                cur, done = cur[st.name], f"{done}.{st.name}"
                continue
            close = difflib.get_close_matches(st.name, [str(k) for k in cur], n=1, cutoff=0.6)
            if not close:
                lowered = {str(k).lower(): str(k) for k in cur}
                close = [lowered[st.name.lower()]] if st.name.lower() in lowered else []
            return f"{done}.{close[0]}…" if close else None
        break
    return None


def _syntax_fix(text: str) -> str | None:
    for candidate in (text.rstrip(". "), text.replace(".[", "["), re.sub(r"\.{3,}", "..", text)):
        if candidate != text:
            try:
                parse_path(candidate)
            except JsonPathSyntaxError:
                continue
            return candidate
    return None


class Fields:
    """Evaluates the fields of one state, reporting into ``sink`` under JSON pointers."""

    def __init__(self, sink: Sink) -> None:
        self.sink = sink

    # --- JSONPath mode ------------------------------------------------------------------
    def parse(self, text: str, ptr: str) -> JsonPath | None:
        try:
            return parse_path(text)
        except JsonPathSyntaxError:
            fix = _syntax_fix(text)
            hint = f"'{fix}'" + (" (remove the trailing dot)" if text.endswith(".") else "")
            self.sink.error(
                ptr, "INVALID_JSONPATH", f"'{text}' is not a valid JSONPath", hint if fix else None
            )
            return None

    def path(self, text: str, ptr: str, env: Env) -> Any:
        """The value of a path; an Unknown (after recording why) when it cannot be given."""
        parsed = self.parse(text, ptr)
        if parsed is None:
            return Unknown(f"the invalid path at {ptr}")
        root = _root(parsed, env)
        if root is _MISSING:
            self.sink.error(
                ptr, "UNRESOLVED_REFERENCE",
                f"'{text}': the variable {parsed.root} is not assigned on this path",
            )  # fmt: skip
            return Unknown(f"the unassigned variable at {ptr}")
        try:
            value = probe(parsed, root)
        except PathNotFound:
            report = self.sink.key_error if _key_missing(parsed, root) else self.sink.value_error
            report(
                ptr, "UNRESOLVED_REFERENCE",
                f"'{text}' selects nothing: {_where_missing(parsed, root)}",
                _suggest_missing(parsed, env),
            )  # fmt: skip
            return Unknown(f"the unresolved reference at {ptr}")
        if isinstance(value, Unknown):
            self.sink.not_checked(ptr, value)
        else:
            self.sink.resolved.add(ptr)
        return value

    def dollar(self, text: str, ptr: str, env: Env) -> Any:
        """A ``key.$`` value: a path or an intrinsic function call."""
        if not text.startswith("States."):
            return self.path(text, ptr, env)
        try:
            call = parse_intrinsic(text)
        except IntrinsicSyntaxError:
            self.sink.error(ptr, "INVALID_INTRINSIC", f"'{text}' is not a valid intrinsic call")
            return Unknown(f"the invalid intrinsic at {ptr}")
        return self.call(call, text, ptr, env)

    def call(self, call: Call, text: str, ptr: str, env: Env) -> Any:
        def res(p: JsonPath) -> Any:
            value = self.path(p.text, ptr, env)
            if isinstance(value, Unknown):
                raise Undecided(value)
            return value

        try:
            return evaluate_call(call, res)
        except Undecided as exc:
            return exc.unknown
        except StatesFailure as exc:
            self.sink.value_error(
                ptr, "INTRINSIC_FAILS",
                f"'{text}' fails with the sample data: {exc.error}: {exc.cause}",
            )  # fmt: skip
            return Unknown(f"the failing intrinsic at {ptr}")

    def template(self, tmpl: Any, ptr: str, env: Env) -> Any:
        """Parameters / ResultSelector / ItemSelector / Assign (JSONPath mode)."""
        if isinstance(tmpl, dict):
            out: dict[str, Any] = {}
            for key, value in tmpl.items():
                sub = f"{ptr}/{_esc(key)}"
                if key.endswith(".$") and isinstance(value, str):
                    out[key[:-2]] = self.dollar(value, sub, env)
                else:
                    out[key] = self.template(value, sub, env)
            return out
        if isinstance(tmpl, list):
            return [self.template(v, f"{ptr}/{i}", env) for i, v in enumerate(tmpl)]
        return tmpl

    # --- JSONata mode -------------------------------------------------------------------
    def jsonata(self, value: Any, ptr: str, bindings: dict[str, Any]) -> Any:
        """A JSONata-mode field: ``{% … %}`` strings anywhere inside ``value``."""
        if isinstance(value, dict):
            return {k: self.jsonata(v, f"{ptr}/{_esc(k)}", bindings) for k, v in value.items()}
        if isinstance(value, list):
            return [self.jsonata(v, f"{ptr}/{i}", bindings) for i, v in enumerate(value)]
        if not _jsonata.is_expression(value):
            return value
        expr = _jsonata.expression_of(value)
        problem = _jsonata.check_syntax(expr)
        if problem is not None:
            fixed = expr.strip().rstrip(".")
            fix = None
            if fixed != expr.strip() and _jsonata.check_syntax(fixed) is None:
                fix = "{% " + fixed + " %} (remove the trailing dot)"
            self.sink.error(
                ptr, "INVALID_JSONATA", f"'{expr.strip()}' does not parse: {problem}", fix
            )
            return Unknown(f"the invalid expression at {ptr}")
        whole = _REF.fullmatch(expr.strip())
        if whole and whole.group(1) in bindings and not whole.group(3):
            reached = _reach(bindings[whole.group(1)], whole.group(2))
            if isinstance(reached, Unknown):
                self.sink.not_checked(ptr, reached)
                return reached
            if reached is not _MISSING and reached is not _ARRAY:
                self.sink.resolved.add(ptr)
                return reached
        taint = _tainted(expr, bindings)
        if taint is not None:
            self.sink.not_checked(ptr, taint)
            return Unknown(f"the expression at {ptr}, which {taint.origin}")
        try:
            result = _jsonata.evaluate(expr, without_unknowns(bindings))
        except _jsonata.JsonataError as exc:
            self.sink.value_error(
                ptr, "JSONATA_FAILS", f"'{expr.strip()}' fails with the sample data: {exc}"
            )
            return Unknown(f"the failing expression at {ptr}")
        if result is _jsonata.UNDEFINED:
            miss, key = _first_missing(expr, bindings)
            report = self.sink.key_error if key else self.sink.value_error
            report(
                ptr, "UNRESOLVED_REFERENCE",
                f"'{expr.strip()}' returns nothing with the sample data"
                + (f": {miss} selects nothing" if miss else ""),
            )  # fmt: skip
            return Unknown(f"the unresolved reference at {ptr}")
        self.sink.resolved.add(ptr)
        return result


def _esc(part: str) -> str:
    return str(part).replace("~", "~0").replace("/", "~1")


_STRINGS = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
_REF = re.compile(r"\$([A-Za-z_]\w*)((?:\.[A-Za-z_]\w*|\[\s*-?\d+\s*\])*)(\s*\()?")
_STEP = re.compile(r"\.([A-Za-z_]\w*)|\[\s*(-?\d+)\s*\]")


def _references(expr: str, bindings: dict[str, Any]) -> list[tuple[str, str]]:
    """``($name, .a.b[0])`` for each variable reference that is not a function call."""
    out: list[tuple[str, str]] = []
    for m in _REF.finditer(_STRINGS.sub("''", expr)):
        if m.group(1) in bindings and not (m.group(3) and not m.group(2)):
            out.append((m.group(1), m.group(2)))
    return out


def _reach(root: Any, steps: str) -> Any:
    """Follow ``.a[0]`` steps; an Unknown met on the way; _MISSING when absent."""
    cur = root
    for m in _STEP.finditer(steps):
        if isinstance(cur, Unknown):
            return cur
        if m.group(1) is not None:
            if isinstance(cur, dict):
                cur = cur.get(m.group(1), _MISSING)
            elif isinstance(cur, list):
                return _first_unknown(cur) if contains_unknown(cur) else _ARRAY
            else:
                return _MISSING
        else:
            i = int(m.group(2))
            if not isinstance(cur, list) or not -len(cur) <= i < len(cur):
                return _MISSING
            cur = cur[i]
        if cur is _MISSING:
            return _MISSING
    return cur


def _tainted(expr: str, bindings: dict[str, Any]) -> Unknown | None:
    for name, steps in _references(expr, bindings):
        reached = _reach(bindings[name], steps)
        if isinstance(reached, Unknown):
            return reached if name != "states" else Unknown(f"${name}{steps}: {reached.origin}")
        if reached is not _MISSING and reached is not _ARRAY and contains_unknown(reached):
            return Unknown(f"${name}{steps}, which holds {_first_unknown(reached).origin}")
    return None


def _first_unknown(value: Any) -> Unknown:
    if isinstance(value, Unknown):
        return value
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    for v in items:
        if contains_unknown(v):
            return _first_unknown(v)
    return Unknown("an unknown value")


def _first_missing(expr: str, bindings: dict[str, Any]) -> tuple[str | None, bool]:
    """The first reference that selects nothing, and whether an object lacks its key."""
    for name, steps in _references(expr, bindings):
        if steps and _reach(bindings[name], steps) is _MISSING:
            cur = bindings[name]
            for m in _STEP.finditer(steps):
                if m.group(1) is not None and isinstance(cur, dict) and m.group(1) not in cur:
                    return f"${name}{steps}", True
                if m.group(1) is not None and isinstance(cur, dict):
                    cur = cur[m.group(1)]
                elif m.group(2) is not None and isinstance(cur, list):
                    i = int(m.group(2))
                    if not -len(cur) <= i < len(cur):
                        break
                    cur = cur[i]
                else:
                    break
            return f"${name}{steps}", False
    return None, False


def _key_missing(path: JsonPath, root: Any) -> bool:
    """True when the path fails because an object lacks a key (not on a value-dependent step)."""
    cur = root
    for st in path.steps:
        if st.kind == "name" and isinstance(cur, dict):
            if st.name not in cur:
                return True
            cur = cur[st.name]
        elif st.kind == "index" and isinstance(cur, list) and -len(cur) <= st.index < len(cur):
            cur = cur[st.index]
        else:
            return False
    return False

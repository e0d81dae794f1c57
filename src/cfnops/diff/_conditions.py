"""Conditions evaluated with known parameter values (``--stack``, ``--parameters``).

When the parameter values of both deployments are known, each template's
conditions are evaluated with its own values (AWS docs, "Condition functions",
intrinsic-function-reference-conditions.html): ``Fn::If`` picks its branch (a
branch of ``Ref AWS::NoValue`` removes the property), and a resource or output
whose ``Condition`` is false is not part of the stack. A condition that needs an
unknown value (a pseudo parameter, an unknown parameter, ``Fn::FindInMap``…)
stays as written, and so do the ``Fn::If`` calls that use it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_NO_VALUE = {"Ref": "AWS::NoValue"}
_DROP = object()


def _text(value: Any, values: Mapping[str, str]) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return str(value)
    if isinstance(value, dict) and set(value) == {"Ref"} and isinstance(value["Ref"], str):
        return values.get(value["Ref"])
    return None


class Conditions:
    """The conditions of one template under known parameter values."""

    def __init__(self, template: Mapping[str, Any], values: Mapping[str, str]) -> None:
        section = template.get("Conditions")
        self._defs = dict(section) if isinstance(section, Mapping) else {}
        self._values = values
        self._memo: dict[str, bool | None] = {}

    def value(self, name: Any) -> bool | None:
        if not isinstance(name, str) or name not in self._defs:
            return None
        if name not in self._memo:
            self._memo[name] = None  # a cycle stays unknown
            self._memo[name] = self._eval(self._defs[name])
        return self._memo[name]

    def _eval(self, node: Any) -> bool | None:
        if not isinstance(node, dict) or len(node) != 1:
            return None
        ((fn, arg),) = node.items()
        if fn == "Condition":
            return self.value(arg)
        if fn == "Fn::Equals" and isinstance(arg, list) and len(arg) == 2:
            left, right = (_text(a, self._values) for a in arg)
            return None if left is None or right is None else left == right
        if fn == "Fn::Not" and isinstance(arg, list) and len(arg) == 1:
            inner = self._eval(arg[0])
            return None if inner is None else not inner
        if fn in ("Fn::And", "Fn::Or") and isinstance(arg, list):
            found = [self._eval(a) for a in arg]
            want: bool = fn == "Fn::Or"
            if want in found:
                return want
            return None if None in found else not want
        return None

    def resolve(self, value: Any) -> Any:
        """``value`` with every decidable ``Fn::If`` replaced by its branch."""
        if isinstance(value, dict):
            if set(value) == {"Fn::If"} and isinstance(value["Fn::If"], list):
                arg = value["Fn::If"]
                decided = self.value(arg[0]) if len(arg) == 3 else None
                if decided is not None:
                    picked = arg[1] if decided else arg[2]
                    return _DROP if picked == _NO_VALUE else self.resolve(picked)
            out = {}
            for key, sub in value.items():
                resolved = self.resolve(sub)
                if resolved is not _DROP:
                    out[key] = resolved
            return out
        if isinstance(value, list):
            return [r for r in (self.resolve(v) for v in value) if r is not _DROP]
        return value


def apply_conditions(template: dict[str, Any], values: Mapping[str, str]) -> dict[str, Any]:
    """``template`` with its conditions applied under ``values`` (see the module doc)."""
    conditions = Conditions(template, values)
    if not conditions._defs:
        return template
    out = dict(template)
    for section in ("Resources", "Outputs"):
        entries = template.get(section)
        if not isinstance(entries, Mapping):
            continue
        kept: dict[str, Any] = {}
        for name, entry in entries.items():
            if isinstance(entry, Mapping) and conditions.value(entry.get("Condition")) is False:
                continue  # not part of the stack under these values
            resolved = conditions.resolve(entry)
            kept[name] = resolved if resolved is not _DROP else entry
        out[section] = kept
    return out

"""One template's values under an assignment of the values a deploy decides.

A deploy fixes the stack's region, every parameter and hence every condition;
under one such assignment (``env``) ``Ref`` of a parameter or ``AWS::Region``,
``Fn::FindInMap``, ``Fn::If`` and the ``${…}`` of ``Fn::Sub`` have one value
each (AWS docs: "Ref", intrinsic-function-reference-ref.html; "Fn::FindInMap",
intrinsic-function-reference-findinmap.html; "Condition functions",
intrinsic-function-reference-conditions.html; "Parameters",
parameters-section-structure.html — ``AllowedValues`` and ``Default``).
:class:`Side` substitutes what ``env`` and the template fix and leaves the rest
as written, so references to resources and unknown values stay symbolic.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from cfnops.diff._normalise import canon

NO_VALUE = {"Ref": "AWS::NoValue"}
DROP: Any = object()
_SUB_TOKEN = re.compile(r"\$\{([^}!][^}]*)\}")
COND = "condition "  # prefix of a condition's name in env (a free condition)


def _text(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return str(value)
    return None


class Side:
    """The parameters, mappings and conditions of one template.

    ``fixed`` holds parameter values known for certain (a deployed stack's, or
    an only allowed value); ``assumed`` the defaults used when nothing else is
    known (see :mod:`cfnops.diff._resolve`).
    """

    def __init__(
        self,
        template: Mapping[str, Any],
        fixed: Mapping[str, str],
        assumed: Mapping[str, str],
    ) -> None:
        params = template.get("Parameters")
        mappings = template.get("Mappings")
        conditions = template.get("Conditions")
        self.params: dict[str, Any] = dict(params) if isinstance(params, Mapping) else {}
        self.mappings: dict[str, Any] = dict(mappings) if isinstance(mappings, Mapping) else {}
        self.conditions: dict[str, Any] = (
            dict(conditions) if isinstance(conditions, Mapping) else {}
        )
        self.fixed = dict(fixed)
        self.assumed = dict(assumed)

    def ref(self, name: str, env: Mapping[str, Any], defaults: bool) -> str | None:
        """The value of ``Ref name`` under ``env``, or ``None`` when it stays symbolic."""
        if name in env:
            return str(env[name])
        if name in self.fixed:
            return self.fixed[name]
        if defaults and name in self.assumed:
            return self.assumed[name]
        return None

    # -- conditions ---------------------------------------------------------------
    def condition(self, name: Any, env: Mapping[str, Any], defaults: bool) -> bool | None:
        if not isinstance(name, str):
            return None
        if COND + name in env:
            return bool(env[COND + name])
        if name not in self.conditions:
            return None
        return self._truth(self.conditions[name], env, defaults, {name})

    def _truth(
        self, node: Any, env: Mapping[str, Any], defaults: bool, seen: set[str]
    ) -> bool | None:
        if not isinstance(node, dict) or len(node) != 1:
            return None
        ((fn, arg),) = node.items()
        if fn == "Condition":
            if not isinstance(arg, str) or arg in seen:
                return None
            if COND + arg in env:
                return bool(env[COND + arg])
            return self._truth(self.conditions.get(arg), env, defaults, {*seen, arg})
        if fn == "Fn::Equals" and isinstance(arg, list) and len(arg) == 2:
            left, right = (self.value(a, env, defaults) for a in arg)
            if _text(left) is None or _text(right) is None:
                return None
            same: bool = canon(left, None) == canon(right, None)
            return same
        if fn == "Fn::Not" and isinstance(arg, list) and len(arg) == 1:
            inner = self._truth(arg[0], env, defaults, seen)
            return None if inner is None else not inner
        if fn in ("Fn::And", "Fn::Or") and isinstance(arg, list):
            found = [self._truth(a, env, defaults, seen) for a in arg]
            want: bool = fn == "Fn::Or"
            if want in found:
                return want
            return None if None in found else not want
        return None

    # -- values -------------------------------------------------------------------
    def value(self, node: Any, env: Mapping[str, Any], defaults: bool = True) -> Any:
        """``node`` with everything ``env`` and the template decide substituted."""
        if isinstance(node, list):
            return [v for v in (self.value(x, env, defaults) for x in node) if v is not DROP]
        if not isinstance(node, dict):
            return node
        if len(node) == 1:
            ((fn, arg),) = node.items()
            if fn == "Ref" and isinstance(arg, str):
                found = self.ref(arg, env, defaults)
                return node if found is None else found
            if fn == "Fn::FindInMap":
                return self._find(arg, env, defaults)
            if fn == "Fn::If" and isinstance(arg, list) and len(arg) == 3:
                decided = self.condition(arg[0], env, defaults)
                if decided is not None:
                    picked = arg[1] if decided else arg[2]
                    return DROP if picked == NO_VALUE else self.value(picked, env, defaults)
                return {
                    fn: [
                        arg[0],
                        self.value(arg[1], env, defaults),
                        self.value(arg[2], env, defaults),
                    ]
                }
            if fn == "Fn::Sub":
                return self._sub(arg, env, defaults)
        out = {}
        for key, sub in node.items():
            found = self.value(sub, env, defaults)
            if found is not DROP:
                out[key] = found
        return out

    def _find(self, arg: Any, env: Mapping[str, Any], defaults: bool) -> Any:
        args = self.value(arg, env, defaults)
        if not (isinstance(args, list) and len(args) == 3):
            return {"Fn::FindInMap": args}
        keys = [_text(a) for a in args]
        if None in keys:
            return {"Fn::FindInMap": args}
        top = self.mappings.get(str(keys[0]))
        level = top.get(keys[1]) if isinstance(top, Mapping) else None
        if isinstance(level, Mapping) and keys[2] in level:
            return level[keys[2]]
        return {"Fn::FindInMap": ["(no entry)", *keys]}  # the deploy would fail: differs

    def _sub(self, arg: Any, env: Mapping[str, Any], defaults: bool) -> Any:
        if isinstance(arg, str):
            text, variables = arg, {}
        elif isinstance(arg, list) and len(arg) == 2 and isinstance(arg[0], str):
            text = arg[0]
            variables = dict(arg[1]) if isinstance(arg[1], Mapping) else {}
        else:
            return {"Fn::Sub": self.value(arg, env, defaults)}
        resolved = {k: self.value(v, env, defaults) for k, v in variables.items()}

        def one(match: re.Match[str]) -> str:
            name = match.group(1).strip()
            if name in resolved:
                found = _text(resolved[name])
            elif "." in name and not name.startswith("AWS::"):
                found = None
            else:
                found = self.ref(name, env, defaults)
            return match.group(0) if found is None else found.replace("${", "${!")

        out = _SUB_TOKEN.sub(one, text)
        kept = {k: v for k, v in resolved.items() if _text(v) is None}
        return {"Fn::Sub": [out, kept] if kept else out}


def walk(value: Any) -> Iterator[tuple[str, Any]]:
    """Every intrinsic call ``(name, argument)`` inside ``value``."""
    if isinstance(value, dict):
        if len(value) == 1:
            ((key,),) = (tuple(value),)
            if isinstance(key, str) and (key == "Ref" or key.startswith("Fn::")):
                yield key, value[key]
        for sub in value.values():
            yield from walk(sub)
    elif isinstance(value, list):
        for sub in value:
            yield from walk(sub)

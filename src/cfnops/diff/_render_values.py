"""Template values as short strings for the security view.

``{"Ref": "X"}`` → ``${X}``, ``{"Fn::GetAtt": ["X", "Arn"]}`` → ``${X.Arn}``;
any other intrinsic stays visible as compact JSON, the way ``cdk diff``
shows values it cannot resolve.
"""

from __future__ import annotations

import json
from typing import Any

from cfnops.diff._normalise import getatt_parts, intrinsic_name


def render(value: Any) -> str:
    """One template value as a string (``${X}`` for references)."""
    if isinstance(value, str):
        return value
    name = intrinsic_name(value)
    if name == "Ref" and isinstance(value["Ref"], str):
        return "${" + value["Ref"] + "}"
    if name == "Fn::GetAtt":
        parts = getatt_parts(value[name])
        if parts is not None and isinstance(parts[0], str) and isinstance(parts[1], str):
            return "${" + parts[0] + "." + parts[1] + "}"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value, separators=(",", ":"), default=str)


def render_deep(value: Any) -> Any:
    """``value`` with every reference inside rendered (for conditions)."""
    if isinstance(value, dict):
        if intrinsic_name(value) in ("Ref", "Fn::GetAtt"):
            return render(value)
        return {str(k): render_deep(v) for k, v in value.items()}
    if isinstance(value, list):
        return [render_deep(v) for v in value]
    return value


def as_list(value: Any) -> list[Any]:
    """A scalar as a one-item list; ``None`` as empty; a list as is."""
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]

"""Where a template node points and where it stands: shared by the checks and the roll plan."""

from __future__ import annotations

from typing import Any


def line_of(node: Any) -> int | None:
    """The 1-based source line of a node the YAML loader marked, else None."""
    mark = getattr(node, "start_mark", None)
    return int(mark.line) + 1 if mark is not None else None


def ref_target(value: Any) -> str | None:
    """The logical id a ``Ref`` / ``Fn::GetAtt`` points at."""
    if isinstance(value, dict) and len(value) == 1:
        ((fn, arg),) = value.items()
        if fn == "Ref" and isinstance(arg, str):
            return arg
        if fn == "Fn::GetAtt":
            parts = arg.split(".", 1) if isinstance(arg, str) else list(arg)
            return str(parts[0]) if parts else None
    return None

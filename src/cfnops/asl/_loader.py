"""Reading a state machine definition from JSON or YAML text or a file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cfnops.asl.errors import DefinitionLoadError

__all__ = ["load_definition"]


def load_definition(source: str | Path) -> dict[str, Any]:
    """Parse a definition from a file path or from JSON/YAML text.

    JSON is tried first (Step Functions' own format); YAML is accepted for authoring.
    Raises :class:`DefinitionLoadError` naming the file and line of a syntax error.
    """
    if isinstance(source, Path) or (
        "\n" not in source and not source.lstrip().startswith(("{", "[")) and Path(source).is_file()
    ):
        path = Path(source)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise DefinitionLoadError(str(path), None, str(exc)) from exc
        where = str(path)
    else:
        text, where = str(source), "<definition>"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as json_error:
        import yaml  # JSON definitions (the usual case) start without it

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = mark.line + 1 if mark is not None else json_error.lineno
            raise DefinitionLoadError(where, line, str(exc).splitlines()[0]) from exc
    if not isinstance(data, dict):
        raise DefinitionLoadError(where, None, "a state machine definition must be an object")
    return data

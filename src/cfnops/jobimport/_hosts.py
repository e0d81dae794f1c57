"""``--hosts FILE``: where each source host's commands run.

JSON, YAML or TOML, a mapping from host name to one of::

    web01: i-0123456789abcdef0                 # one instance
    web02: [i-0aaa, i-0bbb]                    # several
    db01: {tag: "Role=db"}                     # every instance with that tag
    batch: {function: run-batch}               # a Lambda (or a local function) runs it
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from cfnops.jobimport._asl import HostTarget
from cfnops.jobimport.errors import ImportInputError

__all__ = ["load_hosts"]

_FIX = "map each host to an instance id, a list of them, {tag: KEY=VALUE} or {function: NAME}"


def load_hosts(path: str | Path) -> dict[str, HostTarget]:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportInputError(str(p), "file", str(exc), "give a readable --hosts file") from None
    data: Any
    try:
        data = tomllib.loads(text) if p.suffix == ".toml" else json.loads(text)
    except (ValueError, tomllib.TOMLDecodeError):
        import yaml

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            fix = f"fix the YAML at that line; the file should {_FIX}"
            raise ImportInputError(str(p), "file", _yaml_problem(exc), fix) from None
    if not isinstance(data, dict):
        raise ImportInputError(str(p), "top level", "not a mapping of host names", _FIX)
    return {str(host): _target(str(p), str(host), value) for host, value in data.items()}


def _target(source: str, host: str, value: Any) -> HostTarget:
    if isinstance(value, str) and value:
        return HostTarget(instances=(value,))
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return HostTarget(instances=tuple(value))
    if isinstance(value, dict):
        if isinstance(value.get("function"), str):
            return HostTarget(function=value["function"])
        if isinstance(value.get("instances"), list):
            return HostTarget(instances=tuple(str(v) for v in value["instances"]))
        tag = value.get("tag")
        if isinstance(tag, str) and "=" in tag:
            key, _, val = tag.partition("=")
            return HostTarget(tag_key=key, tag_values=(val,))
    raise ImportInputError(source, host, f"{value!r} is not a host mapping", _FIX)


def _yaml_problem(exc: Any) -> str:
    """PyYAML's several-line complaint as one line: what, and at which line and column."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    at = f" at line {mark.line + 1} column {mark.column + 1}" if mark is not None else ""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return f"not valid YAML{at}: {problem}"

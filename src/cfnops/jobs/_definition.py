"""Reading job-net definitions (JSON or YAML) and execution inputs (JSON or @FILE)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cfnops.jobs.errors import JobInputError

__all__ = ["load_definition", "machine_name", "parse_input"]

_SUFFIXES = (".asl.json", ".asl.yaml", ".asl.yml", ".json", ".yaml", ".yml")


def machine_name(path: str | Path) -> str:
    """``examples/jobnets/webapp-stop.asl.json`` → ``webapp-stop``."""
    name = Path(path).name
    for suffix in _SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def _parse(text: str, where: str, what: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as json_error:
        import yaml  # JSON (the usual case) starts without it

        try:
            return yaml.safe_load(text)
        except yaml.YAMLError as yaml_error:
            if text.lstrip()[:1] in ("{", "["):  # meant as JSON: the JSON parser's words
                raise JobInputError(what, where, f"not valid JSON: {json_error}") from None
            raise _yaml_error(what, where, yaml_error) from None


def _yaml_error(what: str, where: str, exc: Any) -> JobInputError:
    """The YAML parser's complaint at its line, with a fix for CloudFormation tags."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    at = f" at line {mark.line + 1} column {mark.column + 1}" if mark is not None else ""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    hint = None
    tag = getattr(exc, "problem", "") or ""
    if "constructor for the tag" in tag:
        hint = (
            "States Language has no CloudFormation tags (!Ref, !Sub, !GetAtt): write plain "
            "values, or keep the definition in the template's DefinitionString"
        )
    return JobInputError(what, where, f"not valid YAML{at}: {problem}", hint)


def load_definition(path: str | Path) -> dict[str, Any]:
    """The definition in a JSON or YAML file, as a dict."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise JobInputError("the definition", str(p), exc.strerror or str(exc)) from None
    except UnicodeDecodeError:
        raise JobInputError("the definition", str(p), "not UTF-8 text (a binary file?)") from None
    found = _parse(text, str(p), "the definition")
    if not isinstance(found, dict):
        raise JobInputError("the definition", str(p), "the top level is not an object")
    return found


def _looks_like_path(text: str) -> bool:
    """True for ``sample.json``, ``./in.yaml``, ``data/x``: a file's name, not JSON."""
    return not any(ch.isspace() or ch in "{}[]\"'," for ch in text) and (
        "/" in text or Path(text).suffix.lower() in (".json", ".yaml", ".yml")
    )


def parse_input(text: str | None) -> Any:
    """``'{"a": 1}'``, ``@input.json`` or ``input.json`` (JSON or YAML) → the value.

    None → ``{}``. A text that is not JSON but names an existing file is that file.
    """
    if text is None or text == "":
        return {}
    if text.startswith("@"):
        path = Path(text[1:])
        try:
            content = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise JobInputError("the input", str(path), exc.strerror or str(exc)) from None
        except UnicodeDecodeError:
            raise JobInputError("the input", str(path), "not UTF-8 text (a binary file?)") from None
        return _parse(content, str(path), "the input")
    try:
        return json.loads(text)
    except ValueError as exc:
        path = Path(text)
        if not text.lstrip().startswith(("{", "[", '"')) and path.is_file():
            return parse_input("@" + text)  # a file named as users write it: SAMPLE.json
        if _looks_like_path(text):
            raise JobInputError(
                "the input", text, "no such file (and not JSON either)",
                "check the file's path, or pass JSON inline",
            ) from None  # fmt: skip
        raise JobInputError(
            "the input", "--input", str(exc), "pass JSON inline, or @FILE (or a file's path)"
        ) from None

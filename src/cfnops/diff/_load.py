"""Template loading: JSON and YAML with CloudFormation short-form tags.

YAML (and any JSON the fast path rejects) goes through the shared template
loader (:mod:`cfnops.templates`, PyYAML's C parser), which maps ``!Ref X`` to
``{"Ref": "X"}``, every other ``!Name`` tag to ``{"Fn::Name": ...}`` and
``!GetAtt A.B.C`` to ``{"Fn::GetAtt": ["A", "B.C"]}``, and reports errors with
line and column. A template that is valid JSON without duplicate keys is parsed
by the standard library's ``json`` (the same result, faster still).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cfnops.diff._normalise import plain
from cfnops.diff.errors import TemplateLoadError
from cfnops.templates import decode, read_text

TEMPLATE_KEYS = frozenset(
    {
        "AWSTemplateFormatVersion",
        "Description",
        "Metadata",
        "Parameters",
        "Rules",
        "Mappings",
        "Conditions",
        "Transform",
        "Resources",
        "Outputs",
        "Hooks",
    }
)


class _DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _DuplicateKey
    return out


def _fast_json(text: str, source: str) -> Any | None:
    if not text.lstrip().startswith("{"):
        return None
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        if source.endswith(".json"):  # a .json file is JSON: YAML would accept more
            raise TemplateLoadError(
                source, f"invalid JSON: {exc.msg}", line=exc.lineno, column=exc.colno
            ) from None
        return None  # maybe a YAML flow mapping: let the YAML loader decide
    except _DuplicateKey:  # let the YAML loader say where
        return None


def _decode(text: str, source: str) -> Any:
    return plain(decode(text, source))  # raises TemplateError (= TemplateLoadError)


def check_template(template: Any, source: str) -> dict[str, Any]:
    """``template`` if it looks like a CloudFormation template, else a TemplateLoadError."""
    if not isinstance(template, Mapping):
        kind = "empty" if template is None else type(template).__name__
        raise TemplateLoadError(
            source,
            f"not a CloudFormation template: the document is {kind}, not a mapping",
            hint="a template is a JSON object / YAML mapping with a Resources section",
        )
    if template and not (set(template) & TEMPLATE_KEYS):
        keys = ", ".join(sorted(str(k) for k in template)[:5])
        raise TemplateLoadError(
            source,
            f"not a CloudFormation template: no known section (found {keys})",
            hint="a template has Resources (and optionally Parameters, Outputs, ...)",
        )
    resources = template.get("Resources")
    if resources is not None and not isinstance(resources, Mapping):
        raise TemplateLoadError(source, "not a CloudFormation template: Resources is not a mapping")
    return dict(template)


def parse_template(text: str, source: str = "<string>") -> dict[str, Any]:
    """Parse a JSON or YAML template; ``source`` names it in error messages."""
    if not text.strip():
        raise TemplateLoadError(source, "not a CloudFormation template: the file is empty")
    parsed = _fast_json(text, source)
    if parsed is None:
        parsed = _decode(text, source)
    return check_template(parsed, source)


def load_template(path: str | Path) -> dict[str, Any]:
    """Read and parse a template file (``-`` is not supported: pass a path)."""
    return parse_template(read_text(path), str(path))

"""``CFNOPS_*`` environment variables as settings values.

The rules (the ones ``pydantic-settings`` applied with ``env_prefix="CFNOPS_"`` and
``env_nested_delimiter="__"``, which cfnops used before; its import cost ~15 % of a
``job run``'s start-up):

* names match case-insensitively: ``CFNOPS_HEAL__DRIFT_POLL_SECONDS`` is
  ``heal.drift_poll_seconds``; ``__`` separates nested keys at any depth;
* a value for a list, mapping or section setting is JSON
  (``CFNOPS_WORKER__WORKFLOW_MODULES='["my_module"]'``, ``CFNOPS_AWS='{"region": ...}'``),
  anything else is the text as given (msgspec converts it); a true/false setting also
  takes ``yes``/``no``, ``on``/``off``, ``y``/``n``, ``t``/``f`` (as pydantic did);
* a section given as JSON and some of its keys given one by one are merged (the keys win);
* variables that name no setting are ignored, keys below a known section that name no
  setting of it are passed on (and refused as unknown settings).
"""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Mapping
from typing import Any

import msgspec

from cfnops._config_file import ConfigError

PREFIX = "cfnops_"
DELIMITER = "__"
_COMPLEX = (list, dict, set, tuple, frozenset)


_BOOLS = {"yes": "true", "on": "true", "y": "true", "t": "true"}
_BOOLS |= {"no": "false", "off": "false", "n": "false", "f": "false"}


def _section(annotation: Any) -> type[msgspec.Struct] | None:
    """The model of a section setting (``aws: AwsSettings``), else ``None``."""
    for option in _options(annotation):
        if isinstance(option, type) and issubclass(option, msgspec.Struct):
            return option
    return None


def _options(annotation: Any) -> tuple[Any, ...]:
    origin = typing.get_origin(annotation)
    if origin is typing.Union or origin is types.UnionType:
        return tuple(a for a in typing.get_args(annotation) if a is not type(None))
    return (annotation,)


def _is_complex(annotation: Any) -> bool:
    for option in _options(annotation):
        if typing.get_origin(option) is typing.Annotated:
            option = typing.get_args(option)[0]
        origin = typing.get_origin(option) or option
        if isinstance(origin, type) and (
            issubclass(origin, _COMPLEX) or issubclass(origin, msgspec.Struct)
        ):
            return True
    return False


def _decode(annotation: Any, text: str, name: str) -> Any:
    if not _is_complex(annotation):
        if bool in _options(annotation):
            return _BOOLS.get(text.strip().lower(), text)
        return text
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"environment ({name.upper()})",
            name[len(PREFIX) :].replace(DELIMITER, "."),
            f"not valid JSON ({exc.msg}); list and table settings take JSON, e.g. "
            "CFNOPS_WORKER__WORKFLOW_MODULES='[\"my_module\"]'",
        ) from None


def _merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = _merge(dict(out[key]), value)
        else:
            out[key] = value
    return out


def _values(model: type[msgspec.Struct], found: Mapping[str, str], head: str) -> dict[str, Any]:
    """Settings of ``model`` from ``found`` (lower-cased names below ``head``)."""
    out: dict[str, Any] = {}
    fields = {f.name: f.type for f in msgspec.structs.fields(model)}
    for name, annotation in fields.items():
        key = head + name
        value: Any = None
        if key in found:
            value = _decode(annotation, found[key], key)
        section = _section(annotation)
        if section is not None:
            below = _values(section, found, key + DELIMITER)
            if below:
                value = _merge(value if isinstance(value, dict) else {}, below)
        if value is not None:
            out[name] = value
    if head != PREFIX:  # inside a section: unknown keys are passed on, to be refused
        for key, text in found.items():
            if key.startswith(head):
                first = key[len(head) :].split(DELIMITER, 1)[0]
                if first and first not in fields:
                    out.setdefault(first, text)
    return out


def env_settings(model: type[msgspec.Struct], environ: Mapping[str, str]) -> dict[str, Any]:
    """The settings ``environ`` gives for ``model`` (a nested dict ready to validate)."""
    found = {k.lower(): v for k, v in environ.items() if k.lower().startswith(PREFIX)}
    return _values(model, found, PREFIX) if found else {}


def merged(*layers: Mapping[str, Any]) -> dict[str, Any]:
    """``layers`` merged section by section, later layers winning."""
    out: dict[str, Any] = {}
    for layer in layers:
        out = _merge(out, layer)
    return out

"""Parameter values for ``cfnops diff``: ``--parameters FILE`` and ``--parameter K=V``.

A file has one of the shapes CloudFormation's tools read (AWS CLI
``create-stack --parameters file://…``; ``cloudformation deploy
--parameter-overrides file://…``, which also reads the CodePipeline template
configuration shape, aws/aws-cli#5443; CodePipeline "AWS CloudFormation
artifacts", continuous-delivery-codepipeline-cfn-artifacts.html):

* ``[{"ParameterKey": "K", "ParameterValue": "V"}, …]`` (an entry with
  ``UsePreviousValue: true`` keeps the deployed value: no value is given);
* ``["K=V", …]``;
* ``{"Parameters": {"K": "V"}, "Tags": …}``;
* ``{"K": "V", …}``.

JSON or YAML. A list value is a ``CommaDelimitedList`` (joined with commas),
booleans are ``true``/``false``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cfnops.errors import UsageError

__all__ = ["given_parameters"]

_SHAPES = (
    'expected [{"ParameterKey": K, "ParameterValue": V}, ...], ["K=V", ...], '
    '{"Parameters": {K: V}} or {K: V}'
)


def _key_value(item: str, where: str) -> tuple[str, str]:
    key, sep, value = item.partition("=")
    if not sep or not key.strip():
        raise UsageError(f"{where} {item!r}: expected KEY=VALUE", hint="e.g. ContainerPort=8080")
    return key.strip(), value


def _text(value: Any, where: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list) and all(not isinstance(v, dict | list) for v in value):
        return ",".join(_text(v, where) for v in value)
    if isinstance(value, str | int | float):
        return str(value)
    raise UsageError(f"{where}: a parameter value must be text, a number or a list, not {value!r}")


def _from_list(items: list[Any], path: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for index, item in enumerate(items):
        where = f"{path} entry {index + 1}"
        if isinstance(item, str):
            key, value = _key_value(item, where)
            out[key] = value
        elif isinstance(item, dict) and isinstance(item.get("ParameterKey"), str):
            if item.get("UsePreviousValue") is True:
                continue  # the deployed value stays: nothing is given
            if "ParameterValue" not in item:
                raise UsageError(f"{where}: ParameterKey {item['ParameterKey']!r} has no value")
            out[item["ParameterKey"]] = _text(item["ParameterValue"], where)
        else:
            raise UsageError(f"{where}: {_SHAPES}", hint="see docs/diff.md, Parameter values")
    return out


def read_parameter_file(path: Path) -> dict[str, str]:
    """The values a parameter file gives (any of the module's shapes)."""
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise UsageError(
            f"--parameters {path}: not readable as JSON or YAML: {exc}".splitlines()[0],
            hint=_SHAPES,
        ) from None
    if isinstance(data, list):
        return _from_list(data, path)
    if isinstance(data, dict):
        mapping = data.get("Parameters", data) if "Parameters" in data else data
        if isinstance(mapping, dict):
            return {str(k): _text(v, f"{path} parameter {k}") for k, v in mapping.items()}
    raise UsageError(f"--parameters {path}: {_SHAPES}", hint="see docs/diff.md, Parameter values")


def given_parameters(files: Sequence[str], pairs: Sequence[str]) -> dict[str, str]:
    """Values from ``--parameters`` (files; ``KEY=VALUE`` still accepted) then
    ``--parameter KEY=VALUE`` (the later wins)."""
    out: dict[str, str] = {}
    for item in files:
        path = Path(item)
        if path.is_file():
            out.update(read_parameter_file(path))
        elif "=" in item:
            key, value = _key_value(item, "--parameters")
            out[key] = value
        else:
            raise UsageError(
                f"--parameters {item}: no such file",
                hint="give a parameter file, or one value with --parameter KEY=VALUE",
            )
    for item in pairs:
        key, value = _key_value(item, "--parameter")
        out[key] = value
    return out

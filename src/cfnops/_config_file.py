"""The settings file (``cfnops.toml``) and one setting read without the settings model.

:mod:`cfnops.config` builds the whole checked settings object (msgspec; pydantic
cost ~0.1 s of imports before). A command that needs one value (``cfnops diff`` needs only the
region) reads it here with the same precedence — ``CFNOPS_*`` environment variable,
then the file — and falls back to the full model when the value is not a plain string.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cfnops.errors import UsageError

CONFIG_FILE_NAME = "cfnops.toml"


class ConfigError(UsageError):
    """The configuration is invalid: names the source, the key and the reason."""

    def __init__(self, source: str, key: str, reason: str, hint: str | None = None) -> None:
        self.source = source
        self.key = key
        self.reason = reason
        super().__init__(
            f"invalid configuration in {source}: {key}: {reason}",
            hint=hint or "fix the value or remove it to use the default",
        )


def find_config(explicit: Path | None) -> Path | None:
    """``--config``'s file (which must exist), else ``./cfnops.toml`` when present."""
    if explicit is not None:
        if not explicit.is_file():
            raise ConfigError(
                str(explicit), "--config", "no such file",
                hint="check the path, or drop --config to use ./cfnops.toml or the defaults",
            )  # fmt: skip
        return explicit
    here = Path.cwd() / CONFIG_FILE_NAME
    return here if here.is_file() else None


def read_toml(path: Path) -> dict[str, Any]:
    import tomllib  # only when a file exists: `diff` usually finds none

    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            str(path), "(syntax)", str(exc), hint="fix the TOML syntax (docs/configuration.md)"
        ) from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(
            str(path),
            "(encoding)",
            f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}): "
            "is it a binary file?",
            hint="give a TOML text file such as cfnops.toml (docs/configuration.md)",
        ) from exc


class Unsure(Exception):
    """The quick read cannot tell the value the settings model would: build the model."""


def peek_setting(config_file: Path | None, section: str, key: str) -> str | None:
    """``[section] key`` as :func:`cfnops.config.load_settings` resolves it (env > file).

    Raises :class:`Unsure` where the settings model would do more than read a string (a
    JSON ``CFNOPS_<SECTION>`` variable, a non-string value): the caller loads the model.
    """
    wanted = f"CFNOPS_{section}__{key}".upper()
    whole = f"CFNOPS_{section}".upper()
    for name, value in os.environ.items():  # names match case-insensitively (_config_env)
        upper = name.upper()
        if upper == wanted:
            return value
        if upper == whole:
            raise Unsure(name)
    path = find_config(config_file)
    if path is None:
        return None
    table = read_toml(path).get(section, {})
    found: Any = table.get(key) if isinstance(table, Mapping) else None
    if found is not None and not isinstance(found, str):
        raise Unsure(json.dumps(found, default=str))
    return found

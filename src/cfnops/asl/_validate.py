"""Definition validation (filled in below)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cfnops.asl.errors import Finding, InvalidDefinition


def validate(definition: Mapping[str, Any], *, strict: bool = False) -> list[Finding]:
    return []


def check_definition(definition: Mapping[str, Any], *, strict: bool = False) -> None:
    findings = validate(definition, strict=strict)
    if findings:
        raise InvalidDefinition(findings)

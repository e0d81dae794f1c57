"""Placeholder: filled in by the CloudFormation work."""

from __future__ import annotations


def install() -> None:
    """Patch moto (idempotent)."""

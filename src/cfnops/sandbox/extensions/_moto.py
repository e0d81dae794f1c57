"""moto modules as ``Any``: extensions patch and poke moto's internals on purpose.

moto ships inline types, but the sandbox reaches into attributes its types do
not declare; importing through here keeps ``mypy --strict`` meaningful for the
sandbox's own code without a ``type: ignore`` on every line.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["moto_module"]


def moto_module(name: str) -> Any:
    """The imported module ``name`` (a ``moto.*`` module), typed as ``Any``."""
    if not name.startswith("moto"):
        raise ValueError(f"not a moto module: {name}")
    return importlib.import_module(name)

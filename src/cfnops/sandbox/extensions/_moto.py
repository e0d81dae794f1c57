"""moto modules as ``Any``: extensions patch and poke moto's internals on purpose.

moto ships inline types, but the sandbox reaches into attributes its types do
not declare; importing through here keeps ``mypy --strict`` meaningful for the
sandbox's own code without a ``type: ignore`` on every line.
"""

from __future__ import annotations

import functools
import importlib
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["install_once", "moto_module"]


def moto_module(name: str) -> Any:
    """The imported module ``name`` (a ``moto.*`` module), typed as ``Any``."""
    if not name.startswith("moto"):
        raise ValueError(f"not a moto module: {name}")
    return importlib.import_module(name)


def install_once(install: Callable[[], None]) -> Callable[[], None]:
    """``install`` run once per process, whoever calls it and from which thread: an
    extension that patched moto twice would wrap its own wrappers. An install that raised
    is tried again on the next call."""
    lock = threading.Lock()
    done = False

    @functools.wraps(install)
    def once() -> None:
        nonlocal done
        with lock:
            if not done:
                install()
                done = True

    return once

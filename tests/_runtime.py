"""What a test passes where cfnops takes a ``Runtime`` or a ``Database``.

Constructors take the runtime or database the caller has (issue #38); a test that only
has settings builds one here, as a program's entry point would. Each call opens a new
handle (a pool of its own): a test that has an engine or a service passes
``engine.runtime.database`` instead.
"""

from __future__ import annotations

from typing import Any

from cfnops.config import Settings
from cfnops.database import Database
from cfnops.runtime import Runtime


def database_for(settings: Settings) -> Database:
    """A new handle on ``settings.database_url``."""
    return Database.open(settings.database_url)


def runtime_for(settings: Settings, **parts: Any) -> Runtime:
    """``Runtime.from_settings(settings, **parts)``: its clients and its own database."""
    return Runtime.from_settings(settings, **parts)

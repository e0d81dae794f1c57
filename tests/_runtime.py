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

# Every handle opened here, so that the suite closes each at the end of the test that
# opened it (tests/conftest.py): 5,000 tests leaving their pools open ran the process out
# of file descriptors ("filedescriptor out of range in select()").
OPENED: list[Database] = []


def database_for(settings: Settings) -> Database:
    """A new handle on ``settings.database_url`` (closed when the test ends)."""
    database = Database.open(settings.database_url)
    OPENED.append(database)
    return database


def runtime_for(settings: Settings, **parts: Any) -> Runtime:
    """``Runtime.from_settings(settings, **parts)``: its clients and its own database
    (closed when the test ends, unless ``parts`` gave the database)."""
    runtime = Runtime.from_settings(settings, **parts)
    if "database" not in parts:
        OPENED.append(runtime.database)
    return runtime


def close_opened(since: int) -> None:
    """Close the handles opened after the first ``since`` (a closed handle reopens if used)."""
    while len(OPENED) > since:
        OPENED.pop().dispose()

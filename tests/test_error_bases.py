"""Every exception a package's errors.py defines derives from that package's base.

Like httpx's "every exception is mapped" test: walks the errors modules found on
disk (not a hand-kept list of classes), so a new error class or a new package is
checked the day it appears. The base of each package is named below; a package
with an errors module and no entry here fails until it gets one.
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import pytest

from cfnops.errors import CfnopsError

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "cfnops"

BASES = {
    "ami": "AmiError",
    "asl": "AslError",
    "console": "ConsoleError",
    "database": "DatabaseError",
    "diff": "DiffError",
    "durable": "DurableError",
    "eventpatterns": "EventPatternError",
    "guard": "GuardError",
    "heal": "HealError",
    "jobimport": "JobImportError",
    "jobs": "JobsError",
    "notify": "NotifyError",
    "sandbox": "SandboxError",
    "schedules": "SchedulesError",
    "schemas": "SchemasError",
    "templates": "TemplateError",
    "worker": "WorkerError",
}

# ASL runtime failures are data (STYLE.md 4): these two only carry an error name and
# cause to the nearest Catch inside the interpreter and never reach a caller.
INTERNAL_SIGNALS = {"cfnops.asl.errors.StatesFailure", "cfnops.asl.errors.TaskFailure"}

PACKAGES = sorted(p.parent.name for p in PACKAGE.glob("*/errors.py"))


def _defined_exceptions(module: object) -> list[type[BaseException]]:
    name = getattr(module, "__name__", "")
    return [
        obj
        for _, obj in inspect.getmembers(module, inspect.isclass)
        if issubclass(obj, BaseException) and obj.__module__ == name
    ]


def test_every_package_with_errors_names_its_base() -> None:
    assert set(PACKAGES) == set(BASES), "name the base class of each package in BASES"


@pytest.mark.parametrize("package", PACKAGES)
def test_errors_derive_from_the_package_base(package: str) -> None:
    module = importlib.import_module(f"cfnops.{package}.errors")
    base = getattr(module, BASES[package])
    assert issubclass(base, CfnopsError)
    strays = [
        cls.__qualname__
        for cls in _defined_exceptions(module)
        if not issubclass(cls, base)
        and f"{cls.__module__}.{cls.__qualname__}" not in INTERNAL_SIGNALS
    ]
    assert strays == [], f"cfnops.{package}.errors: derive {strays} from {BASES[package]}"


@pytest.mark.parametrize("package", PACKAGES)
def test_exit_codes_survive_the_package_base(package: str) -> None:
    """A base under CfnopsError must not turn a usage error (exit 2) into a failure (1)."""
    from cfnops.errors import ExitCode, UsageError

    module = importlib.import_module(f"cfnops.{package}.errors")
    for cls in _defined_exceptions(module):
        if issubclass(cls, UsageError):
            assert cls.exit_code == ExitCode.USAGE, cls.__qualname__

"""cfnops._lazy: a package's exports loaded on first use, from one table."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from cfnops._lazy import lazy_exports


def _package() -> dict[str, Any]:
    namespace: dict[str, Any] = {"__all__": ["parse_schedule", "InvalidSchedule"]}
    table = {
        "parse_schedule": "_expressions",  # a submodule of the package
        "load": "cfnops.templates:load_template",  # a module of its own, another name
    }
    getattr_, dir_ = lazy_exports("cfnops.schedules", table, namespace)
    namespace["__getattr__"], namespace["__dir__"] = getattr_, dir_
    return namespace


def test_a_name_is_imported_on_first_use_and_kept() -> None:
    ns = _package()
    from cfnops.schedules._expressions import parse_schedule
    from cfnops.templates import load_template

    assert ns["__getattr__"]("parse_schedule") is parse_schedule
    assert ns["parse_schedule"] is parse_schedule  # the next access is a plain lookup
    assert ns["__getattr__"]("load") is load_template


def test_an_unknown_name_is_an_attribute_error_naming_the_package() -> None:
    with pytest.raises(AttributeError, match=r"module 'cfnops\.schedules' has no attribute 'nope'"):
        _package()["__getattr__"]("nope")


def test_dir_lists_the_namespace_all_and_table() -> None:
    names = _package()["__dir__"]()
    assert {"parse_schedule", "InvalidSchedule", "load", "__all__"} <= set(names)
    assert names == sorted(names)


def test_the_packages_using_it_answer_dir_and_getattr() -> None:
    import cfnops.cli
    import cfnops.jobs

    assert "entry" in dir(cfnops.cli) and "Schedule" in dir(cfnops.jobs)
    assert cfnops.jobs.Schedule is sys.modules["cfnops.schedules._expressions"].Schedule
    with pytest.raises(AttributeError, match=r"'cfnops\.jobs' has no attribute 'Nope'"):
        _ = cfnops.jobs.Nope  # type: ignore[attr-defined]

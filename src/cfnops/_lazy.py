"""A package's exports loaded on first use (PEP 562), from one table.

A package whose public names live in submodules it should not import up front (they
bring SQLAlchemy, boto3 or the Durable Execution SDK) names them in a table and asks
for its module ``__getattr__`` and ``__dir__``::

    _WHERE = {"RunStore": "_runs", "Schedule": "cfnops.schedules", "entry": "_entry:main"}
    __getattr__, __dir__ = lazy_exports(__name__, _WHERE, globals())

A value is a submodule of the package (``"_runs"``), or a module of its own when it has
a dot (``"cfnops.schedules"``); ``module:attribute`` hands out another attribute name.
The value found is kept in the package's namespace, so the next access is a plain lookup.

``scripts/build_lambda.py`` follows these tables: a package that calls
:func:`lazy_exports` brings every module the Lambda package can reach through it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, where: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of ``package`` for the names in ``where``."""
    table = dict(where)

    def __getattr__(name: str) -> Any:
        target = table.get(name)
        if target is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attribute = target.partition(":")
        if "." not in module:
            module = f"{package}.{module}"
        value = getattr(importlib.import_module(module), attribute or name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *namespace.get("__all__", ()), *table})

    return __getattr__, __dir__

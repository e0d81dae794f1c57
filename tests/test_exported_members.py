"""The public names of cfnops's top-level modules and Lambda entry points, pinned.

Each package pins its own ``__all__`` in ``tests/<package>/test_exported_members.py``;
these are the modules outside a package of their own that declare one (a change here
is an API change), and the Lambda handler modules the deploy templates name.
"""

from __future__ import annotations

import importlib

import pytest

PINNED = {
    "cfnops.builtin_workflows": ["BUILTIN", "register_all"],
    "cfnops.http": ["HttpRequest", "HttpResponse", "HttpTransport"],
    "cfnops.logcontext": ["FIELDS", "JsonFormatter", "bind", "bound", "carry", "current", "reset"],
    "cfnops.runtime": ["Runtime"],
    "cfnops.telemetry": ["Metrics", "STEP_BUCKETS"],
    "cfnops.tracing": ["carry", "enabled", "event", "run_root", "run_span", "setup", "span"],
    "cfnops.lambda_handlers.ami": ["parameter_handler", "stack_handler"],
    "cfnops.lambda_handlers.heal": ["handler", "handler_for"],
}


@pytest.mark.parametrize(("module", "names"), PINNED.items(), ids=list(PINNED))
def test_exports_are_pinned(module: str, names: list[str]) -> None:
    found = importlib.import_module(module)
    assert sorted(found.__all__) == names
    assert len(set(found.__all__)) == len(found.__all__)
    for name in found.__all__:
        assert getattr(found, name) is not None, name

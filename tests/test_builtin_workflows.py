"""The engine registers nothing by itself; the places that start engines register
the built-in workflows (heal, ami, jobs) by name, loading each capability when a run
of it needs its code; demo workflows only on request."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

PROBE = """
import json, sys
import cfnops.durable
from cfnops.durable import registered
bare = registered()
def capabilities():
    return sorted(m for m in sys.modules if m.split(".")[1:2] and m.split(".")[1] in
                  ("heal", "ami", "jobs", "demo", "sandbox") and m.startswith("cfnops."))
loaded = capabilities()
from cfnops.builtin_workflows import register_all
register_all()
after_register = capabilities()
from cfnops.durable._registry import get_workflow
fns = {name: get_workflow(name).__module__ for name in registered()}
print(json.dumps({"bare": bare, "loaded": loaded, "builtin": registered(),
                  "after_register": after_register, "fns": fns,
                  "sdk": "aws_durable_execution_sdk_python" in sys.modules,
                  "demo": "cfnops.demo.workflows" in sys.modules}))
"""


def test_engine_alone_registers_nothing_and_register_all_brings_the_capabilities() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, check=True
    )
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["bare"] == [] and out["loaded"] == []
    from cfnops.ami import ROTATE_STACK_WORKFLOW
    from cfnops.heal import HEAL_WORKFLOW
    from cfnops.jobs import WORKFLOW

    assert {HEAL_WORKFLOW, ROTATE_STACK_WORKFLOW, WORKFLOW} <= set(out["builtin"])
    assert "cfnops.sample" not in out["builtin"] and out["demo"] is False
    # registering by name imports no capability; asking for a workflow loads its own
    assert out["after_register"] == []
    assert out["fns"][HEAL_WORKFLOW].startswith("cfnops.heal.")
    assert out["fns"][ROTATE_STACK_WORKFLOW].startswith("cfnops.ami.")
    assert out["fns"][WORKFLOW].startswith("cfnops.jobs.")


def test_the_names_are_the_capabilities_own() -> None:
    import importlib

    from cfnops.builtin_workflows import BUILTIN

    for name, (module, attribute) in BUILTIN.items():
        assert getattr(importlib.import_module(module), attribute) == name


def test_a_lazily_registered_name_that_disagrees_with_its_module_fails_loudly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from cfnops.durable import _registry, register_lazily

    monkeypatch.setattr(_registry, "_deferred", dict(_registry._deferred))
    register_lazily("cfnops.test.misnamed", "cfnops.heal", "HEAL_WORKFLOW")
    with pytest.raises(ValueError, match=r"registered lazily as 'cfnops\.test\.misnamed'"):
        _registry.get_workflow("cfnops.test.misnamed")

"""The engine registers nothing by itself; the places that start engines register
the built-in workflows (heal, ami, jobs); demo workflows only on request."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, sys
import cfnops.durable
from cfnops.durable import registered
bare = registered()
loaded = sorted(m for m in sys.modules if m.split(".")[1:2] and m.split(".")[1] in
                ("heal", "ami", "jobs", "demo", "sandbox") and m.startswith("cfnops."))
from cfnops.builtin_workflows import register_all
register_all()
print(json.dumps({"bare": bare, "loaded": loaded, "builtin": registered(),
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

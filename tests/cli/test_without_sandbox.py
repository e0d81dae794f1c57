"""Without the ``sandbox`` extra (moto): everything but the sandbox imports and runs;
commands that need the sandbox say how to install it (exit 2)."""

from __future__ import annotations

import json
import subprocess
import sys

BLOCKED = ("moto", "flask", "flask_cors", "werkzeug")

PROBE = f"""
import importlib, json, pkgutil, sys
for name in {BLOCKED!r}:
    sys.modules[name] = None  # as if not installed: importing it raises ModuleNotFoundError
import cfnops
failed = []
for m in pkgutil.walk_packages(cfnops.__path__, "cfnops."):
    if m.name.startswith(("cfnops.sandbox.", "cfnops.demo.")):
        continue  # the sandbox and the demos need moto, by design
    try:
        importlib.import_module(m.name)
    except ImportError as exc:
        failed.append([m.name, str(exc)])
from cfnops.cli.main import run
codes = {{"help": run(["--help"]), "demo": run(["demo", "heal"])}}
sys.stdout.write("\\nRESULT " + json.dumps({{"failed": failed, "codes": codes}}) + "\\n")
"""


def test_core_imports_and_sandbox_commands_explain_the_extra() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.rsplit("RESULT ", 1)[1])
    assert result["failed"] == [], "these need moto: move them to the sandbox or demo"
    assert result["codes"] == {"help": 0, "demo": 2}
    assert "pip install 'cfnops[sandbox]'" in done.stderr

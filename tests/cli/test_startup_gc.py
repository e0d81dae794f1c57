"""The cyclic collector is off while a ``cfnops`` process starts, on once it runs on."""

from __future__ import annotations

import subprocess
import sys

# what the process entry point does, then the collector's state when the command ends
AT_EXIT = """
import atexit, gc, sys
atexit.register(lambda: print("collecting:", gc.isenabled(), file=sys.stderr))
sys.argv = ["cfnops", "--version"]
from cfnops.cli._entry import main
main()
"""

LONG_RUNNING = """
import gc
from cfnops.cli._heap import collect_after_startup
timer = collect_after_startup(0.2)
during = gc.isenabled()
timer.join(5)
print(during, gc.isenabled(), timer.daemon)
"""


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )


def test_a_short_command_never_collects() -> None:
    done = _python(AT_EXIT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("cfnops ")
    assert "collecting: False" in done.stderr


def test_a_command_still_running_after_start_up_collects_again() -> None:
    done = _python(LONG_RUNNING)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True", "True"]

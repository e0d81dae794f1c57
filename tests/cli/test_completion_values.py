"""Top-level shell completion offers the values of choice options."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path


def _complete(words: str) -> list[str]:
    exe = shutil.which("cfnops", path=str(Path(sys.executable).parent)) or "cfnops"
    env = dict(os.environ, COMP_WORDS=words, COMP_CWORD=str(len(words.split(" ")) - 1))
    env["_CFNOPS_COMPLETE"] = "complete_bash"
    done = subprocess.run([exe], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_output_and_log_format_values_complete() -> None:
    assert _complete("cfnops --output ") == ["text", "json", "markdown"]
    assert _complete("cfnops -o j") == ["json"]
    assert _complete("cfnops --log-format ") == ["text", "json"]

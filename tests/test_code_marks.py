"""The code stays readable: few long functions, few tangled ones (issue #38's marks).

Measured the way docs/architecture.md states them: a function's length is its lines from
``def`` to its last line (decorators excluded), and its tangle is McCabe's complexity as
ruff's C901 counts it. The ceilings only ever go down: a change that adds a long or a
tangled function must split one, and the failure names the offenders.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "cfnops"

LONG_LINES = 80  # a function longer than this is "long"
MOST_LONG = 0  # how many long functions src may hold (23 before issue #38)
COMPLEXITY = 12  # McCabe above this is "tangled"
MODULE_LINES = 600  # no module of src is longer (STYLE.md)
MOST_TANGLED = 8  # how many tangled functions src may hold (58 before issue #38)


def long_functions(root: Path = SRC) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > LONG_LINES:
                    found.append(
                        f"{path.relative_to(root.parent)}:{node.lineno} {node.name} ({lines})"
                    )
    return found


def tangled_functions(root: Path = SRC) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", str(root), "--select", "C901", "--no-cache",
         "--config", f"lint.mccabe.max-complexity={COMPLEXITY}", "--output-format", "concise",
         "--exit-zero", "--quiet"],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    return [line for line in done.stdout.splitlines() if "C901" in line]


def test_the_measures_see_what_they_count(tmp_path: Path) -> None:
    body = "\n".join(f"    if x == {i}:\n        return {i}" for i in range(45))
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(
        f"def big(x):\n{body}\n    return -1\n\n\ndef small():\n    return 0\n"
    )
    assert [f.split(" ")[1] for f in long_functions(tmp_path / "pkg")] == ["big"]
    [tangled] = tangled_functions(tmp_path / "pkg")
    assert "`big` is too complex (46 > 12)" in tangled


def test_few_long_functions() -> None:
    found = long_functions()
    assert len(found) <= MOST_LONG, "\n".join(found)


def test_few_tangled_functions() -> None:
    found = tangled_functions()
    assert len(found) <= MOST_TANGLED, "\n".join(found)


def test_no_module_over_600_lines() -> None:
    found = [
        f"{path.relative_to(SRC.parent)} ({n})"
        for path in sorted(SRC.rglob("*.py"))
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MODULE_LINES
    ]
    assert found == []

"""docs/migrate.md's worked example runs as written and shows its real output
(scripts/gen_migrate_docs.py runs the commands; the page must be what it writes)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "gen_migrate_docs.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_migrate_docs", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_worked_example_output_is_the_real_one() -> None:
    gen = _script()
    current = gen.DOC.read_text(encoding="utf-8")
    assert gen.RUN in current and gen.HOSTS in current
    assert current == gen.render(current), "run: python scripts/gen_migrate_docs.py"

"""The embedding API that docs/architecture.md promises is what the packages export."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"
ROW = re.compile(r"^\| `(?P<name>\w+)` \| `(?P<module>[\w.]+)` \| (?P<what>.+) \|$")


def documented() -> list[tuple[str, str]]:
    text = DOC.read_text(encoding="utf-8")
    table = text.split("<!-- embedding-api -->", 1)[1].split("<!-- /embedding-api -->", 1)[0]
    return [(m["name"], m["module"]) for line in table.splitlines() if (m := ROW.match(line))]


def test_every_documented_name_is_exported_where_the_table_says() -> None:
    rows = documented()
    assert 15 <= len(rows) <= 25, "the embedding API is about twenty names"
    assert len({name for name, _ in rows}) == len(rows)
    missing = []
    for name, module in rows:
        mod = importlib.import_module(module)
        exported = getattr(mod, "__all__", None)
        if not hasattr(mod, name) or (exported is not None and name not in exported):
            missing.append(f"{module}.{name}")
    assert missing == []


def test_no_name_comes_from_a_private_module_or_the_cli() -> None:
    for _, module in documented():
        assert not any(part.startswith("_") for part in module.split("."))
        assert not module.startswith("cfnops.cli")

"""docs/sandbox.md's Conformance section matches the extension registry and AWS's models."""

from __future__ import annotations

import re
from pathlib import Path

import botocore.session
import pytest

from cfnops.sandbox import Sandbox
from cfnops.sandbox._control import control_routes
from cfnops.sandbox.extensions import EXTENSIONS
from cfnops.schemas import load_table

PAGE = Path(__file__).resolve().parents[2] / "docs" / "sandbox.md"


def _section() -> str:
    text = PAGE.read_text()
    start = text.index("\n## Conformance\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def _subsections() -> dict[str, str]:
    parts = re.split(r"^### `([a-z0-9_]+)`\s*$", _section(), flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_every_registered_extension_has_a_subsection_and_no_other() -> None:
    assert list(_subsections()) == list(EXTENSIONS)


@pytest.mark.parametrize("name", EXTENSIONS)
def test_each_subsection_has_a_table_of_apis(name: str) -> None:
    body = _subsections()[name]
    assert "| API | faithful | approximated | missing |" in body
    rows = [line for line in body.splitlines() if line.startswith("| ") and "---" not in line]
    assert len(rows) >= 2, f"{name}: no modelled API listed"


def test_named_operations_exist_in_botocore() -> None:
    session = botocore.session.get_session()
    named = set(re.findall(r"`([a-z0-9-]+):([A-Z][A-Za-z]+)`", _section()))
    assert named, "no service:Operation named"
    missing = []
    for service, operation in sorted(named):
        model = session.get_service_model(service)
        if operation not in model.operation_names:
            missing.append(f"{service}:{operation}")
    assert missing == []


def test_named_resource_types_are_real() -> None:
    table = load_table("us-east-1")
    named = set(re.findall(r"`(AWS::[A-Za-z0-9]+::[A-Za-z0-9]+)`", _section()))
    assert named
    assert sorted(t for t in named if table.get(t) is None) == []


def test_control_routes_and_the_page_agree(cfnops_sandbox: Sandbox) -> None:
    registered = set(control_routes())
    named = set(re.findall(r"`/_cfnops/([a-z0-9-]+)`", _section()))
    assert registered - named == set(), "registered routes missing from the page"
    assert named - registered == set(), "routes on the page that nothing registers"

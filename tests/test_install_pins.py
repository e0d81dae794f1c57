"""The README's second command (``pip install -q -e '.[test]'``) must not change what the first
(``pip install -e '.[sandbox]'``) installed: no pin of the test extra may exclude the newest
version that cfnops's own pins allow."""

from __future__ import annotations

import importlib.metadata as metadata
import re

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version


def _ours(name: str) -> SpecifierSet:
    for raw in metadata.requires("cfnops") or []:
        req = Requirement(raw)
        if req.name.lower() == name and req.marker is None:
            return req.specifier
    raise AssertionError(f"cfnops does not require {name}")


def _upper_bounds(spec: SpecifierSet) -> list[Version]:
    bounds = []
    for item in spec:
        if item.operator == "<":
            bounds.append(Version(item.version))
        elif item.operator == "~=":  # ~=2.13.3 means <2.14
            parts = item.version.split(".")[:-1]
            parts[-1] = str(int(parts[-1]) + 1)
            bounds.append(Version(".".join(parts)))
    return bounds


def test_the_test_extra_cannot_move_a_core_dependency() -> None:
    """Each test-extra package's bound on a core dependency is one cfnops's own pin keeps."""
    core = {"pydantic", "msgspec", "boto3", "typer", "rich", "pyyaml"}
    checked = 0
    for dist in (
        "aws-sam-translator",
        "aws-durable-execution-sdk-python-testing",
        "playwright",
        "build",
        "twine",
    ):
        for raw in metadata.requires(dist) or []:
            req = Requirement(raw)
            name = re.sub(r"[-_.]+", "-", req.name.lower())
            if name not in core or req.marker is not None:
                continue
            for bound in _upper_bounds(req.specifier):
                assert bound not in _ours(name), (
                    f"{dist} needs {req}: cfnops's own pin {_ours(name)} lets the first "
                    f"install take {bound} or later, which the test extra would then downgrade"
                )
                checked += 1
    assert checked >= 1  # aws-sam-translator's pydantic pin at least


def test_the_readme_names_every_package_the_test_extra_adds() -> None:
    """The README says what `.[test]` installs: each of its direct requirements is named."""
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    paragraph = readme.split("The second command adds", 1)[1].split("\n\n", 1)[0]
    names = {"aws-durable-execution-sdk-python-testing": "Durable Execution SDK's test runner"}
    checked = []
    for raw in metadata.requires("cfnops") or []:
        req = Requirement(raw)
        if req.marker is None or 'extra == "test"' not in str(req.marker):
            continue
        if req.name == "cfnops":  # the extras it pulls in: `sam` and `otel` are named
            assert all(f"`{e}`" in paragraph for e in req.extras - {"sandbox"}), paragraph
            continue
        checked.append(req.name)
        assert names.get(req.name, req.name).lower() in paragraph.lower(), req.name
    assert len(checked) > 10, checked

"""DBOS internals cfnops relies on (durable/_dbos_port.py) are still there, as used.

When this fails after a DBOS upgrade, the message says what changed: adapt
``_dbos_port.py`` (and re-run the crash tests) before widening the pin.
"""

from __future__ import annotations

import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet

from cfnops.durable import _dbos_port

ROOT = Path(__file__).resolve().parents[2]


def test_the_installed_dbos_offers_what_the_port_uses() -> None:
    assert _dbos_port.check_dbos() == version("dbos")


def test_the_pin_allows_only_tested_dbos_releases() -> None:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (pin,) = [d for d in deps if d.startswith("dbos")]
    spec = SpecifierSet(pin[len("dbos") :])
    assert version("dbos") in spec
    # the pin stays within the minor releases the port was checked against
    for tested in _dbos_port.TESTED_DBOS:
        assert f"{tested}.0" in spec
    assert "3.5.0" not in spec and "4.0.0" not in spec, f"{pin}: widen only after checking"


def test_a_changed_dbos_fails_loudly_naming_what(monkeypatch: pytest.MonkeyPatch) -> None:
    from dbos import _sys_db

    def reenqueue_for_recovery(self: object, workflow_id: str, executors: list[str]) -> bool:
        return False

    monkeypatch.setattr(_sys_db.SystemDatabase, "reenqueue_for_recovery", reenqueue_for_recovery)
    monkeypatch.delattr(_dbos_port.importlib.import_module("dbos._utils"), "INTERNAL_QUEUE_NAME")
    with pytest.raises(_dbos_port.DbosIncompatible) as err:
        _dbos_port.check_dbos()
    message = str(err.value)
    assert "reenqueue_for_recovery takes" in message
    assert "INTERNAL_QUEUE_NAME is gone" in message
    assert "_dbos_port.py" in message and version("dbos") in message

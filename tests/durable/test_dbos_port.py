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
    import sqlalchemy as sa
    from dbos import _dbos, _sys_db

    class Renamed:  # owner_xid renamed: the fence's plain SQL would name a missing column
        workflow_status = sa.Table(
            "workflow_status",
            sa.MetaData(),
            sa.Column("workflow_uuid", sa.Text),
            sa.Column("status", sa.Text),
            sa.Column("owner_token", sa.Text),
        )

    monkeypatch.setattr(_sys_db.SystemDatabase, "tables", Renamed)
    monkeypatch.delattr(_dbos, "_get_or_create_dbos_registry")  # read only by DBOS()
    with pytest.raises(_dbos_port.DbosIncompatible) as err:
        _dbos_port.check_dbos()
    message = str(err.value)
    assert "workflow_status table has no owner_xid" in message
    assert "dbos._dbos._get_or_create_dbos_registry is gone" in message
    assert "_dbos_port.py" in message and version("dbos") in message


_NO_DRIVER_PROBE = """
import json, sys, tempfile, pathlib
from cfnops.config import Settings
from cfnops.builtin_workflows import register_all
from cfnops.durable import Engine
from cfnops.jobs import JobService
from cfnops.runtime import Runtime
register_all()
db = pathlib.Path(tempfile.mkdtemp()) / "db.sqlite"
settings = Settings(database_url=f"sqlite:///{db}")
jobs = JobService(Runtime.from_settings(settings))
definition = {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}
run_id = jobs.start(definition, {"a": 1}, machine_name="m")
engine = Engine.current()
import time
deadline = time.time() + 60
while jobs.store.get_run(run_id).status == "RUNNING" and time.time() < deadline:
    time.sleep(0.02)
status = jobs.store.get_run(run_id).status
engine.shutdown()
driver = sorted(m for m in sys.modules if m.split(".")[0] == "psycopg")
sdk = "aws_durable_execution_sdk_python" in sys.modules
print(json.dumps({"status": status, "driver": driver, "sdk": sdk, "yaml": "yaml" in sys.modules}))
"""


def test_on_sqlite_a_job_run_loads_no_postgresql_driver_nor_the_sdk_nor_yaml() -> None:
    import json
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _NO_DRIVER_PROBE],
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    )
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out == {"status": "SUCCEEDED", "driver": [], "sdk": False, "yaml": False}


def test_dbos_reads_the_real_driver_classes_once_it_is_loaded() -> None:
    import sys

    import psycopg
    import sqlalchemy.exc
    from dbos import _sys_db, _utils

    assert _utils.psycopg.OperationalError is psycopg.OperationalError
    assert _utils.psycopg.errors.ConnectionTimeout is psycopg.errors.ConnectionTimeout
    assert _sys_db.pg_errors.LockNotAvailable is psycopg.errors.LockNotAvailable
    lost = sqlalchemy.exc.OperationalError(
        "SELECT 1", {}, psycopg.OperationalError("connection failed: server gone")
    )
    assert _utils.retriable_postgres_exception(lost) is True
    assert not [m for m in list(sys.modules.values()) if isinstance(m, _dbos_port._Deferred)]


def test_dbos_reads_yaml_through_the_real_module_once_it_is_used() -> None:
    import sys

    import yaml
    from dbos import _dbos_config

    assert _dbos_config.yaml.safe_load("a: [1, 2]") == {"a": [1, 2]}
    assert _dbos_config.yaml.safe_load is yaml.safe_load
    assert sys.modules["yaml"] is yaml and not isinstance(yaml, _dbos_port._Deferred)


def test_a_stand_in_answers_import_probes_without_loading_the_driver() -> None:
    stand_in = _dbos_port._Deferred("psycopg_not_installed_here")
    assert not hasattr(stand_in, "__path__")  # the import system's probe: no load
    with pytest.raises(ModuleNotFoundError):
        stand_in.connect  # noqa: B018  # any other name loads the real module

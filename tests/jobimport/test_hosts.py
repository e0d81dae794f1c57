"""--hosts: instance ids, tags and functions; a function-mapped job is one lambda:invoke Task."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jobimport_helpers import DATA

from cfnops.jobimport import HostTarget, ImportInputError, load_hosts, plan_import, read_export


def test_host_file_forms(tmp_path: Path) -> None:
    path = tmp_path / "hosts.yaml"
    path.write_text(
        "web01: i-0123\nweb02: [i-1, i-2]\ndb01: {tag: Role=db}\nbatch: {function: run-batch}\n"
    )
    assert load_hosts(path) == {
        "web01": HostTarget(instances=("i-0123",)),
        "web02": HostTarget(instances=("i-1", "i-2")),
        "db01": HostTarget(tag_key="Role", tag_values=("db",)),
        "batch": HostTarget(function="run-batch"),
    }
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"web01": 42}))
    with pytest.raises(ImportInputError, match="web01"):
        load_hosts(bad)


def test_function_and_tag_targets_in_the_definition() -> None:
    src = DATA / "controlm_payroll.xml"
    cal = (DATA / "controlm_defcal.xml").read_bytes()
    model = read_export(src.read_bytes(), str(src), "controlm", calendars=cal)
    hosts = {
        "paysrv01": HostTarget(function="payroll-runner"),
        "paysrv02": HostTarget(tag_key="Role", tag_values=("payroll",)),
    }
    plan = plan_import(model, str(src), hosts)
    text = json.dumps(plan.definitions["PAY_MONTHLY"])
    d = plan.definitions["PAY_MONTHLY"]
    calc = d["States"]["PAY_CALC"]  # a function: one Task, the rerun rule its own Retry
    assert calc["Resource"] == "arn:aws:states:::lambda:invoke"
    assert calc["Arguments"]["FunctionName"] == "payroll-runner"
    assert calc["Retry"][0]["MaxAttempts"] == 2
    assert '"Targets": [{"Key": "tag:Role", "Values": ["payroll"]}]' in text
    # the pool is exact for a function-mapped job: no "held while polled" note for it
    reasons = [u.reason for u in model.unmapped if "PAY_CALC holds" in u.reason]
    assert reasons == []

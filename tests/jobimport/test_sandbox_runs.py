"""Imported job-nets run: on the sandbox (RunCommand), under ``cfnops worker`` with their
schedules, a failing job follows its imported rerun rule, and ``--apply`` is idempotent."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from jobimport_helpers import DATA
from tests._runtime import runtime_for
from tests._subprocess import cfnops, wait_for, worker_env

from cfnops.aws import AwsClients
from cfnops.cli.main import run
from cfnops.config import load_settings
from cfnops.jobs import JobService, PoolStore
from cfnops.sandbox.extensions import ssm_commands

pytestmark = pytest.mark.slow

RETRY_XML = """<?xml version="1.0" encoding="UTF-8"?>
<DEFTABLE>
  <FOLDER FOLDER_NAME="NIGHTLY_LOAD" VERSION="919">
    <JOB JOBNAME="EXTRACT" TASKTYPE="Command" CMDLINE="extract.sh" NODEID="dbsrv"
         WEEKDAYS="ALL" TIMEFROM="0100"><OUTCOND NAME="EXTRACT-OK" SIGN="+"/></JOB>
    <JOB JOBNAME="LOAD" TASKTYPE="Command" CMDLINE="load.sh --all" NODEID="dbsrv"
         MAXRERUN="2" INTERVAL="00000M" WEEKDAYS="ALL" TIMEFROM="0100">
      <INCOND NAME="EXTRACT-OK"/><OUTCOND NAME="LOAD-OK" SIGN="+"/>
      <ON STMT="*" CODE="NOTOK"><DOCOND NAME="LOAD-FAILED" ODATE="ODAT" SIGN="+"/></ON>
      <SHOUT WHEN="EXECTIME" TIME="&gt;010" URGENCY="R" DEST="EM" MESSAGE="LOAD runs long"/>
    </JOB>
    <JOB JOBNAME="ROLLBACK" TASKTYPE="Command" CMDLINE="rollback.sh" NODEID="dbsrv"
         WEEKDAYS="ALL" TIMEFROM="0100"><INCOND NAME="LOAD-FAILED"/></JOB>
    <JOB JOBNAME="REPORT" TASKTYPE="Command" CMDLINE="report.sh" NODEID="dbsrv"
         WEEKDAYS="ALL" TIMEFROM="0100"><INCOND NAME="LOAD-OK"/></JOB>
  </FOLDER>
</DEFTABLE>
"""


def _instances(count: int) -> list[str]:
    ec2 = AwsClients().client("ec2")
    image = ec2.describe_images(Owners=["amazon"])["Images"][0]["ImageId"]
    made = ec2.run_instances(ImageId=image, MinCount=count, MaxCount=count)
    return [i["InstanceId"] for i in made["Instances"]]


def _hosts(tmp_path: Path, hosts: list[str]) -> Path:
    ids = _instances(len(hosts))
    path = tmp_path / "hosts.json"
    path.write_text(json.dumps(dict(zip(hosts, ids, strict=True))))
    return path


def _import(src: Path, out: Path, hosts: Path, *extra: str) -> None:
    code = run(["job", "import", str(src), "--out", str(out), "--hosts", str(hosts),
                "--today", "2026-12-01", *extra])  # fmt: skip
    assert code == 0


def _commands(job: str) -> list[dict[str, Any]]:
    """The commands sent for ``job`` (the sandbox is shared by the session's tests)."""
    found = AwsClients().client("ssm").list_commands()["Commands"]
    return [c for c in found if c.get("Comment") == f"cfnops job {job}"]


@pytest.mark.parametrize(
    ("src", "product", "hosts", "net", "extra"),
    [
        ("controlm_fin.json", "controlm", ["appsrv01"], "FIN_DAILY", []),
        ("controlm_payroll.xml", "controlm", ["glsrv"], "GL_NIGHTLY",
         ["--calendars", str(DATA / "controlm_defcal.xml")]),
        ("jp1_sales.txt", "jp1", ["salesap02"], "MONTH_CLOSE", []),
    ],
    ids=["controlm-json", "controlm-xml", "jp1"],
)  # fmt: skip
def test_imported_job_net_runs_on_the_sandbox(
    sandbox_env: dict[str, str],
    job_engine: Any,
    tmp_path: Path,
    src: str,
    product: str,
    hosts: list[str],
    net: str,
    extra: list[str],
) -> None:
    out = tmp_path / "out"
    _import(DATA / src, out, _hosts(tmp_path, hosts), "--from", product, *extra)
    report = json.loads((out / "report.json").read_text())
    jobs_n = next(n["jobs"] for n in report["jobNets"] if n["name"] == net)
    definition = json.loads((out / f"{net}.asl.json").read_text())
    jobs = JobService(runtime_for(job_engine.settings))
    for name, capacity in report["pools"].items():  # what --apply does
        PoolStore(jobs.store.engine).set(name, capacity)
    run_id = jobs.start(definition, {"pollSeconds": 0}, machine_name=net)
    result = jobs.wait(run_id, timeout=120)
    assert result.status == "SUCCEEDED", (result.error, result.cause)
    sent = [e for e in jobs.store.history(run_id) if e["type"] == "TaskScheduled"]
    sends = [e for e in sent if "sendCommand" in json.dumps(e)]
    dummies = sum(1 for s in json.dumps(definition).split('"Type": "Pass"')[1:])
    assert len(sends) >= jobs_n - dummies  # every command job sent its command once


def test_worker_runs_the_schedules_and_the_rerun_rule(
    sandbox_env: dict[str, str], tmp_path: Path
) -> None:
    src = tmp_path / "nightly.xml"
    src.write_text(RETRY_XML)
    hosts = _hosts(tmp_path, ["dbsrv"])
    db = tmp_path / "jobs.sqlite"
    env = worker_env(db, **sandbox_env)
    out = tmp_path / "out"
    args = ["job", "import", str(src), "--from", "controlm", "--out", str(out), "--hosts",
            str(hosts), "--poll-seconds", "0", "--apply", "--output", "json"]  # fmt: skip
    first = _cli_json(env, args)
    again = _cli_json(env, args)  # --apply twice: the same rows, nothing added
    assert first["applied"] == again["applied"]
    jobs = JobService(runtime_for(load_settings(database_url=f"sqlite:///{db}")))
    rows = jobs.store.list_schedules()
    assert [r["name"] for r in rows] == ["NIGHTLY_LOAD"]
    assert rows[0]["expression"] == "cron(0 1 * * ? *)"
    assert json.loads(rows[0]["options"])["expected"] == 600  # SHOUT EXECTIME >010

    ssm_commands.set_outcome(command=r"load\.sh", exit_code=1, stderr="ORA-00060: deadlock")
    row = rows[0]
    assert jobs.store.advance_schedule(row["name"], row["next_fire"], time.time() - 1)
    worker = cfnops(env, "worker")
    try:
        wait_for(lambda: _ended(jobs), timeout=120, what="the scheduled run to end")
    finally:
        worker.send_signal(signal.SIGTERM)
        output = worker.communicate(timeout=60)
    assert worker.returncode == 0, output
    (ended,) = [r for r in jobs.store.list_runs() if r.machine_name == "NIGHTLY_LOAD"]
    assert ended.status == "FAILED" and ended.error == "Job.Failed"
    assert len(_commands("NIGHTLY_LOAD/LOAD")) == 3  # the first run and MAXRERUN=2 reruns
    assert len(_commands("NIGHTLY_LOAD/REPORT")) == 0  # REPORT waits for LOAD
    assert len(_commands("NIGHTLY_LOAD/EXTRACT")) == 1
    assert len(_commands("NIGHTLY_LOAD/ROLLBACK")) == 1  # ON NOTOK DOCOND: the Catch path


def _ended(jobs: JobService) -> bool:
    runs = [r for r in jobs.store.list_runs() if r.machine_name == "NIGHTLY_LOAD"]
    return bool(runs) and runs[0].status != "RUNNING"


def _cli_json(env: dict[str, str], args: list[str]) -> dict[str, Any]:
    proc = cfnops(env, *args)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    return json.loads(stdout)  # type: ignore[no-any-return]

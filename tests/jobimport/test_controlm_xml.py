"""Control-M XML DEFTABLE: INCOND/OUTCOND, CONFCAL/SHIFT with a DEFCAL calendar, a
quantitative and a control resource, SHOUT/ON-DO, entities, and a non-series-parallel folder."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from jobimport_helpers import DATA, fire_days, report

from cfnops.cli.main import run
from cfnops.jobimport import ended_before

SRC = DATA / "controlm_payroll.xml"
CAL = DATA / "controlm_defcal.xml"


@pytest.fixture
def out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    target = tmp_path / "imported"
    code = run(
        [
            "job",
            "import",
            str(SRC),
            "--from",
            "controlm",
            "--calendars",
            str(CAL),
            "--out",
            str(target),
            "--today",
            "2026-12-01",
        ]
    )
    assert code == 0, capsys.readouterr().err
    return target


def test_jobs_conditions_and_resources(out: Path) -> None:
    nets = {n["name"]: n for n in report(out)["jobNets"]}
    assert {k: v["jobs"] for k, v in nets.items()} == {"PAY_MONTHLY": 6, "GL_NIGHTLY": 4}
    assert report(out)["pools"] == {"DB_CONN": 2, "BANK_LINK": 1}
    d = json.loads((out / "PAY_MONTHLY.asl.json").read_text())
    before = ended_before(d)
    p = "PAY_MONTHLY/"
    assert before[p + "PAY_CALC"] >= {p + "PAY_EXTRACT"}
    assert before[p + "PAY_SLIPS"] >= {p + "PAY_CALC"}
    assert before[p + "PAY_DONE"] >= {p + "PAY_SLIPS", p + "PAY_BANK"}
    assert p + "PAY_BANK" not in before[p + "PAY_SLIPS"]  # exact: they run side by side
    calc = d["States"]["PAY_CALC.Rerun"]["Branches"][0]["States"]["PAY_CALC"]
    # entities decoded, the job variable substituted, the user switched
    assert calc["Arguments"]["Parameters"]["commands"] == [
        "su - payroll -c '/opt/pay/bin/calc.sh --month current > /var/log/pay/calc.log 2>&1'"
    ]
    assert "cfnops:pool=DB_CONN" in calc["Comment"]
    assert d["States"]["PAY_CALC.Rerun"]["Retry"][0]["MaxAttempts"] == 2
    assert "PAY_BANK.Confirm" in json.dumps(d)  # CONFIRM=1: a held start
    # ON NOTOK DOCOND PAY_BANK-FAILED + a job waiting only for it: a Catch path
    bank = json.dumps(d)
    assert '"Catch": [{"ErrorEquals": ["States.ALL"], "Next": "PAY_BANK_RECOVER"}]' in bank
    assert p + "PAY_BANK" not in before[p + "PAY_BANK_RECOVER"]
    assert before[p + "PAY_BANK_RECOVER"] >= {p + "PAY_CALC"}


def test_confcal_shift_fire_dates_2027(out: Path) -> None:
    (sched,) = next(n for n in report(out)["jobNets"] if n["name"] == "PAY_MONTHLY")["schedules"]
    assert (sched["cron"], sched["dayRule"]) == ("cron(0 7 1,15 * ? *)", "next-open")
    # SHOUT EXECTIME >045 and LATETIME 1000: the job-net's delay monitoring
    assert (sched["expected"], sched["deadline"]) == ("45m", "10:00")
    # By hand: the 1st and 15th; Jan 1 (holiday) -> Jan 4, May 1 (Sat) -> May 6 (May 3-5
    # holidays), May 15 (Sat) -> May 17, Aug 1 (Sun) -> Aug 2, Aug 15 (Sun) -> Aug 16.
    expected = [
        (1, 4),
        (1, 15),
        (2, 1),
        (2, 15),
        (3, 1),
        (3, 15),
        (4, 1),
        (4, 15),
        (5, 6),
        (5, 17),
        (6, 1),
        (6, 15),
        (7, 1),
        (7, 15),
        (8, 2),
        (8, 16),
        (9, 1),
        (9, 15),
        (10, 1),
        (10, 15),
        (11, 1),
        (11, 15),
        (12, 1),
        (12, 15),
    ]
    assert fire_days(out, sched, 2027) == [date(2027, m, d) for m, d in expected]


def test_non_series_parallel_folder_keeps_every_dependency(out: Path) -> None:
    d = json.loads((out / "GL_NIGHTLY.asl.json").read_text())
    before = ended_before(d)
    p = "GL_NIGHTLY/"
    assert before[p + "GL_C"] >= {p + "GL_A", p + "GL_B"}
    assert before[p + "GL_D"] >= {p + "GL_B"}
    rep = report(out)
    assert any("GL_D also waits for GL_NIGHTLY/GL_A" in u["reason"] for u in rep["unmapped"])
    assert any("GL_EXTERNAL-READY" in u["reason"] for u in rep["unmapped"])
    assert any("SYSOUT_OPTION" in u["reason"] for u in rep["unmapped"])


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('<?xml version="1.0"?><DEFTABLE><FOLDER FOLDER_NAME="F"><JOB JOBNAME="A"', "line 1"),
        ("<html><body>hello</body></html>", "/html"),
        (
            '<DEFTABLE><FOLDER FOLDER_NAME="F" VERSION="12.1">'
            '<JOB JOBNAME="A"/></FOLDER></DEFTABLE>',
            "@VERSION",
        ),
    ],
    ids=["truncated", "not-an-export", "unknown-version"],
)
def test_bad_input_exits_2_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, where: str
) -> None:
    src = tmp_path / "bad.xml"
    src.write_text(text)
    out = tmp_path / "out"
    assert run(["job", "import", str(src), "--from", "controlm", "--out", str(out)]) == 2
    assert where in capsys.readouterr().err
    assert not out.exists()


LATIN1 = """<?xml version="1.0" encoding="ISO-8859-1"?>
<!--Exported at 01-12-2026 09:00:00-->
<DEFTABLE xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
          xsi:noNamespaceSchemaLocation="Folder.xsd">
  <FOLDER DATACENTER="CTMPROD" VERSION="919" PLATFORM="UNIX" FOLDER_NAME="FACTURACIÓN" TYPE="1">
    <JOB JOBNAME="CARGA" TASKTYPE="Command" NODEID="srv01" RUN_AS="app" DESCRIPTION="Carga diaria"
         CMDLINE="run.sh %%OPTS" JAN="1" FEB="1" MAR="1" APR="1" MAY="1" JUN="1" JUL="1" AUG="1"
         SEP="1" OCT="1" NOV="1" DEC="1" SHIFT="Ignore Job" SHIFTNUM="+00" PRIORITY="AA">
      <VARIABLE NAME="%%OPTS" VALUE="-o %%ORDERID --año"/>
      <OUTCOND NAME="CARGA-OK" ODATE="ODAT" SIGN="+"/>
      <ON PGMST="ANYSTEP" PROCST="" CODES="NOTOK" AND_OR="O">
        <DOSHOUT URGENCY="R" DEST="OPER2" MESSAGE="%%JOBNAME ENDED NOTOK"/>
      </ON>
      <ON STMT="*" CODE="OK"><DOFORCEJOB TABLE_NAME="OTRA" NAME="J2" ODATE="ODAT"/></ON>
    </JOB>
  </FOLDER>
</DEFTABLE>
"""


def test_latin1_export_without_days(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Encoding from the XML declaration; a job with months but no days is not scheduled;
    a variable naming a system variable; ON CODES (z/OS spelling); DOFORCEJOB of a folder
    not in the export reported."""
    src = tmp_path / "latin.xml"
    src.write_bytes(LATIN1.encode("latin-1"))
    out = tmp_path / "out"
    assert run(["job", "import", str(src), "--from", "controlm", "--out", str(out)]) == 0
    rep = report(out)
    (net,) = rep["jobNets"]
    assert net["name"] == "FACTURACIÓN" and net["schedules"] == []
    text = (out / "FACTURACIÓN.asl.json").read_text(encoding="utf-8")
    assert "run.sh -o %%ORDERID --año" in text
    reasons = " ".join(u["reason"] for u in rep["unmapped"])
    assert "%%ORDERID" in reasons and "forces a job of OTRA" in reasons
    assert "no scheduling criteria" in reasons
    assert rep["notify"][0]["destination"] == "OPER2"


def test_repeated_job_names_in_a_folder_are_both_kept(tmp_path: Path) -> None:
    text = (
        '<DEFTABLE><FOLDER FOLDER_NAME="F"><JOB JOBNAME="A" TASKTYPE="Command" CMDLINE="a1">'
        '<OUTCOND NAME="A1-OK" SIGN="+"/></JOB><JOB JOBNAME="A" TASKTYPE="Command" CMDLINE="a2">'
        '<INCOND NAME="A1-OK"/></JOB></FOLDER></DEFTABLE>'
    )
    src = tmp_path / "dup.xml"
    src.write_text(text)
    out = tmp_path / "out"
    assert run(["job", "import", str(src), "--from", "controlm", "--out", str(out)]) == 0
    assert report(out)["jobNets"][0]["jobs"] == 2
    d = json.loads((out / "F.asl.json").read_text())
    assert ended_before(d)["F/#2/A"] == {"F/A"}
    assert d["States"]["#2/A"]["Comment"].startswith("cfnops:job=F/#2/A")


def test_forcing_a_job_of_another_folder_becomes_after(tmp_path: Path) -> None:
    text = (
        '<DEFTABLE><FOLDER FOLDER_NAME="A"><JOB JOBNAME="A1" TASKTYPE="Command" CMDLINE="a"'
        ' WEEKDAYS="1" TIMEFROM="0100"><ON STMT="*" CODE="OK"><DOFORCEJOB TABLE_NAME="B"'
        ' NAME="B1" ODATE="ODAT"/></ON></JOB></FOLDER><FOLDER FOLDER_NAME="B">'
        '<JOB JOBNAME="B1" TASKTYPE="Command" CMDLINE="b"/></FOLDER></DEFTABLE>'
    )
    src = tmp_path / "force.xml"
    src.write_text(text)
    out = tmp_path / "out"
    assert run(["job", "import", str(src), "--from", "controlm", "--out", str(out)]) == 0
    nets = {n["name"]: n for n in report(out)["jobNets"]}
    assert nets["B"]["schedules"][0]["after"] == ["A"]
    assert nets["A"]["schedules"][0]["cron"] == "cron(0 1 ? * MON *)"


CHAINED = """<?xml version="1.0" encoding="utf-8"?>
<DEFTABLE>
  <FOLDER FOLDER_NAME="CHAIN">
    <JOB JOBNAME="J" TASKTYPE="Command" NODEID="h1" RUN_AS="app"
         CMDLINE="run.py '%%P5' %%DIR./x.log %%LOOP">
      <VARIABLE NAME="%%P1" VALUE="%%$CALCDATE %%$OYEAR.%%OMONTH.01 -1"/>
      <VARIABLE NAME="%%P2" VALUE="%%SUBSTR %%P1 1 4"/>
      <VARIABLE NAME="%%P3" VALUE="%%SUBSTR %%P1 5 2"/>
      <VARIABLE NAME="%%P4" VALUE="%%P3"/>
      <VARIABLE NAME="%%P5" VALUE="%%P2-%%P4"/>
      <VARIABLE NAME="%%DIR" VALUE="/var/log"/>
      <VARIABLE NAME="%%LOOP" VALUE="a%%LOOP%%LOOP"/>
    </JOB>
  </FOLDER>
</DEFTABLE>
"""


def test_variables_chained_deeper_than_three_and_functions_reported(tmp_path: Path) -> None:
    """A value naming a variable whose value names another, five deep (as in exports that
    build a date with %%SUBSTR): all substituted, and every %%name still in the command is
    reported: AutoEdit functions, system variables, %%P2- read as %%P2 then '-', a variable
    naming itself. '.' ends a name and is dropped (%%DIR./x.log)."""
    src = tmp_path / "chain.xml"
    src.write_text(CHAINED)
    out = tmp_path / "out"
    assert run(["job", "import", str(src), "--from", "controlm", "--out", str(out)]) == 0
    state = json.loads((out / "CHAIN.asl.json").read_text())["States"]["J"]
    (command,) = state["Arguments"]["Parameters"]["commands"]
    date = "%%$CALCDATE %%$OYEAR.%%OMONTH.01 -1"
    assert f"%%SUBSTR {date} 1 4-%%SUBSTR {date} 5 2" in command
    assert "/var/log/x.log" in command
    assert "%%P" not in command
    reasons = [u["reason"] for u in report(out)["unmapped"] if u["kind"] == "value"]
    text = "\n".join(reasons)
    assert "AutoEdit function %%SUBSTR is not evaluated" in text
    assert "AutoEdit function %%$CALCDATE is not evaluated" in text
    assert "variable %%$OYEAR is a Control-M system or global variable" in text
    assert "variable %%OMONTH is a Control-M system or global variable" in text
    assert "%%P2- read as the variable %%P2 followed by text" in text
    assert "variable %%LOOP is still in the command after substitution" in text
    assert len(command) < 20000


def test_folder_ordered_by_a_user_daily_is_reported(tmp_path: Path) -> None:
    src = tmp_path / "ud.xml"
    src.write_text(
        '<DEFTABLE><SMART_FOLDER FOLDER_NAME="F" FOLDER_ORDER_METHOD="UD_NIGHT" WEEKDAYS="1">'
        '<JOB JOBNAME="J" TASKTYPE="Dummy"/></SMART_FOLDER></DEFTABLE>'
    )
    out = tmp_path / "out"
    assert run(["job", "import", str(src), "--from", "controlm", "--out", str(out)]) == 0
    (net,) = report(out)["jobNets"]
    assert [s["cron"] for s in net["schedules"]] == ["cron(0 0 ? * MON *)"]
    notes = {u["source"]: u["reason"] for u in report(out)["unmapped"]}
    where = "/DEFTABLE/SMART_FOLDER[@FOLDER_NAME='F']/@FOLDER_ORDER_METHOD"
    assert "user daily 'UD_NIGHT'" in notes[where]


def test_forcing_a_job_of_its_own_folder_is_not_called_another_folder(tmp_path: Path) -> None:
    """ON OK DOFORCEJOB of the next job in the same folder (exports that both force and
    condition the next job): it was reported as 'not another folder of the export: add a
    schedule --after', an after-rule of the job-net on itself."""
    src = tmp_path / "self.xml"
    src.write_text(
        '<DEFTABLE><FOLDER FOLDER_NAME="F"><JOB JOBNAME="A" TASKTYPE="Dummy">'
        '<OUTCOND NAME="A-TO-B" ODATE="ODAT" SIGN="+"/>'
        '<ON STMT="*" CODE="OK"><DOFORCEJOB TABLE_NAME="F" NAME="B" ODATE="ODAT"/></ON></JOB>'
        '<JOB JOBNAME="B" TASKTYPE="Dummy"><INCOND NAME="A-TO-B" ODATE="ODAT" AND_OR="A"/>'
        "</JOB></FOLDER></DEFTABLE>"
    )
    out = tmp_path / "out"
    assert run(["job", "import", str(src), "--from", "controlm", "--out", str(out)]) == 0
    rep = report(out)
    assert rep["jobNets"][0]["dependencies"] == [["F/A", "F/B"]]
    (note,) = [u for u in rep["unmapped"] if u["source"].endswith("DOFORCEJOB")]
    assert "its own folder F" in note["reason"] and "--after" not in note["reason"]

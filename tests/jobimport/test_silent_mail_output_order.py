"""Four silences found on held-out exports: mail subjects and attachments, an empty
``Output``, a folder without an order method, a JP1 relative start time (``st=+``)."""

from __future__ import annotations

import json
from typing import Any

from cfnops.jobimport import plan_import, read_export


def _plan(text: str, name: str, product: str = "controlm") -> Any:
    return plan_import(read_export(text.encode(), name, product), name)


def _notes(plan: Any) -> dict[str, str]:
    return {u["source"]: u["reason"] for u in plan.report["unmapped"]}


def _xml_mail_export() -> str:
    job = (
        '<JOB JOBNAME="{n}" TASKTYPE="Command" CMDLINE="run.sh" NODEID="h" RUN_AS="u">'
        '<ON CODE="NOTOK"><DOMAIL DEST="ops@example.com" CC_DEST="dba@example.com" '
        'SUBJECT="{n} failed" MESSAGE="process canceled" URGENCY="U" ATTACH_SYSOUT="Y"/>'
        "</ON></JOB>"
    )
    return (
        '<DEFTABLE><SMART_FOLDER FOLDER_NAME="F" FOLDER_ORDER_METHOD="SYSTEM" WEEKDAYS="1">'
        + job.format(n="A")
        + job.format(n="B")
        + "</SMART_FOLDER></DEFTABLE>"
    )


def test_xml_domail_keeps_each_jobs_subject_and_reports_the_attached_output() -> None:
    plan = _plan(_xml_mail_export(), "d.xml")
    rules = plan.report["notify"]
    assert [r["message"] for r in rules] == [
        "[urgent] | subject: A failed | message: process canceled",
        "[urgent] | subject: B failed | message: process canceled",
    ]
    assert {r["destination"] for r in rules} == {"ops@example.com;dba@example.com"}
    assert {r["when"] for r in rules} == {"failed"}
    notes = _notes(plan)
    where = "/DEFTABLE/SMART_FOLDER[@FOLDER_NAME='F']/JOB[@JOBNAME='A']/ON[@CODE='NOTOK']/DOMAIL"
    assert "attaches the job's output (sysout)" in notes[where]


def test_json_action_mail_keeps_its_subject_and_reports_attach_output() -> None:
    doc = {
        "F": {
            "Type": "Folder",
            "When": {"WeekDays": ["MON"]},
            "A": {
                "Type": "Job:Command", "Command": "run.sh", "Host": "h", "RunAs": "u",
                "IfFailed": {
                    "Type": "If:CompletionStatus", "CompletionStatus": "NOTOK",
                    "DoMail": {"Type": "Action:Mail", "To": "ops@example.com",
                               "Subject": "A failed", "Message": "see log",
                               "AttachOutput": True},
                },
            },
        }
    }  # fmt: skip
    plan = _plan(json.dumps(doc), "d.json")
    (rule,) = plan.report["notify"]
    assert rule["message"] == "subject: A failed | message: see log"
    assert "attaches the job's output" in _notes(plan)["$.F.A.IfFailed.DoMail"]


def test_json_empty_output_is_silent_and_a_real_one_is_reported() -> None:
    doc = {
        "F": {
            "Type": "Folder",
            "When": {"WeekDays": ["MON"]},
            "A": {"Type": "Job:Command", "Command": "a.sh", "Host": "h", "RunAs": "u",
                  "Output": {}},
            "B": {"Type": "Job:Command", "Command": "b.sh", "Host": "h", "RunAs": "u",
                  "Output": {"Operation": "Copy", "Destination": "/arch/b"}},
        }
    }  # fmt: skip
    notes = _notes(_plan(json.dumps(doc), "d.json"))
    assert "$.F.A.Output" not in notes
    assert notes["$.F.B.Output"].startswith("output handling Copy /arch/b: not mapped")
    assert not any("object of type ''" in r for r in notes.values())


def test_xml_folder_without_order_method_is_reported() -> None:
    plan = _plan(
        '<DEFTABLE><SMART_FOLDER FOLDER_NAME="F" WEEKDAYS="1">'
        '<JOB JOBNAME="J" TASKTYPE="Dummy"/></SMART_FOLDER></DEFTABLE>',
        "d.xml",
    )
    (net,) = plan.report["jobNets"]
    assert [s["cron"] for s in net["schedules"]] == ["cron(0 0 ? * MON *)"]
    where = "/DEFTABLE/SMART_FOLDER[@FOLDER_NAME='F']/@FOLDER_ORDER_METHOD"
    assert "no order method: taken as Automatic" in _notes(plan)[where]


def test_jp1_relative_start_time_is_reported() -> None:
    plan = _plan(
        "unit=G,,jp1admin,;\n{\n ty=g;\n unit=NET,,jp1admin,;\n {\n  ty=n;\n"
        "  el=J1,j,+0+0;\n  sd=1,*;\n  st=1,+01:30;\n  unit=J1,,jp1admin,;\n"
        '  {\n   ty=j;\n   sc="echo";\n  }\n }\n}\n',
        "d.txt",
        "jp1",
    )
    reasons = [u["reason"] for u in plan.report["unmapped"]]
    assert any(r.startswith("st=+01:30: a relative start time") for r in reasons)

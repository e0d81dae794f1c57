"""Job-level Control-M criteria: never a widening of the whole job-net, never silent."""

from __future__ import annotations

import json
from typing import Any

from cfnops.asl import HistoryRecorder, Interpreter
from cfnops.jobimport import plan_import, read_export

_NO_FOLDER_WHEN = {
    "F": {
        "Type": "Folder",
        "Mon": {"Type": "Job:Dummy", "When": {"WeekDays": ["MON"], "FromTime": "0730"},
                "a": {"Type": "AddEvents", "Events": [{"Event": "MON-OK"}]}},
        "Fri": {"Type": "Job:Dummy", "When": {"WeekDays": ["FRI"], "FromTime": "2200"}},
        "Mon2": {"Type": "Job:Dummy", "When": {"WeekDays": ["MON"], "FromTime": "0730"},
                 "w": {"Type": "WaitForEvents", "Events": [{"Event": "MON-OK"}]}},
        "Always": {"Type": "Job:Dummy"},
    }
}  # fmt: skip


def _plan(doc: dict[str, Any] | str, name: str = "f.json") -> Any:
    data = (doc if isinstance(doc, str) else json.dumps(doc)).encode()
    return plan_import(read_export(data, name, "controlm"), name)


def _entered(definition: dict[str, Any], run_input: dict[str, Any]) -> set[str]:
    recorder = HistoryRecorder()
    result = Interpreter(definition).run(run_input, recorder=recorder)
    assert result.status == "SUCCEEDED"
    return {
        e.details["name"]
        for e in recorder.events
        if e.type.endswith("StateEntered") and "name" in e.details
    }


def test_each_job_runs_only_in_the_runs_its_own_when_starts() -> None:
    plan = _plan(_NO_FOLDER_WHEN)
    net = plan.report["jobNets"][0]
    crons = {s["name"]: s["cron"] for s in net["schedules"]}
    assert crons == {"F": "cron(30 7 ? * MON *)", "F-2": "cron(0 22 ? * FRI *)"}
    defn = plan.definitions["F"]
    monday = _entered(defn, {"cfnopsSchedule": "F"})
    assert {"Mon", "Mon2", "Always", "Fri.Skipped"} <= monday
    assert "Fri" not in monday and "Mon.Skipped" not in monday
    friday = _entered(defn, {"cfnopsSchedule": "F-2"})
    assert {"Fri", "Always", "Mon.Skipped", "Mon2.Skipped"} <= friday
    assert "Mon" not in friday and "Mon2" not in friday
    by_hand = _entered(defn, {})
    assert {"Mon", "Mon2", "Fri", "Always"} <= by_hand
    notes = [u for u in plan.report["unmapped"] if u["kind"] == "schedule"]
    assert any(u["source"] == "$.F.Fri.When" and "F/Fri runs only" in u["reason"] for u in notes)


def test_a_job_when_inside_a_folder_when_is_reported_naming_the_job() -> None:
    doc = {
        "F": {
            "Type": "Folder",
            "When": {"WeekDays": ["MON", "TUE", "WED", "THU", "FRI"], "FromTime": "0100"},
            "A": {"Type": "Job:Dummy"},
            "B": {
                "Type": "Job:Dummy",
                "When": {"MonthDaysCalendar": "WorkingDays", "WeekDaysCalendar": "Summer2017"},
            },
        }
    }
    plan = _plan(doc)
    net = plan.report["jobNets"][0]
    assert [s["cron"] for s in net["schedules"]] == ["cron(0 1 ? * MON,TUE,WED,THU,FRI *)"]
    (note,) = [u for u in plan.report["unmapped"] if u["source"] == "$.F.B.When"]
    assert "job F/B" in note["reason"] and "not mapped" in note["reason"]


_XML = """<?xml version="1.0" encoding="UTF-8"?>
<DEFTABLE>
  <SMART_FOLDER FOLDER_NAME="S" WEEKDAYS="1,2,3,4,5" TIMEFROM="0600">
    <JOB JOBNAME="A" TASKTYPE="Dummy"/>
    <JOB JOBNAME="B" TASKTYPE="Dummy" WEEKDAYS="1" TIMEFROM="0900"/>
  </SMART_FOLDER>
  <FOLDER FOLDER_NAME="R">
    <JOB JOBNAME="X" TASKTYPE="Dummy" WEEKDAYS="1" TIMEFROM="0900"/>
    <JOB JOBNAME="Y" TASKTYPE="Dummy" DAYS="1,15" TIMEFROM="2000"/>
  </FOLDER>
</DEFTABLE>
"""


def test_xml_job_criteria_in_a_smart_folder_and_in_a_plain_folder() -> None:
    plan = _plan(_XML, "t.xml")
    nets = {n["name"]: n for n in plan.report["jobNets"]}
    assert [s["cron"] for s in nets["S"]["schedules"]] == ["cron(0 6 ? * MON,TUE,WED,THU,FRI *)"]
    assert any(
        "job S/B" in u["reason"] and u["source"].endswith("JOB[@JOBNAME='B']")
        for u in plan.report["unmapped"]
    )
    assert {s["cron"] for s in nets["R"]["schedules"]} == {
        "cron(0 9 ? * MON *)",
        "cron(0 20 1,15 * ? *)",
    }
    first = _entered(plan.definitions["R"], {"cfnopsSchedule": "R-2"})
    assert "Y" in first and "X.Skipped" in first and "X" not in first


def test_the_forecast_shows_what_the_reported_job_criteria_change() -> None:
    from datetime import date

    from cfnops.jobimport import forecast

    model = read_export(_XML.encode(), "t.xml", "controlm", today=date(2027, 1, 1))
    plan_import(model, "t.xml")
    rows = {r["job"]: r for r in forecast(model, date(2027, 3, 1), 7)}
    # by hand: the folder runs Mon-Fri at 06:00 (Mar 1-5, 2027); B only on Monday Mar 1, at
    # its own 09:00
    assert rows["S/A"]["equal"] and len(rows["S/A"]["source"]) == 5
    b = rows["S/B"]
    assert b["source"] == ["2027-03-01 09:00"] and len(b["imported"]) == 5
    assert any("job S/B: its own criteria narrow" in r for r in b["reasons"])
    # the plain folder: each job on its own days (X Mondays 09:00, Y the 1st at 20:00)
    assert rows["R/X"]["equal"] and rows["R/X"]["source"] == ["2027-03-01 09:00"]
    assert rows["R/Y"]["equal"] and rows["R/Y"]["source"] == ["2027-03-01 20:00"]

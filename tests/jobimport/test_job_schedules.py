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
    # the SMART folder's runs split by the jobs each orders: Mon-Fri 06:00 (A), Mondays
    # 09:00 (B at its own time); neither is a widening of the other
    assert [s["cron"] for s in nets["S"]["schedules"]] == ["cron(0 6 * * ? *)", "cron(0 9 * * ? *)"]
    assert _entered(plan.definitions["S"], {"cfnopsSchedule": "S"}) >= {"A", "B.Skipped"}
    assert _entered(plan.definitions["S"], {"cfnopsSchedule": "S-2"}) >= {"B", "A.Skipped"}
    assert any(
        "jobs S/B have criteria of their own" in u["reason"] and "SMART_FOLDER" in u["source"]
        for u in plan.report["unmapped"]
    )
    assert {s["cron"] for s in nets["R"]["schedules"]} == {
        "cron(0 9 ? * MON *)",
        "cron(0 20 1,15 * ? *)",
    }
    first = _entered(plan.definitions["R"], {"cfnopsSchedule": "R-2"})
    assert "Y" in first and "X.Skipped" in first and "X" not in first


def test_the_forecast_of_job_criteria_inside_and_without_folder_criteria() -> None:
    from datetime import date

    from cfnops.jobimport import forecast

    model = read_export(_XML.encode(), "t.xml", "controlm", today=date(2027, 1, 1))
    plan_import(model, "t.xml")
    rows = {r["job"]: r for r in forecast(model, date(2027, 3, 1), 7)}
    # by hand: the folder runs Mon-Fri at 06:00 (Mar 1-5, 2027); B only on Monday Mar 1, at
    # its own 09:00
    assert rows["S/A"]["equal"] and len(rows["S/A"]["source"]) == 5
    b = rows["S/B"]
    assert b["source"] == ["2027-03-01 09:00"] and b["equal"]
    # the plain folder: each job on its own days (X Mondays 09:00, Y the 1st at 20:00)
    assert rows["R/X"]["equal"] and rows["R/X"]["source"] == ["2027-03-01 09:00"]
    assert rows["R/Y"]["equal"] and rows["R/Y"]["source"] == ["2027-03-01 20:00"]


_RBC_FOLDER = {
    "F": {
        "Type": "Folder",
        "RuleBasedCalendars": {
            "Included": ["WORKWEEK"],
            "WORKWEEK": {"Type": "Calendar:RuleBased",
                         "When": {"WeekDays": ["MON", "TUE", "WED", "THU", "FRI"],
                                  "FromTime": "0200"}},
        },
        "When": {"RuleBasedCalendars": {"Included": ["WORKWEEK"]}},
        "A": {"Type": "Job:Dummy"},
        "M": {"Type": "Job:Dummy", "When": {"MonthDays": ["1", "15"]}},
        "L": {"Type": "Job:Dummy", "When": {"WeekDays": ["FRI"], "FromTime": "2200"}},
    }
}  # fmt: skip


def test_job_when_inside_a_folder_rule_based_calendar_is_a_per_job_condition() -> None:
    from datetime import date

    from cfnops.jobimport import forecast

    data = json.dumps(_RBC_FOLDER).encode()
    model = read_export(data, "f.json", "controlm", today=date(2027, 1, 1))
    plan = plan_import(model, "f.json")
    net = plan.report["jobNets"][0]
    scheds = {s["name"]: s for s in net["schedules"]}
    # the folder's runs (Mon-Fri 02:00) not ordering M; Fridays 22:00 (L's own time, only L);
    # the folder's runs on the 1st and 15th (A and M)
    assert {n: s["cron"] for n, s in scheds.items()} == {
        "F": "cron(0 2 * * ? *)", "F-2": "cron(0 22 * * ? *)", "F-3": "cron(0 2 * * ? *)",
    }  # fmt: skip
    cal = {n: model.calendars[s["calendar"].split("/")[-1][:-5]].open for n, s in scheds.items()}
    march = {n: sorted(d.day for d in days if (d.year, d.month) == (2027, 3))
             for n, days in cal.items()}  # fmt: skip
    # by hand: March 2027 starts on a Monday; weekdays 1-5, 8-12, 15-19, 22-26, 29-31
    assert march["F-3"] == [1, 15]
    assert march["F-2"] == [5, 12, 19, 26]
    assert march["F"] == [2, 3, 4, 5, 8, 9, 10, 11, 12, 16, 17, 18, 19, 22, 23, 24, 25, 26,
                          29, 30, 31]  # fmt: skip
    defn = plan.definitions["F"]
    assert {"A", "M.Skipped", "L.Skipped"} <= _entered(defn, {"cfnopsSchedule": "F"})
    assert {"A", "M", "L.Skipped"} <= _entered(defn, {"cfnopsSchedule": "F-3"})
    assert {"L", "A.Skipped", "M.Skipped"} <= _entered(defn, {"cfnopsSchedule": "F-2"})
    assert {"A", "M", "L"} <= _entered(defn, {})  # started by hand: every job
    rows = {r["job"]: r for r in forecast(model, date(2027, 3, 1), 31)}
    assert rows["F/M"]["source"] == ["2027-03-01 02:00", "2027-03-15 02:00"]
    assert rows["F/L"]["source"][0] == "2027-03-05 22:00" and len(rows["F/L"]["source"]) == 4
    assert len(rows["F/A"]["source"]) == 23
    assert all(r["equal"] for r in rows.values()), rows


def test_a_folder_that_never_runs_keeps_its_own_report() -> None:
    doc = {"F": {**_RBC_FOLDER["F"], "When": {"Schedule": "Never"}}}
    plan = _plan(doc)
    assert plan.report["jobNets"][0]["schedules"] == []
    assert not any("split into" in u["reason"] for u in plan.report["unmapped"])
    assert any(u["source"] == "$.F.M.When" and "job F/M" in u["reason"]
               for u in plan.report["unmapped"])  # fmt: skip

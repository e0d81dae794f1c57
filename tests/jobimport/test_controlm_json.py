"""Control-M Automation API JSON: a 12-job folder with events, Flow objects, a rule-based
calendar with a confirmation calendar, a cross-folder event and a quantitative resource."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from jobimport_helpers import DATA, fire_days, report

from cfnops.cli.main import run
from cfnops.jobimport import dependency_problems, ended_before, plan_import, read_export

SRC = DATA / "controlm_fin.json"


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
            "--out",
            str(target),
            "--today",
            "2026-12-01",
            "--output",
            "json",
        ]
    )
    printed = json.loads(capsys.readouterr().out)
    assert code == 0
    assert printed["jobNets"] == report(target)["jobNets"]
    return target


def test_job_counts_and_files(out: Path) -> None:
    nets = {n["name"]: n for n in report(out)["jobNets"]}
    assert {k: v["jobs"] for k, v in nets.items()} == {"FIN_DAILY": 12, "FIN_MONTHLY": 3}
    definition = json.loads((out / "FIN_DAILY.asl.json").read_text())
    tasks = {n for n, s in _all_states(definition) if s["Type"] == "Task"}
    assert {"Extract_GL", "Extract_AP", "Extract_AR", "Validate", "Load_DW", "Archive"} <= tasks


def _all_states(defn: dict) -> list[tuple[str, dict]]:  # type: ignore[type-arg]
    out = []
    for name, state in defn["States"].items():
        out.append((name, state))
        for branch in state.get("Branches", []):
            out.extend(_all_states(branch))
    return out


def test_every_dependency_is_kept_by_the_asl(out: Path) -> None:
    definition = json.loads((out / "FIN_DAILY.asl.json").read_text())
    before = ended_before(definition)
    p = "FIN_DAILY/"
    expected = {  # from the events and Flow objects, worked out by hand (transitively)
        "Extract_GL": {"Wait_Feed"},
        "Validate": {"Wait_Feed", "Extract_GL", "Extract_AP", "Extract_AR"},
        "Load_DW": {"Validate"},
        "Load_Mart": {"Load_DW"},
        "Report_Sales": {"Load_Mart"},
        "Report_Ops": {"Load_Mart"},
        "Archive": {"Report_Sales", "Report_Ops"},
        "Cleanup": {"Archive"},
        "Done": {"Cleanup", "Archive", "Validate"},
    }
    for job, preds in expected.items():
        assert {p + x for x in preds} <= before[p + job], job
    # and no more than the source asks (the graph is series-parallel: exact)
    assert before[p + "Extract_AP"] == frozenset()
    assert p + "Report_Ops" not in before[p + "Report_Sales"]
    assert p + "Extract_GL" not in before[p + "Extract_AR"]


def test_layout_checker_catches_a_broken_order() -> None:
    model = read_export(SRC.read_bytes(), str(SRC), "controlm", today=date(2026, 12, 1))
    plan = plan_import(model, str(SRC))
    net = model.jobnets[0]
    definition = plan.definitions["FIN_DAILY"]
    assert dependency_problems(definition, net.jobs, net.edges) == []
    # swap two states' successors: Validate could now start before the extracts end
    broken = json.loads(json.dumps(definition))
    broken["StartAt"] = "Validate.Rerun"
    assert dependency_problems(broken, net.jobs, net.edges)


def test_rule_based_calendar_fire_dates_2027(out: Path) -> None:
    (sched,) = report(out)["jobNets"][0]["schedules"]
    assert sched["cron"] == "cron(30 2 ? * MON,TUE,WED,THU,FRI *)"
    assert (sched["timezone"], sched["dayRule"]) == ("Asia/Tokyo", "next-open")
    days = fire_days(out, sched, 2027)
    # Worked by hand: weekdays of Jan-Feb 2027 open in JP_WORKDAYS; Jan 1 (Fri, closed)
    # moves to Jan 4, Jan 11 to Jan 12, Feb 11 to Feb 12, Feb 23 to Feb 24 (already runs).
    jan = [4, 5, 6, 7, 8, 12, 13, 14, 15, 18, 19, 20, 21, 22, 25, 26, 27, 28, 29]
    feb = [1, 2, 3, 4, 5, 8, 9, 10, 12, 15, 16, 17, 18, 19, 22, 24, 25, 26]
    assert [d for d in days if d.month == 1] == [date(2027, 1, d) for d in jan]
    assert [d for d in days if d.month == 2] == [date(2027, 2, d) for d in feb]


def test_cross_folder_event_becomes_after_and_rerun_becomes_retry(out: Path) -> None:
    nets = {n["name"]: n for n in report(out)["jobNets"]}
    assert nets["FIN_MONTHLY"]["schedules"][0]["after"] == ["FIN_DAILY"]
    definition = json.loads((out / "FIN_DAILY.asl.json").read_text())
    (retry,) = definition["States"]["Validate.Rerun"]["Retry"]
    assert (retry["MaxAttempts"], retry["IntervalSeconds"]) == (3, 120)


def test_report_lists_what_is_not_mapped(out: Path) -> None:
    unmapped = report(out)["unmapped"]
    sources = {u["source"] for u in unmapped}
    assert "$.FIN_DAILY.Report_Ops.CriticalPath" in sources
    assert any("Job:Database:SQLScript" in u["reason"] for u in unmapped)
    assert any("%%ODATE" in u["reason"] for u in unmapped)
    assert report(out)["pools"] == {"DB_SLOTS": 2}
    md = (out / "report.md").read_text()
    assert "| FIN_DAILY | 12 |" in md


def test_generated_definitions_pass_validate_strict(out: Path) -> None:
    for name in ("FIN_DAILY", "FIN_MONTHLY"):
        assert run(["job", "validate", "--strict", str(out / f"{name}.asl.json")]) == 0


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('{"F": {"Type": "Folder", "A": {"Type": "Job:Command", "Command": "x"', "line 1"),
        ('{"Name": "not an export", "Items": []}', "$"),
        (
            '{"F": {"Type": "Folder", "A": {"Type": "Job:Dummy"}, '
            '"fl": {"Type": "Flow", "Sequence": ["A", "B"]}}}',
            "$.F.fl.Sequence[1]",
        ),
    ],
    ids=["truncated", "not-an-export", "dangling-flow"],
)
def test_bad_input_exits_2_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, where: str
) -> None:
    src = tmp_path / "bad.json"
    src.write_text(text)
    out = tmp_path / "out"
    assert run(["job", "import", str(src), "--from", "controlm", "--out", str(out)]) == 2
    assert where in capsys.readouterr().err
    assert not out.exists()


def test_job_array_format_with_repeated_names(tmp_path: Path) -> None:
    """``"Jobs": [{"Name": …}]`` (allowDuplicateJobNames): both jobs named A come before B."""
    folder = {
        "F": {
            "Type": "Folder",
            "Jobs": [
                {"Type": "Job:Command", "Name": "A", "Command": "a.sh"},
                {"Type": "Job:Command", "Name": "A", "Command": "a2.sh"},
                {"Type": "Job:Dummy", "Name": "B"},
            ],
            "flow": {"Type": "Flow", "Sequence": ["A", "B"]},
        }
    }
    src = tmp_path / "array.json"
    src.write_text(json.dumps(folder))
    model = read_export(src.read_bytes(), str(src), "controlm", today=date(2026, 12, 1))
    plan = plan_import(model, str(src))
    assert plan.report["jobNets"][0]["jobs"] == 3
    before = ended_before(plan.definitions["F"])
    assert before["F/B"] == {"F/A", "F/#2/A"}


def test_sub_folder_events_defaults_and_folder_resources(tmp_path: Path) -> None:
    """A sub-folder's own WaitForEvents/AddEvents bind its first/last jobs; Defaults.Job
    (When, If) applies to every job; a folder-level resource is taken by each job."""
    export = {
        "Defaults": {
            "RunAs": "batch",
            "Host": "srv",
            "Job": {
                "When": {"WeekDays": ["MON"], "FromTime": "0500"},
                "OnFail": {
                    "Type": "If",
                    "CompletionStatus": "NOTOK",
                    "mail": {"Type": "Mail", "To": "ops@example.com", "Message": "failed"},
                },
            },
        },
        "F": {
            "Type": "Folder",
            "DB": {"Type": "Resource:Semaphore", "Quantity": "1"},
            "Start": {
                "Type": "Job:Command",
                "Command": "start.sh",
                "out": {"Type": "AddEvents", "Events": [{"Event": "START-OK"}]},
            },
            "Sub": {
                "Type": "SubFolder",
                "When": {"RuleBasedCalendars": {"Included": ["USE PARENT"]}},
                "X": {"Type": "Job:Command", "Command": "x.sh"},
                "Y": {"Type": "Job:Command", "Command": "y.sh"},
                "fl": {"Type": "Flow", "Sequence": ["X", "Y"]},
                "in": {"Type": "WaitForEvents", "Events": [{"Event": "START-OK"}]},
                "out": {"Type": "AddEvents", "Events": [{"Event": "SUB-OK"}]},
            },
            "End": {
                "Type": "Job:Command",
                "Command": "end.sh",
                "in": {"Type": "WaitForEvents", "Events": [{"Event": "SUB-OK"}]},
            },
        },
    }
    src = tmp_path / "sub.json"
    src.write_text(json.dumps(export))
    model = read_export(src.read_bytes(), str(src), "controlm", today=date(2026, 12, 1))
    plan = plan_import(model, str(src))
    before = ended_before(plan.definitions["F"])
    assert before["F/Sub/X"] == {"F/Start"}
    assert before["F/End"] >= {"F/Sub/X", "F/Sub/Y"}
    (sched,) = plan.report["jobNets"][0]["schedules"]
    assert sched["cron"] == "cron(0 5 ? * MON *)"
    assert plan.report["notify"][0]["destination"] == "ops@example.com"
    assert all(job.pools == ["DB"] for job in model.jobnets[0].jobs.values())
    assert not any("sub-folder criteria" in u.reason for u in model.unmapped)


def test_job_names_with_spaces_keep_their_order(tmp_path: Path) -> None:
    export = {
        "F": {
            "Type": "Folder",
            "Job One": {"Type": "Job:Command", "Command": "a"},
            "Job Two": {"Type": "Job:Command", "Command": "b"},
            "f": {"Type": "Flow", "Sequence": ["Job One", "Job Two"]},
        }
    }
    src = tmp_path / "spaces.json"
    src.write_text(json.dumps(export))
    plan = plan_import(read_export(src.read_bytes(), str(src), "controlm"), str(src))
    definition = plan.definitions["F"]
    assert "Job Two" in definition["States"]  # the state is named after the job
    assert ended_before(definition)["F/Job Two"] == {"F/Job One"}


def test_never_and_unmatched_day_forms_make_no_schedule(tmp_path: Path) -> None:
    export = {
        "N": {"Type": "Folder", "When": {"Schedule": "Never"}, "A": {"Type": "Job:Dummy"}},
        "R": {
            "Type": "Folder",
            "When": {"MonthDays": ["+3"], "WeekDays": ["MON"], "DaysRelation": "AND"},
            "B": {"Type": "Job:Dummy"},
        },
    }
    src = tmp_path / "never.json"
    src.write_text(json.dumps(export))
    model = read_export(src.read_bytes(), str(src), "controlm", today=date(2026, 12, 1))
    plan = plan_import(model, str(src))
    assert [n["schedules"] for n in plan.report["jobNets"]] == [[], []]
    reasons = " ".join(u["reason"] for u in plan.report["unmapped"])
    assert 'Schedule "Never"' in reasons and "+3" in reasons


def test_week_days_none_selects_no_week_day_quietly(tmp_path: Path) -> None:
    """ "WeekDays": ["NONE"] (as Control-M exports a job with month days only) is no week day:
    the folder runs on its month days and nothing is reported as an unknown week day."""
    export = {
        "F": {
            "Type": "Folder",
            "When": {"WeekDays": ["NONE"], "MonthDays": ["1", "15"], "DaysRelation": "OR"},
            "A": {"Type": "Job:Dummy"},
        }
    }
    src = tmp_path / "none.json"
    src.write_text(json.dumps(export))
    model = read_export(src.read_bytes(), str(src), "controlm", today=date(2026, 12, 1))
    plan = plan_import(model, str(src))
    ((schedule,),) = [n["schedules"] for n in plan.report["jobNets"]]
    assert schedule["cron"] == "cron(0 0 1,15 * ? *)"
    assert not any("week days" in u["reason"] for u in plan.report["unmapped"])


def test_folder_ordered_by_hand_gets_no_schedule(tmp_path: Path) -> None:
    """OrderMethod Manual: the folder is never ordered by New Day, so its When must not become
    a schedule (it did: Mon-Fri 03:00 runs the source never makes); a user daily is kept and
    reported."""
    when = {"WeekDays": ["MON", "FRI"], "FromTime": "0300"}
    export = {
        "M": {"Type": "Folder", "OrderMethod": "Manual", "When": when, "A": {"Type": "Job:Dummy"}},
        "U": {
            "Type": "Folder",
            "OrderMethod": "UD_NIGHT",
            "When": when,
            "B": {"Type": "Job:Dummy"},
        },
        "S": {
            "Type": "Folder",
            "OrderMethod": "Automatic",
            "When": when,
            "C": {"Type": "Job:Dummy"},
        },
    }
    src = tmp_path / "order.json"
    src.write_text(json.dumps(export))
    model = read_export(src.read_bytes(), str(src), "controlm", today=date(2026, 12, 1))
    plan = plan_import(model, str(src))
    crons = {n["name"]: [s["cron"] for s in n["schedules"]] for n in plan.report["jobNets"]}
    assert crons == {"M": [], "U": ["cron(0 3 ? * MON,FRI *)"], "S": ["cron(0 3 ? * MON,FRI *)"]}
    notes = {u["source"]: u["reason"] for u in plan.report["unmapped"]}
    assert "ordered by hand (OrderMethod Manual)" in notes["$.M.OrderMethod"]
    assert "user daily 'UD_NIGHT'" in notes["$.U.OrderMethod"]
    assert "$.S.OrderMethod" not in notes


def test_job_variable_read_by_the_script_as_an_environment_variable_is_reported(
    tmp_path: Path,
) -> None:
    """A job variable the command never names as %%NAME (an embedded script reading $agt):
    Control-M hands it to the process as an environment variable, the import did not and
    said nothing. Variables the command names, even through another's value, are quiet."""
    export = {
        "F": {
            "Type": "Folder",
            "Variables": [{"site": "eu"}],
            "A": {
                "Type": "Job:EmbeddedScript",
                "Script": "cd /opt/x\\n./run.sh $agt %%DIR",
                "FileName": "a.sh",
                "Host": "h1",
                "RunAs": "u",
                "Variables": [{"agt": "%%site"}, {"DIR": "%%BASE/in"}, {"BASE": "/data"}],
            },
        }
    }
    src = tmp_path / "env.json"
    src.write_text(json.dumps(export))
    model = read_export(src.read_bytes(), str(src), "controlm", today=date(2026, 12, 1))
    plan = plan_import(model, str(src))
    notes = [u for u in plan.report["unmapped"] if "job variables" in u["reason"]]
    assert [(u["source"], u["reason"].split(" are")[0]) for u in notes] == [
        ("$.F.A", "job variables %%agt")
    ]

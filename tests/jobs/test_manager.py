"""Job-manager scheduling: dependencies, exclusive execution, delay monitoring (SQLite)."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from tests._runtime import runtime_for

from cfnops.cli.main import run
from cfnops.durable import Engine
from cfnops.jobs import JobService, TriggerService
from cfnops.jobs._delays import check_delays, expected_seconds, list_alerts
from cfnops.jobs._dependencies import add_dependency, find_cycle, fire_dependencies
from cfnops.jobs._starts import monitor_options, start_entry, start_queued
from cfnops.jobs.errors import DependencyCycle, InvalidOption, UnknownJobNet

PASS = {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}


class Sent:
    """A fake notification channel: what would have been sent."""

    def __init__(self) -> None:
        self.items: list[tuple[str, str, dict[str, Any]]] = []

    def __call__(self, run_id: str, condition: str, details: Mapping[str, Any]) -> None:
        self.items.append((run_id, condition, dict(details)))


@pytest.fixture
def jobs(job_engine: Engine) -> JobService:
    return JobService(runtime_for(job_engine.settings))


def _succeed(jobs: JobService, machine: str, n: int) -> str:
    """A run of ``machine`` that has just ended SUCCEEDED (no need to execute it)."""
    time.sleep(0.01)  # a later stopped_at than anything before
    run_id = f"{machine}-{n}-{time.time_ns()}"
    jobs.store.create_run(run_id, machine, PASS, {})
    jobs.store.finish_run(run_id, "SUCCEEDED", {}, None, None)
    return run_id


def _runs_of(jobs: JobService, machine: str) -> list[str]:
    return sorted(r.run_id for r in jobs.store.list_runs(limit=500) if r.machine_name == machine)


def test_find_cycle() -> None:
    assert find_cycle({"b": ["a"], "c": ["a", "b"]}) is None
    assert find_cycle({"b": ["a"], "a": ["c"], "c": ["b"]}) == ["a", "c", "b", "a"]
    assert find_cycle({"a": ["a"]}) == ["a", "a"]


def test_a_dependent_job_net_starts_once_per_completed_set(jobs: JobService) -> None:
    _succeed(jobs, "dep-a1", 0)
    _succeed(jobs, "dep-a2", 0)  # known job-nets; these runs predate the dependency
    add_dependency(
        jobs, "after-b", "dep-b.asl.json", PASS, ["dep-a1", "dep-a2"], {}, monitor_options()
    )
    assert fire_dependencies(jobs) == []
    _succeed(jobs, "dep-a1", 1)
    assert fire_dependencies(jobs) == []  # dep-a2 has not succeeded since
    _succeed(jobs, "dep-a2", 1)
    first = fire_dependencies(jobs)
    assert len(first) == 1 and first[0].startswith("after-b-after-")
    for _ in range(3):  # more ticks, as other workers would run them
        assert fire_dependencies(jobs) == []
    assert _runs_of(jobs, "dep-b") == first
    assert jobs.store.get_run(first[0]).source == "after:after-b"
    _succeed(jobs, "dep-a2", 2)
    _succeed(jobs, "dep-a1", 2)
    second = fire_dependencies(jobs)
    assert len(second) == 1 and second != first
    assert _runs_of(jobs, "dep-b") == sorted(first + second)


def test_an_incomplete_set_times_out_once(jobs: JobService) -> None:
    _succeed(jobs, "to-a1", 0)
    _succeed(jobs, "to-a2", 0)
    opts = {**monitor_options(), "waitTimeout": 0.05}
    add_dependency(jobs, "after-to", "to-b.asl.json", PASS, ["to-a1", "to-a2"], {}, opts)
    _succeed(jobs, "to-a1", 1)
    time.sleep(0.1)
    sent = Sent()
    assert fire_dependencies(jobs, sent) == []
    assert fire_dependencies(jobs, sent) == []
    assert [(c, d["missing"]) for _, c, d in sent.items] == [("dependency-timeout", ["to-a2"])]
    _succeed(jobs, "to-a2", 1)  # the set started again: to-a1's old success no longer counts
    assert fire_dependencies(jobs, sent) == []
    assert _runs_of(jobs, "to-b") == []


def test_unknown_job_nets_and_cycles_are_refused_and_change_nothing(
    jobs: JobService,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("CFNOPS_DATABASE_URL", jobs.settings.database_url)
    _succeed(jobs, "cyc-a", 0)
    for name in ("cyc-a", "cyc-b", "cyc-c"):
        (tmp_path / f"{name}.asl.json").write_text(json.dumps(PASS))

    def schedule(*args: str) -> tuple[int, str]:
        capsys.readouterr()
        code = run(["job", "schedule", "add", *args])
        got = capsys.readouterr()
        return code, " ".join((got.out + got.err).split())

    assert schedule("b-after-a", str(tmp_path / "cyc-b.asl.json"), "--after", "cyc-a")[0] == 0
    assert schedule("c-after-b", str(tmp_path / "cyc-c.asl.json"), "--after", "cyc-b")[0] == 0
    before = jobs.store.list_schedules()
    code, out = schedule("a-after-c", str(tmp_path / "cyc-a.asl.json"), "--after", "cyc-c")
    assert code == 2
    assert "would wait for each other: cyc-a → cyc-c → cyc-b → cyc-a" in out
    code, out = schedule("x", str(tmp_path / "cyc-a.asl.json"), "--after", "cyc-nope")
    assert code == 2 and "--after 'cyc-nope': no schedule, trigger or run" in out
    code, out = schedule(
        "y", str(tmp_path / "cyc-a.asl.json"), "--cron", "cron(0 9 * * ? *)", "--after", "cyc-b"
    )
    assert code == 2 and "exactly one of --cron and --after" in out
    code, out = schedule(
        "z", str(tmp_path / "cyc-a.asl.json"), "--after", "cyc-b", "--exclusive", "later"
    )
    assert code == 2 and "run, skip, queue" in out
    assert jobs.store.list_schedules() == before
    with pytest.raises(DependencyCycle):
        add_dependency(jobs, "self", "cyc-a.asl.json", PASS, ["cyc-a"], {}, {})
    with pytest.raises(UnknownJobNet):
        add_dependency(jobs, "u", "cyc-a.asl.json", PASS, ["nobody"], {}, {})


def _entry(jobs: JobService, name: str, machine: str, **options: Any) -> dict[str, Any]:
    TriggerService(jobs).add_schedule(
        name,
        f"{machine}.asl.json",
        PASS,
        "cron(0 9 * * ? *)",
        "UTC",
        {},
        options=monitor_options(**options),
    )
    return next(r for r in jobs.store.list_schedules("schedule") if r["name"] == name)


def test_exclusive_skip_and_queue(jobs: JobService) -> None:
    skip = _entry(jobs, "ex-skip", "ex-skip-net", exclusive="skip")
    jobs.store.create_run("ex-skip-active", "ex-skip-net", PASS, {})  # RUNNING
    assert start_entry(jobs, skip, "ex-skip-1", "schedule:ex-skip", time.time()) == "skipped"
    assert jobs.store.find_run("ex-skip-1") is None
    (alert,) = list_alerts(jobs, "ex-skip-1")
    assert alert["condition"] == "skipped" and alert["details"]["activeRun"] == "ex-skip-active"

    queue = _entry(jobs, "ex-queue", "ex-queue-net", exclusive="queue")
    jobs.store.create_run("ex-queue-active", "ex-queue-net", PASS, {})
    due = time.time()
    for n in (1, 2):
        assert start_entry(jobs, queue, f"ex-queue-{n}", "schedule:ex-queue", due + n) == "queued"
    assert start_queued(jobs) == []  # still active
    assert jobs.store.find_run("ex-queue-1") is None
    jobs.store.finish_run("ex-queue-active", "SUCCEEDED", {}, None, None)
    assert start_queued(jobs) == ["ex-queue-1"]  # one at a time, oldest first
    started = jobs.store.get_run("ex-queue-1")
    assert started.options["monitor"]["scheduledAt"] == due + 1
    assert started.options["schedule"] == "ex-queue" and started.source == "schedule:ex-queue"
    jobs.store.finish_run("ex-queue-1", "SUCCEEDED", {}, None, None)
    assert start_queued(jobs) == ["ex-queue-2"]
    assert jobs.store.list_schedules("queued") == []

    run_mode = _entry(jobs, "ex-run", "ex-queue-net")
    assert start_entry(jobs, run_mode, "ex-run-1", "schedule:ex-run", time.time()) == "started"


def test_a_late_run_sends_exactly_one_notification(jobs: JobService) -> None:
    triggers = TriggerService(jobs)
    triggers.add_schedule(
        "late-nightly",
        "late-net.asl.json",
        PASS,
        "cron(0 2 * * ? *)",
        "UTC",
        {},
        options=monitor_options(start_grace=30),
    )
    due = time.time() - 120  # the worker was down at 02:00: it fires two minutes late
    row = jobs.store.list_schedules("schedule")
    nxt = next(r for r in row if r["name"] == "late-nightly")["next_fire"]
    assert jobs.store.advance_schedule("late-nightly", nxt, due)
    (run_id,) = [r for r in triggers.fire_due() if r.startswith("late-nightly")]
    sent = Sent()
    other_worker = Sent()
    for notify in (sent, other_worker, sent):
        check_delays(jobs, notify)
    assert [(r, c) for r, c, _ in sent.items + other_worker.items] == [(run_id, "late-start")]
    assert sent.items[0][2]["lateSeconds"] >= 110
    assert [a["condition"] for a in list_alerts(jobs, run_id)] == ["late-start"]


def test_long_runs_and_missed_deadlines_alert_once_each(jobs: JobService) -> None:
    now = time.time()
    monitor = {"scheduledAt": now, "startGrace": 60, "expected": 0.05, "deadlineAt": now + 0.1}
    jobs.store.create_run("slow-1", "slow-net", PASS, {}, options={"monitor": monitor})
    sent = Sent()
    assert check_delays(jobs, sent, now=now + 0.01) == []
    later = now + 0.5
    assert sorted(check_delays(jobs, sent, now=later)) == [
        ("slow-1", "deadline"),
        ("slow-1", "long-run"),
    ]
    assert check_delays(jobs, sent, now=later + 1) == []
    assert len(sent.items) == 2


def test_expected_duration_from_recent_runs(jobs: JobService) -> None:
    assert expected_seconds(jobs, "auto-net", "auto") is None
    for n, seconds in enumerate((10.0, 20.0, 12.0)):
        jobs.store.create_run(f"auto-{n}", "auto-net", PASS, {})
        jobs.store.finish_run(f"auto-{n}", "SUCCEEDED", {}, None, None)
        with jobs.store.engine.begin() as conn:
            from cfnops.jobs._tables import runs

            conn.execute(
                runs.update()
                .where(runs.c.run_id == f"auto-{n}")
                .values(started_at=1000.0 * n, stopped_at=1000.0 * n + seconds)
            )
    assert expected_seconds(jobs, "auto-net", "auto") == 30.0
    assert expected_seconds(jobs, "auto-net", 5) == 5.0


@pytest.mark.parametrize(
    ("kwargs", "flag"),
    [
        ({"exclusive": "maybe"}, "--exclusive"),
        ({"deadline": "25:00"}, "--deadline"),
        ({"expected": "soon"}, "--expected"),
        ({"expected": "0m"}, "--expected"),
    ],
)
def test_bad_monitor_options(kwargs: dict[str, Any], flag: str) -> None:
    with pytest.raises(InvalidOption, match=flag):
        monitor_options(**kwargs)


def test_a_disabled_dependency_does_not_start_and_queued_starts_are_not_entries(
    jobs: JobService,
) -> None:
    _succeed(jobs, "dis-a", 0)
    add_dependency(jobs, "after-dis", "dis-b.asl.json", PASS, ["dis-a"], {}, monitor_options())
    triggers = TriggerService(jobs)
    triggers.set_enabled("after-dis", False)
    _succeed(jobs, "dis-a", 1)
    assert fire_dependencies(jobs) == []
    triggers.set_enabled("after-dis", True)
    assert len(fire_dependencies(jobs)) == 1
    queue = _entry(jobs, "dis-queue", "dis-queue-net", exclusive="queue")
    jobs.store.create_run("dis-queue-active", "dis-queue-net", PASS, {})
    assert start_entry(jobs, queue, "dis-queue-1", "schedule:dis-queue", time.time()) == "queued"
    names = {e["name"] for e in triggers.entries()}
    assert {"after-dis", "dis-queue"} <= names and "dis-queue-1" not in names

"""Worker identities in ``cfnops_executors``: who may take a name, and a lost lease."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from cfnops._version import __version__
from cfnops.database import Database
from cfnops.durable import ExecutorIdInUse, ExecutorIdTaken
from cfnops.durable._leases import LeaseObserver, LeaseTable, executors, process_start_marker


@pytest.fixture
def leases(tmp_path: Path) -> Iterator[LeaseTable]:
    database = Database.open(f"sqlite:///{tmp_path / 'leases.sqlite'}")
    try:
        yield LeaseTable(database.engine, lease_seconds=30)
    finally:
        database.engine.dispose()


def _hold(leases: LeaseTable, name: str, *, host: str, pid: int, marker: str, age: float) -> None:
    """A row as another process left it: ``age`` seconds since its last heartbeat."""
    beat = time.time() - age
    with leases.engine.begin() as conn:
        conn.execute(
            executors.insert().values(
                executor_id=name,
                hostname=host,
                pid=pid,
                pid_started=marker,
                version=__version__,
                state="running",
                started_at=beat,
                heartbeat_at=beat,
            )
        )


def _pid_of(leases: LeaseTable, name: str) -> int:
    with leases.engine.connect() as conn:
        return int(
            conn.execute(sa.select(executors.c.pid).where(executors.c.executor_id == name)).one()[0]
        )


def test_a_live_process_on_this_host_keeps_its_name(leases: LeaseTable) -> None:
    holder = subprocess.Popen(["sleep", "30"])
    try:
        marker = process_start_marker(holder.pid)
        _hold(leases, "w1", host=leases.hostname, pid=holder.pid, marker=marker, age=0)
        with pytest.raises(ExecutorIdInUse) as caught:
            leases.register("w1", __version__)
    finally:
        holder.kill()
        holder.wait()
    assert f"'w1' is held by pid {holder.pid} on host {leases.hostname}" in caught.value.message
    assert "another --id" in caught.value.hint and "stop it first" in caught.value.hint
    assert _pid_of(leases, "w1") == holder.pid  # untouched


def test_a_dead_process_on_this_host_gives_its_name_up_at_once(leases: LeaseTable) -> None:
    holder = subprocess.Popen(["sleep", "30"])
    marker = process_start_marker(holder.pid)
    holder.kill()
    holder.wait()
    # heartbeat a moment ago: the lease has not expired, the process is gone
    _hold(leases, "w1", host=leases.hostname, pid=holder.pid, marker=marker, age=0)
    leases.register("w1", __version__)
    assert [r.pid for r in leases.rows()] == [os.getpid()]


def test_a_reused_pid_is_not_the_holder(leases: LeaseTable) -> None:
    """Same pid, another start time (a container restarted with pid 1 again)."""
    _hold(leases, "w1", host=leases.hostname, pid=os.getpid(), marker="1", age=0)
    leases.register("w1", __version__)
    mine = f"{leases.host_id}/{process_start_marker(os.getpid())}"
    assert [r.pid_started for r in leases.rows()] == [mine]


def test_another_host_keeps_its_name_until_its_lease_expires(leases: LeaseTable) -> None:
    _hold(leases, "w1", host="elsewhere", pid=4242, marker="9", age=10)
    with pytest.raises(ExecutorIdInUse) as caught:
        leases.register("w1", __version__)
    assert "pid 4242 on host elsewhere (heartbeat 10 s ago)" in caught.value.message
    assert "once its lease expires (in 20 s)" in caught.value.hint
    with leases.engine.begin() as conn:  # silent for longer than the lease
        conn.execute(executors.update().values(heartbeat_at=time.time() - 31))
    leases.register("w1", __version__)
    assert [(r.hostname, r.pid) for r in leases.rows()] == [(leases.hostname, os.getpid())]


def test_a_stopped_holder_gives_its_name_up(leases: LeaseTable) -> None:
    _hold(leases, "w1", host="elsewhere", pid=4242, marker="9", age=0)
    leases.mark_stopped("w1")
    leases.register("w1", __version__)
    assert [r.hostname for r in leases.rows()] == [leases.hostname]


def test_a_forgotten_lease_registers_again_on_the_next_heartbeat(leases: LeaseTable) -> None:
    """Another process forgot this one's row (judged dead): it comes back, so its later
    runs are not taken for a dead executor's."""
    leases.register("w1", __version__)
    leases.forget(leases.rows())
    assert leases.rows() == []
    leases.heartbeat("w1", __version__)
    assert [r.executor_id for r in leases.rows()] == ["w1"]


def test_a_row_renewed_since_it_was_judged_is_not_forgotten(leases: LeaseTable) -> None:
    leases.register("w1", __version__)
    judged = leases.rows()
    time.sleep(0.01)
    leases.heartbeat("w1", __version__)  # renewed after the judgement was read
    leases.forget(judged)
    assert [r.executor_id for r in leases.rows()] == ["w1"]


def test_a_live_process_on_this_host_is_never_dead_whatever_its_heartbeat(
    leases: LeaseTable,
) -> None:
    """An outage (or a wall-clock step) makes every heartbeat old: a live pid still counts."""
    leases.register("w1", __version__)
    with leases.engine.begin() as conn:
        conn.execute(executors.update().values(heartbeat_at=time.time() - 10_000))
    (row,) = leases.rows()
    assert not leases.is_dead(row)
    assert not leases.is_dead(row, observer=LeaseObserver(0.001))


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_another_host_is_dead_only_after_a_whole_lease_watched_unrenewed(
    leases: LeaseTable,
) -> None:
    _hold(leases, "w1", host="elsewhere", pid=4242, marker="9", age=0)
    clock = _Clock()
    observer = LeaseObserver(30, clock=clock)
    observer.connected_now()
    (row,) = leases.rows()
    assert not leases.is_dead(row, observer=observer)  # first look
    clock.now += 29
    assert not leases.is_dead(row, observer=observer)
    clock.now += 2
    assert leases.is_dead(row, observer=observer)  # 31 s unchanged while connected


def test_a_renewal_or_an_outage_restarts_the_watch(leases: LeaseTable) -> None:
    _hold(leases, "w1", host="elsewhere", pid=4242, marker="9", age=0)
    clock = _Clock()
    observer = LeaseObserver(30, clock=clock)
    observer.connected_now()
    (row,) = leases.rows()
    leases.is_dead(row, observer=observer)
    clock.now += 20
    observer.disconnected()  # the database did not answer: nobody could renew
    clock.now += 60  # a long outage
    assert not leases.is_dead(row, observer=observer)
    observer.connected_now()
    assert not leases.is_dead(row, observer=observer)  # watched from the reconnect on
    clock.now += 29
    assert not leases.is_dead(row, observer=observer)
    with leases.engine.begin() as conn:  # it renews
        conn.execute(executors.update().values(heartbeat_at=time.time()))
    (renewed,) = leases.rows()
    clock.now += 29
    assert not leases.is_dead(renewed, observer=observer)
    clock.now += 31
    assert leases.is_dead(renewed, observer=observer)


def test_a_wall_clock_step_makes_no_live_executor_dead(
    leases: LeaseTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The wall clock jumps an hour ahead in the judging process: nothing it watches
    depends on it (monotonic watch; same host by pid)."""
    leases.register("here", __version__)
    _hold(leases, "w1", host="elsewhere", pid=4242, marker="9", age=0)
    observer = LeaseObserver(30)
    observer.connected_now()
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() + 3600)
    rows = leases.rows()
    assert [leases.is_dead(r, observer=observer) for r in rows] == [False, False]


def test_a_name_taken_over_stops_the_old_holder(leases: LeaseTable) -> None:
    leases.register("w1", __version__)
    with leases.engine.begin() as conn:  # another host took the name after the lease
        conn.execute(executors.update().values(hostname="elsewhere", pid=4242))
    with pytest.raises(ExecutorIdTaken) as caught:
        leases.heartbeat("w1", __version__)
    assert "taken over by pid 4242 on host elsewhere" in caught.value.message
    assert _pid_of(leases, "w1") == 4242  # the new holder's row stays

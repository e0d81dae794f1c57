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
from cfnops.durable._leases import LeaseTable, executors, process_start_marker


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
    assert [r.pid_started for r in leases.rows()] == [process_start_marker(os.getpid())]


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
    """Another process forgot this one's row (silent past its lease): it comes back, so
    its runs are not taken for a dead executor's from then on."""
    leases.register("w1", __version__)
    leases.forget(["w1"])
    assert leases.live_ids() == set()
    leases.heartbeat("w1", __version__)
    assert leases.live_ids() == {"w1"}


def test_a_name_taken_over_stops_the_old_holder(leases: LeaseTable) -> None:
    leases.register("w1", __version__)
    with leases.engine.begin() as conn:  # another host took the name after the lease
        conn.execute(executors.update().values(hostname="elsewhere", pid=4242))
    with pytest.raises(ExecutorIdTaken) as caught:
        leases.heartbeat("w1", __version__)
    assert "taken over by pid 4242 on host elsewhere" in caught.value.message
    assert _pid_of(leases, "w1") == 4242  # the new holder's row stays

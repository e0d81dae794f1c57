"""Resource pools: a Task that names a pool waits for a slot; waiting shows in history."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jobs_test_functions  # noqa: F401  (registers the local function jobs-test-logged)
import pytest
from tests._runtime import runtime_for

from cfnops.cli.main import run
from cfnops.durable import Engine
from cfnops.jobs import JobService
from cfnops.jobs._pools import PoolStore, pools_of
from cfnops.jobs.errors import UnknownPool


def pooled_definition(log: str, pool: str, sleep: float = 0.3) -> dict[str, Any]:
    """A Map whose iterations each run one Task that holds a slot of ``pool``."""
    return {
        "StartAt": "Each",
        "States": {
            "Each": {
                "Type": "Map",
                "ItemsPath": "$.items",
                "MaxConcurrency": 0,
                "ItemSelector": {"mark.$": "$$.Map.Item.Value"},
                "ItemProcessor": {
                    "StartAt": "Copy",
                    "States": {
                        "Copy": {
                            "Type": "Task",
                            "Comment": f"heavy copy cfnops:pool={pool}",
                            "Resource": "arn:aws:states:::lambda:invoke",
                            "Parameters": {
                                "FunctionName": "jobs-test-logged",
                                "Payload": {"log": log, "mark.$": "$.mark", "sleep": sleep},
                            },
                            "End": True,
                        }
                    },
                },
                "End": True,
            }
        },
    }


def max_overlap(log: Path) -> int:
    """The most Tasks that ran at once, from the start/end marks in ``log``."""
    events: list[tuple[float, int]] = []
    for line in log.read_text().splitlines():
        mark, stamp = line.split()[:2]
        events.append((float(stamp), 1 if mark.endswith("-start") else -1))
    best = cur = 0
    for _, delta in sorted(events, key=lambda e: (e[0], e[1])):
        cur += delta
        best = max(best, cur)
    return best


def test_pools_of_reads_the_comment_convention() -> None:
    definition = pooled_definition("log", "db")
    assert pools_of(definition) == {"Copy": "db"}
    definition["States"]["Each"]["ItemProcessor"]["States"]["Copy"]["Comment"] = "no pool"
    assert pools_of(definition) == {}


def test_a_pool_of_one_serialises_map_iterations(job_engine: Engine, tmp_path: Path) -> None:
    jobs = JobService(runtime_for(job_engine.settings))
    pools = PoolStore(jobs.store.engine)
    pools.set("pool-one", 1)
    log = tmp_path / "log"
    run_id = jobs.start(
        pooled_definition(str(log), "pool-one"),
        {"items": ["a", "b", "c"]},
        machine_name="pool-one-test",
    )
    result = jobs.wait(run_id, timeout=60)
    assert result.status == "SUCCEEDED", result
    assert max_overlap(log) == 1
    history = jobs.store.history(run_id)
    types = [e["type"] for e in history]
    assert types.count("ResourcePoolWaitStarted") == 2  # the second and third wait
    assert types.count("ResourcePoolAcquired") == 2
    waited = [e for e in history if e["type"] == "ResourcePoolAcquired"]
    assert all(e["details"]["pool"] == "pool-one" for e in waited)
    assert max(e["details"]["waitedSeconds"] for e in waited) >= 0.3
    assert pools.get("pool-one").in_use == 0


def test_slots_of_ended_runs_are_freed_and_a_holder_keeps_its_slot(job_engine: Engine) -> None:
    jobs = JobService(runtime_for(job_engine.settings))
    pools = PoolStore(jobs.store.engine)
    pools.set("pool-stale", 1)
    for run_id in ("stale-1", "stale-2"):
        jobs.store.create_run(run_id, "stale", {"StartAt": "P", "States": {}}, {})
    assert pools.try_acquire("pool-stale", "stale-1", "T#1")
    assert pools.try_acquire("pool-stale", "stale-1", "T#1")  # a recovered run: same slot
    assert not pools.try_acquire("pool-stale", "stale-2", "T#1")
    jobs.store.finish_run("stale-1", "FAILED", None, "E", "crashed holding the slot")
    assert pools.try_acquire("pool-stale", "stale-2", "T#1")
    assert pools.get("pool-stale").holders == (("stale-2", "T#1"),)


def test_an_unknown_pool_is_refused_before_anything_is_written(
    job_engine: Engine,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    jobs = JobService(runtime_for(job_engine.settings))
    definition = pooled_definition(str(tmp_path / "log"), "no-such-pool")
    with pytest.raises(UnknownPool, match="'no-such-pool' \\(Task 'Copy' of unknown-pool\\)"):
        jobs.start(definition, {"items": []}, machine_name="unknown-pool", name="unknown-pool-1")
    assert jobs.store.find_run("unknown-pool-1") is None
    path = tmp_path / "unknown-pool.asl.json"
    path.write_text(json.dumps(definition))
    monkeypatch.setenv("CFNOPS_DATABASE_URL", job_engine.settings.database_url)
    capsys.readouterr()
    assert run(["job", "run", str(path), "--input", '{"items": []}', "--name", "unknown-2"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "unknown resource pool 'no-such-pool'" in err and "cfnops job pool set" in err
    assert jobs.store.find_run("unknown-2") is None


def test_pool_cli(
    job_engine: Engine, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CFNOPS_DATABASE_URL", job_engine.settings.database_url)

    def cfnops(*args: str) -> tuple[int, Any]:
        capsys.readouterr()
        code = run(["-o", "json", "job", "pool", *args])
        out = capsys.readouterr().out
        return code, json.loads(out) if out.strip() else None

    assert cfnops("set", "cli-pool", "--capacity", "3") == (
        0,
        [{"name": "cli-pool", "capacity": 3, "inUse": 0, "holders": []}],
    )
    code, rows = cfnops("list")
    assert code == 0 and "cli-pool" in [r["name"] for r in rows]
    assert cfnops("set", "cli-pool", "--capacity", "0")[0] == 2
    assert cfnops("remove", "cli-pool") == (0, {"name": "cli-pool", "removed": True})


def test_a_schedule_naming_an_unknown_pool_is_refused(job_engine: Engine, tmp_path: Path) -> None:
    from cfnops.jobs import TriggerService

    jobs = JobService(runtime_for(job_engine.settings))
    before = jobs.store.list_schedules()
    with pytest.raises(UnknownPool, match="no-such-pool"):
        TriggerService(jobs).add_schedule(
            "pooled-nightly",
            "pooled.asl.json",
            pooled_definition("log", "no-such-pool"),
            "cron(0 2 * * ? *)",
            "UTC",
            {},
        )
    assert jobs.store.list_schedules() == before

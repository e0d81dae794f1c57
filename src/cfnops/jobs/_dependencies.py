"""Job-net dependencies: start B when A (or all of a set) has succeeded.

A dependency entry is a row of the schedules table (kind ``after``): the job-net to start,
the names of the job-nets it waits for (``expression``, a JSON list) and a watermark
(``next_fire``): only runs that ended SUCCEEDED after it count. When every job-net of the
set has such a run, one run of B starts, named after those runs (``<entry>-after-<hash>``)
so that two workers racing start it once, and the watermark moves past them. With a wait
timeout, a set still incomplete that long after its first success is given up: an alert
``dependency-timeout`` is recorded (and notified) and the watermark moves on.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import sqlalchemy as sa

from cfnops.jobs._definition import machine_name
from cfnops.jobs._service import JobService
from cfnops.jobs._starts import record_alert, start_entry
from cfnops.jobs._tables import runs
from cfnops.jobs.errors import DependencyCycle, UnknownJobNet

__all__ = ["add_dependency", "find_cycle", "fire_dependencies"]

Notify = Callable[[str, str, Mapping[str, Any]], None]


def find_cycle(edges: Mapping[str, Sequence[str]]) -> list[str] | None:
    """A cycle in ``job-net → the job-nets it waits for``, as a path, or None."""
    state: dict[str, int] = {}  # 1 visiting, 2 done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in edges.get(node, ()):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if state.get(nxt) is None:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def _known_job_nets(jobs: JobService) -> set[str]:
    names = {r["machine_name"] for r in jobs.store.list_schedules()}
    with jobs.store.engine.connect() as conn:
        found: list[Any] = list(conn.execute(sa.select(runs.c.machine_name).distinct()).scalars())
    names.update(str(n) for n in found)
    return names


def add_dependency(
    jobs: JobService,
    name: str,
    definition_path: str,
    definition: Mapping[str, Any],
    after: Sequence[str],
    value: Any,
    options: Mapping[str, Any],
) -> dict[str, Any]:
    """Add (or replace) the entry; refuse unknown job-nets and cycles before writing."""
    mine = machine_name(definition_path)
    known = _known_job_nets(jobs)
    for pred in after:
        if pred not in known:
            raise UnknownJobNet(pred, sorted(known))
    edges: dict[str, list[str]] = {}
    for row in jobs.store.list_schedules("after"):
        if row["name"] != name:
            edges.setdefault(row["machine_name"], []).extend(json.loads(row["expression"]))
    edges.setdefault(mine, []).extend(after)
    cycle = find_cycle(edges)
    if cycle:
        raise DependencyCycle(cycle)
    from cfnops.asl import check_definition
    from cfnops.jobs._pools import PoolStore

    check_definition(definition)
    PoolStore(jobs.store.engine).check(definition, mine)
    row = {
        "name": name,
        "kind": "after",
        "definition": json.dumps(definition),
        "machine_name": mine,
        "expression": json.dumps(sorted(set(after))),
        "timezone": str(options.get("timezone") or "UTC"),
        "input": json.dumps(value),
        "next_fire": time.time(),
        "options": json.dumps(dict(options)),
    }
    jobs.store.put_schedule(row)
    return row


def _successes(jobs: JobService, machine: str, after: float) -> list[tuple[str, float]]:
    with jobs.store.engine.connect() as conn:
        rows = conn.execute(
            sa.select(runs.c.run_id, runs.c.stopped_at)
            .where(
                runs.c.machine_name == machine,
                runs.c.status == "SUCCEEDED",
                runs.c.stopped_at > after,
            )
            .order_by(runs.c.stopped_at)
        ).all()
    return [(str(r[0]), float(r[1])) for r in rows]


def fire_dependencies(jobs: JobService, notify: Notify | None = None) -> list[str]:
    """Start each dependent job-net whose set has all succeeded; time out stale sets."""
    started: list[str] = []
    now = time.time()
    for row in jobs.store.list_schedules("after"):
        if json.loads(row["options"] or "{}").get("disabled"):
            continue
        watermark = float(row["next_fire"] or 0)
        preds: list[str] = json.loads(row["expression"])
        firsts = {p: s[0] for p in preds if (s := _successes(jobs, p, watermark))}
        opts = json.loads(row["options"] or "{}")
        if len(firsts) == len(preds):
            ids = sorted(run_id for run_id, _ in firsts.values())
            digest = hashlib.sha256("\n".join(ids).encode()).hexdigest()[:12]
            run_id = f"{row['name']}-after-{digest}"[:80]
            start_entry(jobs, row, run_id, f"after:{row['name']}", now)
            newest = max(t for _, t in firsts.values())
            if jobs.store.advance_schedule(row["name"], row["next_fire"], newest):
                started.append(run_id)
            continue
        timeout = opts.get("waitTimeout")
        if firsts and timeout and now - min(t for _, t in firsts.values()) > float(timeout):
            key = f"{row['name']}@{watermark:.3f}"
            details = {
                "entry": row["name"],
                "succeeded": sorted(firsts),
                "missing": sorted(set(preds) - set(firsts)),
                "waitTimeout": timeout,
            }
            advanced = jobs.store.advance_schedule(row["name"], row["next_fire"], now)
            if advanced and record_alert(jobs, key, "dependency-timeout", details) and notify:
                notify(key, "dependency-timeout", details)
    return started

"""Fleet throughput: runs/s and latency of queued runs on 1 and 3 workers.

For each database (SQLite; PostgreSQL when a server can be started here with
tests/durable/pg_server.py, or ``--postgres URL``) and each worker count (1 and 3):

1. a fresh database (a new SQLite file; a new PostgreSQL database);
2. N ``cfnops worker`` processes (the default settings, as an operator starts them;
   ``--variant`` changes them) with two kinds of run, measured like for like
   (``--kinds``): ``step``, a one-step workflow (``bench.one-step``: one checkpointed
   step), and ``job``, a job run Pass → Task → Pass (the Task a local function), as a
   ``cfnops job run`` makes;
3. ``--runs`` runs (default 500) queued on the ``cfnops`` queue by a client;
4. timed from the first enqueue to the last run SUCCEEDED (polled every 50 ms).

Prints runs/s, and p50/p95 latency (a run's creation to its end, as recorded) per
configuration: medians over ``--rounds`` rounds (default 3), the configurations
interleaved and their order rotating by round, with the load average of each round.

Because the machine may be shared, it also prints what a run costs, which load does
not change: SQL statements and commits per run in the workers (counted by SQLAlchemy
event listeners the workflow module installs; the idle rate — queue polling,
heartbeats — measured for 2 s before the runs and subtracted), the client's statements
per enqueue, the workers' CPU ms per run, and the statements a run issues by kind.
Figures go in docs/durable.md; the issue's reference on this machine is 150 runs/s
(SQLite, 1 worker) and 85 runs/s (PostgreSQL, 1 worker).

    python benchmarks/fleet_throughput.py [--runs 500] [--rounds 3] [--postgres URL]
"""

from __future__ import annotations

import argparse
import json
import os
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import uuid
from collections import Counter
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from cfnops.database import Database
from cfnops.runtime import Runtime

ROOT = Path(__file__).resolve().parents[1]

# Installed in every process that imports it (the workers, through the workflow
# module, and this script): counts statements and commits on every SQLAlchemy engine
# and, in a worker, writes them with its CPU time to COUNTS_DIR/<pid>.json every 0.2 s.
COUNTERS = textwrap.dedent(
    """
    import json, os, re, threading, time
    from collections import Counter
    import sqlalchemy as sa
    from sqlalchemy import event

    counts = {"statements": 0, "commits": 0, "sql_s": 0.0}
    kinds = Counter()
    _lock = threading.Lock()
    _TABLE = re.compile(r"\\b(?:FROM|INTO|UPDATE)\\s+([\\w.\\"]+)", re.I)

    def _kind(sql):
        verb = (sql.split() or ["?"])[0].upper()
        found = _TABLE.search(sql)
        return verb + " " + (found.group(1).replace('"', "") if found else "")

    @event.listens_for(sa.engine.Engine, "before_cursor_execute")
    def _before(conn, cursor, statement, params, context, many):
        conn.info.setdefault("bench_t", []).append(time.perf_counter())

    @event.listens_for(sa.engine.Engine, "after_cursor_execute")
    def _after(conn, cursor, statement, params, context, many):
        took = time.perf_counter() - conn.info["bench_t"].pop()
        with _lock:
            counts["statements"] += 1
            counts["sql_s"] += took
            kinds[_kind(statement)] += 1

    @event.listens_for(sa.engine.Engine, "commit")
    def _commit(conn):
        with _lock:
            counts["commits"] += 1

    def snapshot():
        with _lock:
            return {**counts, "cpu_s": time.process_time(), "kinds": dict(kinds)}

    def _write(folder):
        while True:
            path = os.path.join(folder, f"{os.getpid()}.json")
            with open(path + ".tmp", "w") as fh:
                json.dump(snapshot(), fh)
            os.replace(path + ".tmp", path)
            time.sleep(0.2)

    if os.environ.get("BENCH_COUNTS_DIR"):
        threading.Thread(
            target=_write, args=(os.environ["BENCH_COUNTS_DIR"],), daemon=True
        ).start()
    """
)

WORKFLOW = textwrap.dedent(
    """
    import bench_fleet_counters  # noqa: F401  (statement and commit counts)
    from aws_durable_execution_sdk_python import DurableContext, durable_execution
    from cfnops.durable import workflow
    from cfnops.jobs import register_function

    @workflow("bench.one-step")
    @durable_execution
    def one_step(event, context: DurableContext):
        return context.step(lambda _: event["n"] * 2, name="double")

    register_function("bench-double", lambda payload, ctx: payload["n"] * 2)
    """
)

# The job run measured beside the one-step workflow: Pass -> Task -> Pass.
JOB = {
    "StartAt": "Before",
    "States": {
        "Before": {"Type": "Pass", "Next": "Double"},
        "Double": {
            "Type": "Task",
            "Resource": "arn:aws:states:::lambda:invoke",
            "Parameters": {"FunctionName": "bench-double", "Payload": {"n.$": "$.n"}},
            "ResultSelector": {"n.$": "$.Payload"},
            "Next": "After",
        },
        "After": {"Type": "Pass", "End": True},
    },
}


def _worker(
    url: str, folder: Path, log: Path, src: str | None, counts: Path, extra: dict[str, str]
) -> subprocess.Popen[str]:
    env = dict(os.environ)
    env.update(extra)
    env.update(
        BENCH_COUNTS_DIR=str(counts),
        CFNOPS_DATABASE_URL=url,
        CFNOPS_WORKER__WORKFLOW_MODULES='["bench_fleet_workflow"]',
        PYTHONPATH=os.pathsep.join(
            [*([src] if src else []), str(folder), env.get("PYTHONPATH", "")]
        ),
    )
    with log.open("w") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "cfnops", "worker"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
        )
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], 120)
    if not ready or not proc.stdout.readline().startswith("cfnops worker"):
        raise SystemExit(f"a worker did not start: {log.read_text()[-2000:]}")
    return proc


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _snapshot(counts: Path, pids: list[int]) -> dict[str, Any]:
    """The workers' counters summed (each written at most 0.2 s ago)."""
    time.sleep(0.3)
    total: dict[str, Any] = {"statements": 0, "commits": 0, "sql_s": 0.0, "cpu_s": 0.0}
    kinds: Counter[str] = Counter()
    for pid in pids:
        found = json.loads((counts / f"{pid}.json").read_text())
        for key in ("statements", "commits", "sql_s", "cpu_s"):
            total[key] += found[key]
        kinds.update(found["kinds"])
    total["kinds"] = kinds
    total["at"] = time.perf_counter()
    return total


def _per_run(
    idle: tuple[dict[str, Any], dict[str, Any]],
    busy: tuple[dict[str, Any], dict[str, Any]],
    runs: int,
) -> dict[str, Any]:
    """What one run cost the workers: the busy window minus the idle rate over it."""
    (i0, i1), (b0, b1) = idle, busy
    share = (b1["at"] - b0["at"]) / (i1["at"] - i0["at"])
    cost = {
        key: (b1[key] - b0[key] - share * (i1[key] - i0[key])) / runs
        for key in ("statements", "commits", "sql_s", "cpu_s")
    }
    idle_kinds = i1["kinds"] - i0["kinds"]
    cost["kinds"] = {
        kind: (n - share * idle_kinds.get(kind, 0)) / runs
        for kind, n in (b1["kinds"] - b0["kinds"]).items()
    }
    return cost


def measure(
    url: str,
    workers: int,
    runs: int,
    folder: Path,
    src: str | None = None,
    extra: dict[str, str] | None = None,
    kind: str = "step",
) -> dict[str, Any]:
    """One round: fresh workers on ``url`` (cfnops from ``src`` when given: a baseline
    checkout's ``src`` folder; ``extra`` in their environment); runs/s, p50 and p95
    latency in ms, and what a run cost."""
    import bench_fleet_counters as client_counts  # type: ignore[import-not-found]

    from cfnops.config import load_settings
    from cfnops.durable import RunStore
    from cfnops.jobs import JobService

    counts = folder / f"counts-{uuid.uuid4().hex[:6]}"
    counts.mkdir()
    procs: list[subprocess.Popen[str]] = []
    try:
        for n in range(workers):
            log = folder / f"worker-{n}-{uuid.uuid4().hex[:6]}.err"
            procs.append(_worker(url, folder, log, src, counts, extra or {}))
        pids = [p.pid for p in procs]
        with RunStore(Database.open(url)) as store:
            idle = (_snapshot(counts, pids), None)
            time.sleep(2.0)
            idle = (idle[0], _snapshot(counts, pids))
            prefix = f"fleet-{uuid.uuid4().hex[:8]}-"
            before = client_counts.snapshot()
            busy0 = _snapshot(counts, pids)
            started = time.perf_counter()
            if kind == "job":
                jobs = JobService(Runtime.from_settings(load_settings(database_url=url)))
                for n in range(runs):
                    jobs.start(
                        JOB,
                        {"n": n},
                        machine_name="bench",
                        name=f"{prefix}{n:05d}",
                        queue="cfnops",
                        modules=["bench_fleet_workflow"],
                    )
            else:
                for n in range(runs):
                    store.enqueue("bench.one-step", {"n": n}, run_id=f"{prefix}{n:05d}")
            client = client_counts.snapshot()
            while True:
                done = store.list_runs(
                    status="SUCCEEDED", id_prefix=prefix, limit=runs, load_output=False
                )
                if len(done) >= runs:
                    break
                time.sleep(0.05)
            elapsed = time.perf_counter() - started
            busy1 = _snapshot(counts, pids)
            latencies = [
                (r.updated - r.created).total_seconds() * 1000
                for r in done
                if r.updated is not None and r.created is not None
            ]
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        for proc in procs:
            proc.communicate(timeout=60)
    assert idle[1] is not None
    cost = _per_run((idle[0], idle[1]), (busy0, busy1), runs)
    idle_s = (idle[1]["at"] - idle[0]["at"]) * workers  # per worker
    return {
        "idle_statements_per_s": (idle[1]["statements"] - idle[0]["statements"]) / idle_s,
        "idle_cpu_ms_per_s": (idle[1]["cpu_s"] - idle[0]["cpu_s"]) * 1000 / idle_s,
        "runs_per_s": runs / elapsed,
        "p50_ms": _percentile(latencies, 0.5),
        "p95_ms": _percentile(latencies, 0.95),
        "load": os.getloadavg()[0],
        "statements": cost["statements"],
        "commits": cost["commits"],
        "sql_ms": cost["sql_s"] * 1000,
        "cpu_ms": cost["cpu_s"] * 1000,
        "client_statements": (client["statements"] - before["statements"]) / runs,
        "client_commits": (client["commits"] - before["commits"]) / runs,
        "kinds": cost["kinds"],
    }


def _postgres(stack: ExitStack, given: str | None) -> str | None:
    if given:
        return given
    sys.path.insert(0, str(ROOT / "tests" / "durable"))
    try:
        from pg_server import PostgresUnavailable, postgres_server
    except ImportError:
        return None
    try:
        return stack.enter_context(postgres_server())
    except PostgresUnavailable as exc:
        print(f"PostgreSQL skipped: {exc}", file=sys.stderr)
        return None


def _fresh_pg(base: str) -> str:
    """A new database on ``base``'s server (each round starts empty)."""
    import sqlalchemy as sa

    name = f"fleet_{uuid.uuid4().hex[:10]}"
    engine = sa.create_engine(base.replace("postgresql://", "postgresql+psycopg://"))
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(sa.text(f"CREATE DATABASE {name}"))
    engine.dispose()
    return base.rsplit("/", 1)[0] + f"/{name}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", default="1,3", help="comma-separated worker counts")
    parser.add_argument("--postgres", help="a PostgreSQL URL (default: start a throw-away one)")
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument(
        "--kinds", default="step,job", help="comma-separated run kinds: step, job (both)"
    )
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME:KEY=VALUE[,KEY=VALUE]",
        help="also measure 1 worker per database with these environment settings, "
        "interleaved (e.g. poll-0.05:CFNOPS_WORKER__QUEUE_POLL_SECONDS=0.05)",
    )
    parser.add_argument(
        "--baseline",
        help="the src/ folder of another cfnops checkout: its workers are measured too "
        "(1 worker per database), interleaved with these, as the peer",
    )
    args = parser.parse_args()
    counts = [int(x) for x in args.workers.split(",")]
    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="cfnops-fleet-") as tmp:
        folder = Path(tmp)
        (folder / "bench_fleet_workflow.py").write_text(WORKFLOW)
        (folder / "bench_fleet_counters.py").write_text(COUNTERS)
        sys.path.insert(0, str(folder))  # this process counts its own statements too
        pg = None if args.no_postgres else _postgres(stack, args.postgres)
        backends = ["sqlite", *(["postgres"] if pg else [])]
        kinds = [k for k in args.kinds.split(",") if k]
        configs = [(b, w, "", k) for b in backends for w in counts for k in kinds]
        if args.baseline:
            configs += [(b, 1, "baseline", k) for b in backends for k in kinds]
        variants: dict[str, dict[str, str]] = {}
        for given in args.variant:
            name, _, pairs = given.partition(":")
            variants[name] = dict(pair.split("=", 1) for pair in pairs.split(","))
            configs += [(b, 1, name, k) for b in backends for k in kinds]
        results: dict[tuple[str, int, str, str], list[dict[str, Any]]] = {c: [] for c in configs}
        for round_no in range(args.rounds):
            shift = round_no % len(configs)
            for backend, workers, variant, kind in configs[shift:] + configs[:shift]:
                if backend == "sqlite":
                    url = f"sqlite:///{folder / f'{uuid.uuid4().hex[:8]}.sqlite'}"
                else:
                    assert pg is not None
                    url = _fresh_pg(pg)
                src = args.baseline if variant == "baseline" else None
                found = measure(url, workers, args.runs, folder, src, variants.get(variant), kind)
                results[(backend, workers, variant, kind)].append(found)
                print(
                    f"round {round_no + 1} {backend:8} {workers} worker(s) {kind} {variant}: "
                    f"{found['runs_per_s']:.1f} runs/s, p50 {found['p50_ms']:.0f} ms, "
                    f"p95 {found['p95_ms']:.0f} ms; load {found['load']:.1f}; per run "
                    f"{found['statements']:.1f} statements, {found['commits']:.1f} commits, "
                    f"{found['cpu_ms']:.1f} ms CPU",
                    file=sys.stderr,
                )
        _report(args.runs, args.rounds, results)


def _report(
    runs: int, rounds_done: int, results: dict[tuple[str, int, str, str], list[dict[str, Any]]]
) -> None:
    summary = []
    print(
        f"\n{runs} runs per configuration (step: one checkpointed step; job: Pass -> Task -> "
        f"Pass), medians of {rounds_done} interleaved rounds"
    )
    print(
        f"{'database':10} {'kind':>4} {'workers':>16} {'runs/s':>14} {'p50 ms':>8} {'p95 ms':>8} "
        f"{'load':>5} {'stmts/run':>9} {'commits':>7} {'SQL ms':>6} {'CPU ms':>6} {'client':>6} "
        f"{'idle st/s':>9} {'idle CPU':>8}"
    )
    for (backend, workers, variant, kind), rounds in results.items():
        rate = [r["runs_per_s"] for r in rounds]
        row: dict[str, Any] = {
            "database": backend,
            "kind": kind,
            "workers": workers,
            "variant": variant or "this",
            "runs_per_s": statistics.median(rate),
            "runs_per_s_range": [min(rate), max(rate)],
        }
        for key in (
            "p50_ms",
            "p95_ms",
            "load",
            "statements",
            "commits",
            "sql_ms",
            "cpu_ms",
            "idle_statements_per_s",
            "idle_cpu_ms_per_s",
        ):
            row[key] = statistics.median(r[key] for r in rounds)
        row["client_statements"] = statistics.median(r["client_statements"] for r in rounds)
        row["client_commits"] = statistics.median(r["client_commits"] for r in rounds)
        kinds = sorted(rounds[-1]["kinds"].items(), key=lambda kv: -kv[1])
        row["kinds"] = {k: round(v, 2) for k, v in kinds if abs(v) >= 0.05}
        summary.append(row)
        print(
            f"{backend:10} {kind:>4} {workers:>7} {variant or 'this':>8} {row['runs_per_s']:>7.1f} "
            f"({min(rate):.0f}-{max(rate):.0f}) {row['p50_ms']:>8.0f} {row['p95_ms']:>8.0f} "
            f"{row['load']:>5.1f} {row['statements']:>9.1f} {row['commits']:>7.1f} "
            f"{row['sql_ms']:>6.1f} {row['cpu_ms']:>6.1f} {row['client_statements']:>6.1f} "
            f"{row['idle_statements_per_s']:>9.1f} {row['idle_cpu_ms_per_s']:>8.1f}"
        )
    print("\nstatements per run by kind (last round):")
    for row in summary:
        print(f"  {row['database']} {row['kind']} {row['workers']} {row['variant']}:")
        for kind, n in row["kinds"].items():
            print(f"    {n:6.2f}  {kind}")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()

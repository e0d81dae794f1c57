"""Fleet throughput: runs/s and latency of queued runs on 1 and 3 workers.

For each database (SQLite; PostgreSQL when a server can be started here with
tests/durable/pg_server.py, or ``--postgres URL``) and each worker count (1 and 3):

1. a fresh database (a new SQLite file; a new PostgreSQL database);
2. N ``cfnops worker`` processes (``--concurrency 8``) with a one-step workflow
   (``bench.one-step``: one checkpointed step, as a short real run has);
3. ``--runs`` runs (default 500) queued on the ``cfnops`` queue by a client;
4. timed from the first enqueue to the last run SUCCEEDED (polled every 50 ms).

Prints runs/s, and p50/p95 latency (a run's creation to its end, as recorded) per
configuration: medians over ``--rounds`` rounds (default 3), the configurations
interleaved and their order rotating by round. Figures go in docs/durable.md;
the issue's reference on this machine is 150 runs/s (SQLite, 1 worker) and
85 runs/s (PostgreSQL, 1 worker).

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
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

WORKFLOW = textwrap.dedent(
    """
    from aws_durable_execution_sdk_python import DurableContext, durable_execution
    from cfnops.durable import workflow

    @workflow("bench.one-step")
    @durable_execution
    def one_step(event, context: DurableContext):
        return context.step(lambda _: event["n"] * 2, name="double")
    """
)


def _worker(url: str, folder: Path, log: Path, src: str | None) -> subprocess.Popen[str]:
    env = dict(os.environ)
    env.update(
        CFNOPS_DATABASE_URL=url,
        CFNOPS_WORKER__WORKFLOW_MODULES='["bench_fleet_workflow"]',
        PYTHONPATH=os.pathsep.join(
            [*([src] if src else []), str(folder), env.get("PYTHONPATH", "")]
        ),
    )
    with log.open("w") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "cfnops", "worker", "--concurrency", "8"],
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


def measure(
    url: str, workers: int, runs: int, folder: Path, src: str | None = None
) -> dict[str, float]:
    """One round: fresh workers on ``url`` (cfnops from ``src`` when given: a baseline
    checkout's ``src`` folder); runs/s, p50 and p95 latency in ms."""
    from cfnops.config import load_settings
    from cfnops.durable import RunStore

    procs: list[subprocess.Popen[str]] = []
    try:
        for n in range(workers):
            log = folder / f"worker-{n}-{uuid.uuid4().hex[:6]}.err"
            procs.append(_worker(url, folder, log, src))
        with RunStore(load_settings(database_url=url)) as store:
            prefix = f"fleet-{uuid.uuid4().hex[:8]}-"
            started = time.perf_counter()
            for n in range(runs):
                store.enqueue("bench.one-step", {"n": n}, run_id=f"{prefix}{n:05d}")
            while True:
                done = store.list_runs(
                    status="SUCCEEDED", id_prefix=prefix, limit=runs, load_output=False
                )
                if len(done) >= runs:
                    break
                time.sleep(0.05)
            elapsed = time.perf_counter() - started
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
    return {
        "runs_per_s": runs / elapsed,
        "p50_ms": _percentile(latencies, 0.5),
        "p95_ms": _percentile(latencies, 0.95),
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
        "--baseline",
        help="the src/ folder of another cfnops checkout: its workers are measured too "
        "(1 worker per database), interleaved with these, as the peer",
    )
    args = parser.parse_args()
    counts = [int(x) for x in args.workers.split(",")]
    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="cfnops-fleet-") as tmp:
        folder = Path(tmp)
        (folder / "bench_fleet_workflow.py").write_text(WORKFLOW)
        pg = None if args.no_postgres else _postgres(stack, args.postgres)
        backends = ["sqlite", *(["postgres"] if pg else [])]
        configs = [(b, w, "") for b in backends for w in counts]
        if args.baseline:
            configs += [(b, 1, "baseline") for b in backends]
        results: dict[tuple[str, int, str], list[dict[str, float]]] = {c: [] for c in configs}
        for round_no in range(args.rounds):
            shift = round_no % len(configs)
            for backend, workers, variant in configs[shift:] + configs[:shift]:
                if backend == "sqlite":
                    url = f"sqlite:///{folder / f'{uuid.uuid4().hex[:8]}.sqlite'}"
                else:
                    assert pg is not None
                    url = _fresh_pg(pg)
                src = args.baseline if variant else None
                found = measure(url, workers, args.runs, folder, src)
                results[(backend, workers, variant)].append(found)
                print(
                    f"round {round_no + 1} {backend:8} {workers} worker(s) {variant}: "
                    f"{found['runs_per_s']:.1f} runs/s, p50 {found['p50_ms']:.0f} ms, "
                    f"p95 {found['p95_ms']:.0f} ms",
                    file=sys.stderr,
                )
        summary = []
        print(f"\n{args.runs} runs (one step each), medians of {args.rounds} interleaved rounds")
        print(f"{'database':10} {'workers':>16} {'runs/s':>14} {'p50 ms':>8} {'p95 ms':>8}")
        for (backend, workers, variant), rounds in results.items():
            rate = [r["runs_per_s"] for r in rounds]
            row = {
                "database": backend,
                "workers": workers,
                "variant": variant or "this",
                "runs_per_s": statistics.median(rate),
                "runs_per_s_range": [min(rate), max(rate)],
                "p50_ms": statistics.median(r["p50_ms"] for r in rounds),
                "p95_ms": statistics.median(r["p95_ms"] for r in rounds),
            }
            summary.append(row)
            print(
                f"{backend:10} {workers:>7} {variant or 'this':>8} {row['runs_per_s']:>7.1f} "
                f"({min(rate):.0f}-{max(rate):.0f}) {row['p50_ms']:>8.0f} {row['p95_ms']:>8.0f}"
            )
        print(json.dumps(summary))


if __name__ == "__main__":
    main()

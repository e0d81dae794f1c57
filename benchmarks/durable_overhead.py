"""Per-step checkpoint overhead of cfnops's durable engine, against a peer.

Runs one workflow of N trivial steps (default 1,000):

- on cfnops's engine (DBOS) with SQLite, and with PostgreSQL when a server can
  be started here (tests/durable/pg_server.py) or ``--postgres URL`` is given;
- on the AWS Durable Execution SDK's local runner with its SQLite store (the
  peer), which rewrites the whole execution on every checkpoint.

Prints steps/s, ms/step and the ratio. Targets: <= 3 ms/step on SQLite and
>= 10x the peer at 1,000 steps.

    python benchmarks/durable_overhead.py [--steps 1000] [--peer-steps 1000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

WORKFLOW = textwrap.dedent(
    """
    from aws_durable_execution_sdk_python import DurableContext, durable_execution
    from cfnops.durable import workflow

    @workflow("bench.steps")
    @durable_execution
    def steps(event, context: DurableContext):
        total = 0
        for i in range(int(event["steps"])):
            total += context.step(lambda _, i=i: i, name=f"s{i}")
        return total
    """
)

ENGINE_RUN = textwrap.dedent(
    """
    import json, sys, time
    sys.path.insert(0, sys.argv[1])
    import bench_workflow  # registers bench.steps
    from cfnops.config import load_settings
    from cfnops.durable import Engine
    url, steps = sys.argv[2], int(sys.argv[3])
    engine = Engine.start_process(load_settings(database_url=url))
    engine.start("bench.steps", {"steps": 5}, run_id="warm-up")
    engine.result("warm-up")
    started = time.perf_counter()
    engine.start("bench.steps", {"steps": steps}, run_id="bench")
    assert engine.result("bench") == steps * (steps - 1) // 2
    elapsed = time.perf_counter() - started
    engine.shutdown()
    print(json.dumps({"seconds": elapsed}))
    """
)

PEER_RUN = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    sys.path.insert(0, sys.argv[1])
    import bench_workflow
    from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner
    from aws_durable_execution_sdk_python_testing.stores.sqlite import SQLiteExecutionStore
    steps = int(sys.argv[3])
    store = SQLiteExecutionStore.create_and_initialize(Path(sys.argv[2]))
    with DurableFunctionTestRunner(handler=bench_workflow.steps, store=store) as runner:
        started = time.perf_counter()
        result = runner.run(input=json.dumps({"steps": steps}), execution_timeout=3600)
        elapsed = time.perf_counter() - started
    assert json.loads(result.result) == steps * (steps - 1) // 2, result.status
    print(json.dumps({"seconds": elapsed}))
    """
)


def _measure(script: str, workdir: Path, target: str, steps: int) -> float:
    out = subprocess.run(
        [sys.executable, "-c", script, str(workdir), target, str(steps)],
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip()[-2000:])
    return float(json.loads(out.stdout.strip().splitlines()[-1])["seconds"])


def _line(label: str, steps: int, seconds: float) -> str:
    rate, per_step = steps / seconds, seconds * 1000 / steps
    return f"{label:<34} {steps:>6} steps  {rate:>9.1f} steps/s  {per_step:>8.2f} ms/step"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--peer-steps", type=int, default=None, help="default: --steps")
    parser.add_argument("--postgres", help="postgresql:// URL (default: start one if possible)")
    parser.add_argument("--no-peer", action="store_true")
    args = parser.parse_args()
    peer_steps = args.peer_steps or args.steps

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "bench_workflow.py").write_text(WORKFLOW)
        sqlite_s = _measure(ENGINE_RUN, work, f"sqlite:///{work / 'engine.sqlite'}", args.steps)
        print(_line("cfnops engine (DBOS, SQLite)", args.steps, sqlite_s))

        pg_s = None
        try:
            if args.postgres:
                pg_s = _measure(ENGINE_RUN, work, args.postgres, args.steps)
            else:
                sys.path.insert(0, str(ROOT / "tests" / "durable"))
                from pg_server import PostgresUnavailable, postgres_server

                try:
                    with postgres_server() as url:
                        pg_s = _measure(ENGINE_RUN, work, url, args.steps)
                except PostgresUnavailable as exc:
                    print(f"{'cfnops engine (DBOS, PostgreSQL)':<34} skipped: {exc}")
        except RuntimeError as exc:
            print(f"PostgreSQL run failed: {exc}")
        if pg_s is not None:
            print(_line("cfnops engine (DBOS, PostgreSQL)", args.steps, pg_s))

        if args.no_peer:
            return
        peer_s = _measure(PEER_RUN, work, str(work / "peer.sqlite"), peer_steps)
        print(_line("peer: SDK local runner, SQLite", peer_steps, peer_s))
        ratio = (peer_s / peer_steps) / (sqlite_s / args.steps)
        print(f"ratio (per-step time, peer / cfnops SQLite): {ratio:.1f}x   target >= 10x")
        print(f"cfnops SQLite ms/step: {sqlite_s * 1000 / args.steps:.2f}   target <= 3 ms")


if __name__ == "__main__":
    main()

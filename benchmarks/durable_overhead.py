"""Per-step checkpoint overhead of cfnops's durable engine, against raw DBOS and a peer.

cfnops's layer over raw DBOS (the target: within 10 %), per database (SQLite, and
PostgreSQL when a server can be started here, tests/durable/pg_server.py, or
``--postgres URL`` is given): ONE process launches cfnops's engine and also registers a
raw DBOS workflow (``@DBOS.workflow`` summing ``@DBOS.step`` calls, no cfnops code) on
the same DBOS instance, so both run with the same DBOS configuration, database file or
server, connection pool and background threads. Each of ``--layer-rounds`` rounds
(default 15) times one run of each with ``--steps`` trivial steps (each returns its
index), the order alternating; it prints the median wall-clock and CPU (all threads)
ms/step of each, and the median of the rounds' cfnops/raw ratios, with the load average.

Then, one process per engine and round (``--rounds``, default 3, the order rotating):

- cfnops's engine (DBOS) with SQLite (and one run on PostgreSQL);
- raw DBOS in its own process, launched with cfnops's DBOS configuration on an engine
  built as cfnops builds it (here cfnops's own background work, the executor
  heartbeat every 2 s and the recovery sweep every 5 s, counts against cfnops);
- the AWS Durable Execution SDK's local runner with its SQLite store (the peer),
  which rewrites the whole execution on every checkpoint.

Every process warms up before it is timed. Targets: <= 3 ms/step on SQLite and >= 10x
the peer at 1,000 steps.

On the Lambda durable backend (:class:`cfnops.durable.LocalLambda`, the SDK's own
``@durable_execution`` handler): a map of ``--map-items`` items (default 100) whose
items each take 0.1 s, with ``max_concurrency=1`` and unbounded, in interleaved rounds
(target: concurrent <= 1/4 of sequential), and the per-step cost of ``--lambda-steps``
trivial steps.

    python benchmarks/durable_overhead.py [--steps 1000] [--layer-rounds 15] [--layer-only]
        [--rounds 3] [--peer-steps 1000] [--map-items 100] [--lambda-steps 200]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
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

RAW_DBOS_RUN = textwrap.dedent(
    """
    import json, sys, time
    from dbos import DBOS
    from cfnops.database import Database
    # exactly the DBOS configuration a cfnops command launches (serializer, listener
    # pace, application version, hide_parameters) on the engine cfnops builds (SQLite:
    # IMMEDIATE writers, busy timeout, WAL, synchronous=NORMAL, the same pool)
    from cfnops.durable._dbos_setup import COMMAND_LISTENER_POLL_SECONDS, dbos_config
    url, steps = sys.argv[2], int(sys.argv[3])
    database = Database.open(url)

    @DBOS.step()
    def one(i):
        return i

    @DBOS.workflow()
    def steps_wf(n):
        return sum(one(i) for i in range(n))

    engine = database.engine if database.is_sqlite else None
    DBOS(config=dbos_config(url, "raw-dbos", engine,
                            listener_poll_seconds=COMMAND_LISTENER_POLL_SECONDS))
    DBOS.launch()
    DBOS.start_workflow(steps_wf, 5).get_result()
    started = time.perf_counter()
    assert DBOS.start_workflow(steps_wf, steps).get_result() == steps * (steps - 1) // 2
    elapsed = time.perf_counter() - started
    DBOS.destroy()
    print(json.dumps({"seconds": elapsed}))
    """
)

# cfnops's step and raw DBOS's step in ONE process, on one DBOS instance (so the same
# configuration, database, pool and background threads by construction), one run of
# each per round, their order alternating; wall-clock and CPU time (all threads).
LAYER_RUN = textwrap.dedent(
    """
    import json, sys, time
    sys.path.insert(0, sys.argv[1])
    import bench_workflow  # registers bench.steps
    from dbos import DBOS
    from cfnops.config import load_settings
    from cfnops.durable import Engine
    url, steps, rounds = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

    @DBOS.step()
    def one(i):
        return i

    @DBOS.workflow()
    def raw_steps(n):
        return sum(one(i) for i in range(n))

    engine = Engine.start_process(load_settings(database_url=url))

    def cfnops_run(n):
        return engine.result(engine.start("bench.steps", {"steps": n}).run_id)

    def raw_run(n):
        return DBOS.start_workflow(raw_steps, n).get_result()

    runs = {"cfnops": cfnops_run, "raw": raw_run}
    for run in runs.values():  # warm-up
        run(20)
    out = {name: {"wall": [], "cpu": []} for name in runs}
    for round_ in range(rounds):
        for name in sorted(runs, reverse=bool(round_ % 2)):
            wall, cpu = time.perf_counter(), time.process_time()
            assert runs[name](steps) == steps * (steps - 1) // 2
            out[name]["cpu"].append(time.process_time() - cpu)
            out[name]["wall"].append(time.perf_counter() - wall)
    engine.shutdown()
    print(json.dumps(out))
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


LAMBDA_RUN = textwrap.dedent(
    """
    import json, sys, time
    from aws_durable_execution_sdk_python import DurableContext, durable_execution
    from aws_durable_execution_sdk_python.config import MapConfig
    from cfnops.config import load_settings
    from cfnops.durable import Engine, lambda_function
    url, items, mode = sys.argv[2], int(sys.argv[3]), sys.argv[4]

    @lambda_function("bench-map")
    @durable_execution
    def bench_map(event, context: DurableContext):
        def item(ctx, n, index, all_items):
            return ctx.step(lambda _: time.sleep(event["seconds"]) or n, name=f"item-{n}")
        config = MapConfig(max_concurrency=event["concurrency"])
        return sum(context.map(list(range(event["items"])), item, config=config).get_results())

    @lambda_function("bench-steps")
    @durable_execution
    def bench_steps(event, context: DurableContext):
        return sum(context.step(lambda _, i=i: i, name=f"s{i}") for i in range(event["steps"]))

    settings = load_settings(database_url=url)
    engine = Engine.start_process(settings)
    backend = engine.local_lambda()
    backend.wait(backend.start_execution("bench-steps", {"steps": 5}), 60)  # warm-up
    if mode == "steps":
        name, event = "bench-steps", {"steps": items}
    else:
        concurrency = 1 if mode == "sequential" else None
        name = "bench-map"
        event = {"items": items, "seconds": 0.1, "concurrency": concurrency}
    started = time.perf_counter()
    record = backend.wait(backend.start_execution(name, event), 3600)
    elapsed = time.perf_counter() - started
    assert record["status"] == "SUCCEEDED", record["error"]
    assert json.loads(record["result"]) == items * (items - 1) // 2
    engine.shutdown()
    print(json.dumps({"seconds": elapsed}))
    """
)


def _lambda_backend(work: Path, rounds: int, items: int, steps: int) -> None:
    """Concurrent vs sequential map, and per-step cost, on the Lambda durable backend."""
    modes = [("sequential", items), ("concurrent", items), ("steps", steps)]
    times: dict[str, list[float]] = {mode: [] for mode, _ in modes}
    for round_ in range(rounds):
        shift = round_ % len(modes)
        for mode, n in modes[shift:] + modes[:shift]:
            db = work / f"lambda-{mode}-{round_}.sqlite"
            out = subprocess.run(
                [sys.executable, "-c", LAMBDA_RUN, str(work), f"sqlite:///{db}", str(n), mode],
                capture_output=True,
                text=True,
                check=False,
            )
            if out.returncode != 0:
                raise RuntimeError(out.stderr.strip()[-2000:])
            times[mode].append(float(json.loads(out.stdout.strip().splitlines()[-1])["seconds"]))
    seq, conc = statistics.median(times["sequential"]), statistics.median(times["concurrent"])
    print(
        f"Lambda backend map of {items} items x 0.1 s (SQLite, median of {rounds}): "
        f"sequential {seq:.2f} s, concurrent {conc:.2f} s, "
        f"ratio {conc / seq:.3f}   target <= 0.25"
    )
    print(
        _line("Lambda backend steps (SQLite)", steps, statistics.median(times["steps"]))
        + f"  {_spread(times['steps'], steps)}"
    )


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.1f} / {five:.1f} / {fifteen:.1f} on {os.cpu_count()} CPUs"


def _layer(work: Path, label: str, url: str, steps: int, rounds: int) -> None:
    """cfnops's step against raw DBOS's on one DBOS instance (see LAYER_RUN); prints
    medians and the median of the rounds' ratios (each round's two runs are neighbours
    in time, so the ratio of a pair is what the machine's load varies least)."""
    print(f"{label}: {rounds} rounds of {steps} steps each, {_load()}")
    out = subprocess.run(
        [sys.executable, "-c", LAYER_RUN, str(work), url, str(steps), str(rounds)],
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip()[-2000:])
    found = json.loads(out.stdout.strip().splitlines()[-1])
    for clock in ("wall", "cpu"):
        cf, raw = found["cfnops"][clock], found["raw"][clock]
        ratios = [a / b for a, b in zip(cf, raw, strict=True)]
        print(
            f"  {clock:>4}: cfnops {statistics.median(cf) * 1000 / steps:.3f} ms/step "
            f"{_spread(cf, steps)}, raw DBOS {statistics.median(raw) * 1000 / steps:.3f} "
            f"ms/step {_spread(raw, steps)}; cfnops/raw per round: median "
            f"{statistics.median(ratios):.3f} (range {min(ratios):.2f}-{max(ratios):.2f})"
            + ("   target <= 1.10" if clock == "wall" else "")
        )
    print(f"  after: {_load()}")


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


def _spread(values: list[float], steps: int) -> str:
    per_step = [v * 1000 / steps for v in values]
    return f"(range {min(per_step):.2f}-{max(per_step):.2f} ms/step)"


def _postgres(work: Path, args: argparse.Namespace) -> None:
    """The layer comparison and one cfnops run on PostgreSQL (``--postgres`` or a
    throw-away server started here, as the tests do)."""

    def measure(url: str) -> None:
        if args.layer_rounds:
            _layer(
                work,
                "cfnops step vs raw DBOS step (PostgreSQL)",
                url,
                args.steps,
                args.layer_rounds,
            )
        if not args.layer_only:
            pg_s = _measure(ENGINE_RUN, work, url, args.steps)
            print(_line("cfnops engine (DBOS, PostgreSQL)", args.steps, pg_s) + "  (one run)")

    try:
        if args.postgres:
            measure(args.postgres)
            return
        sys.path.insert(0, str(ROOT / "tests" / "durable"))
        from pg_server import PostgresUnavailable, postgres_server

        try:
            with postgres_server() as url:
                measure(url)
        except PostgresUnavailable as exc:
            print(f"PostgreSQL skipped: {exc}")
    except RuntimeError as exc:
        print(f"PostgreSQL run failed: {exc}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--peer-steps", type=int, default=None, help="default: --steps")
    parser.add_argument("--postgres", help="postgresql:// URL (default: start one if possible)")
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--no-peer", action="store_true")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each (median kept)")
    parser.add_argument(
        "--layer-rounds",
        type=int,
        default=15,
        help="rounds of the cfnops-vs-raw-DBOS comparison in one process (0: skip it)",
    )
    parser.add_argument(
        "--layer-only", action="store_true", help="only the cfnops-vs-raw-DBOS comparisons"
    )
    parser.add_argument(
        "--map-items", type=int, default=100, help="items of the Lambda backend's map (0: skip)"
    )
    parser.add_argument("--lambda-steps", type=int, default=200)
    args = parser.parse_args()
    peer_steps = args.peer_steps or args.steps

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "bench_workflow.py").write_text(WORKFLOW)
        if args.layer_rounds:
            _layer(
                work,
                "cfnops step vs raw DBOS step (SQLite)",
                f"sqlite:///{work / 'layer.sqlite'}",
                args.steps,
                args.layer_rounds,
            )
        if not args.no_postgres:
            _postgres(work, args)
        if args.layer_only:
            return
        if args.map_items:
            _lambda_backend(work, args.rounds, args.map_items, args.lambda_steps)
        engines: list[tuple[str, str, int, str]] = [
            ("cfnops engine (DBOS, SQLite)", ENGINE_RUN, args.steps, "engine"),
            ("raw DBOS (cfnops's DBOS settings)", RAW_DBOS_RUN, args.steps, "raw"),
        ]
        if not args.no_peer:
            engines.append(("peer: SDK local runner, SQLite", PEER_RUN, peer_steps, "peer"))
        print(f"one process per engine and round: {_load()}")
        times: dict[str, list[float]] = {label: [] for label, *_ in engines}
        for round_ in range(args.rounds):
            shift = round_ % len(engines)
            for label, script, steps, name in engines[shift:] + engines[:shift]:
                db = work / f"{name}-{round_}.sqlite"
                target = str(db) if script is PEER_RUN else f"sqlite:///{db}"
                times[label].append(_measure(script, work, target, steps))
        medians = {label: statistics.median(values) for label, values in times.items()}
        for label, _, steps, _ in engines:
            print(f"{_line(label, steps, medians[label])}  {_spread(times[label], steps)}")
        sqlite_s, raw_s = medians[engines[0][0]], medians[engines[1][0]]
        pairs = [a / b for a, b in zip(times[engines[0][0]], times[engines[1][0]], strict=True)]
        print(
            f"cfnops's layer over raw DBOS: {(sqlite_s - raw_s) * 1000 / args.steps:+.2f} ms/step "
            f"({sqlite_s / raw_s:.2f}x raw DBOS's time; per round: median "
            f"{statistics.median(pairs):.2f}x, range {min(pairs):.2f}-{max(pairs):.2f}; separate "
            "processes, noisier than the one-process comparison above)"
        )
        print(
            f"medians of {args.rounds} round(s), one process per engine and round, "
            f"the engines' order rotating by round, each after a warm-up run; {_load()}"
        )
        if args.no_peer:
            return
        peer_s = medians[engines[2][0]]
        ratio = (peer_s / peer_steps) / (sqlite_s / args.steps)
        print(f"ratio (per-step time, peer / cfnops SQLite): {ratio:.1f}x   target >= 10x")
        print(f"cfnops SQLite ms/step: {sqlite_s * 1000 / args.steps:.2f}   target <= 3 ms")


if __name__ == "__main__":
    main()

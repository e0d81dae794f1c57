"""AWS's durable-execution conformance requirements on cfnops's local Lambda backend.

Runs every requirement of ``../shared/conformance/durable`` (155 in 10 suites) with the
handler written for it (``tests/durable/conformance``), on SQLite and, with
``--postgres``, on a throw-away PostgreSQL server too (``/usr/lib/postgresql/*/bin``).
Prints one line per failing requirement with the first difference, then
``durable conformance: K/N requirements pass (SQLite)`` and the per-suite figures.
Exit status: 0 when every requirement run passes, 1 when one fails, 2 when the
requirements are missing.

    python benchmarks/durable_conformance.py [--suite step] [--postgres]
        [--database-url URL] [--json FILE]
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "durable"))

from conformance import MODULES  # noqa: E402
from conformance.runner import REQUIREMENTS, LogSink, Outcome, run_all, summary  # noqa: E402

from cfnops.runtime import Runtime  # noqa: E402


def run_on(url: str, only: str | None) -> list[Outcome]:
    from cfnops.config import load_settings
    from cfnops.durable import Engine, functions

    for module in MODULES:
        if (ROOT / "tests" / "durable" / "conformance" / f"{module}.py").exists():
            importlib.import_module(f"conformance.{module}")
    settings = load_settings(database_url=url)
    engine = Engine.start_process(Runtime.from_settings(settings))
    sink = LogSink()
    root = logging.getLogger()
    root.addHandler(sink)
    old = root.level
    root.setLevel(logging.INFO)
    try:
        backend = engine.local_lambda()
        return run_all(backend, sink, set(functions()), only=only)
    finally:
        root.removeHandler(sink)
        root.setLevel(old)
        engine.shutdown(grace_seconds=1)


def report(outcomes: list[Outcome], label: str) -> dict[str, Any]:
    for o in outcomes:
        if not o.passed:
            print(f"FAIL {o.requirement.suite}/{o.requirement.rid}: {o.difference}")
    passed = sum(o.passed for o in outcomes)
    print(f"durable conformance: {passed}/{len(outcomes)} requirements pass ({label})")
    per = summary(outcomes)
    print("  " + ", ".join(f"{s} {ok}/{n}" for s, (ok, n) in per.items()))
    return {"passed": passed, "total": len(outcomes), "suites": per}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", help="one suite (or one requirement id such as 4-1)")
    parser.add_argument("--postgres", action="store_true", help="also on PostgreSQL")
    parser.add_argument(
        "--database-url", help="run on this database only (e.g. a PostgreSQL server of yours)"
    )
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args(argv)
    if not REQUIREMENTS.is_dir():
        print(f"no requirements at {REQUIREMENTS}: nothing to run", file=sys.stderr)
        return 2
    figures: dict[str, Any] = {}
    if args.database_url:
        label = "SQLite" if args.database_url.startswith("sqlite:") else "PostgreSQL"
        figures[label.lower()] = report(run_on(args.database_url, args.suite), label)
        if args.json:
            Path(args.json).write_text(json.dumps(figures, indent=2))
        return _exit_code(figures)
    with tempfile.TemporaryDirectory() as tmp:
        outcomes = run_on(f"sqlite:///{tmp}/conformance.sqlite", args.suite)
        figures["sqlite"] = report(outcomes, "SQLite")
    if args.postgres:
        from pg_server import PostgresUnavailable, postgres_server

        try:
            with postgres_server() as url:
                outcomes = run_on(url, args.suite)
                figures["postgresql"] = report(outcomes, "PostgreSQL")
        except PostgresUnavailable as exc:
            print(f"durable conformance: PostgreSQL not run ({exc})")
            return 2
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    return _exit_code(figures)


def _exit_code(figures: dict[str, Any]) -> int:
    """1 when any requirement failed on any database (CI and scripts see it), else 0."""
    return 1 if any(f["passed"] != f["total"] for f in figures.values()) else 0


if __name__ == "__main__":
    sys.exit(main())

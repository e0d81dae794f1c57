"""AWS's durable-execution conformance requirements on the local Lambda backend (SQLite).

Runs every requirement of ``../shared/conformance/durable`` with the handlers of
``tests/durable/conformance`` (the same runner as ``benchmarks/durable_conformance.py``)
and fails when fewer pass than the floor below, the figure this backend has reached:
raise it when more pass, never lower it to make a regression green.
"""

from __future__ import annotations

import importlib
import json
import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conformance import MODULES
from conformance.runner import IMPOSSIBLE, REQUIREMENTS, LogSink, Outcome, run_all

from cfnops.durable import Engine, functions

# Requirements that pass today (of 155), on SQLite and on PostgreSQL.
FLOOR = 155


def test_the_requirements_are_there() -> None:
    # Missing test data fails the suite (a skip would let CI go green on nothing).
    assert REQUIREMENTS.is_dir(), (
        f"conformance requirements not found at {REQUIREMENTS}: the tests read "
        "../shared/conformance/durable next to the repository; put the shared data there"
    )


@pytest.fixture(scope="module")
def outcomes(engine: Engine) -> Iterator[list[Outcome]]:
    for module in MODULES:
        try:
            importlib.import_module(f"conformance.{module}")
        except ModuleNotFoundError:
            continue
    sink = LogSink()
    root = logging.getLogger()
    old = root.level
    root.addHandler(sink)
    root.setLevel(logging.INFO)
    try:
        backend = engine.local_lambda()
        yield run_all(backend, sink, set(functions()))
    finally:
        root.removeHandler(sink)
        root.setLevel(old)


def test_every_requirement_is_run_or_listed(outcomes: list[Outcome]) -> None:
    assert len(outcomes) == 155
    for outcome in outcomes:
        if outcome.requirement.rid in IMPOSSIBLE:
            assert outcome.difference.startswith("impossible locally:")


def test_conformance_does_not_fall_below_the_floor(outcomes: list[Outcome]) -> None:
    failing = [
        f"{o.requirement.suite}/{o.requirement.rid}: {o.difference}"
        for o in outcomes
        if not o.passed
    ]
    passed = len(outcomes) - len(failing)
    assert passed >= FLOOR, f"{passed}/155 pass (floor {FLOOR}):\n" + "\n".join(failing)


def _own_database(pg_url: str) -> str:
    """A fresh database on the session's server: these runs must not mix with others'."""
    import uuid

    import sqlalchemy as sa

    from cfnops.durable import make_engine

    name = f"conformance_{uuid.uuid4().hex[:8]}"
    engine = make_engine(pg_url, pool_size=1)
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(sa.text(f"CREATE DATABASE {name}"))
    engine.dispose()
    return pg_url.rsplit("/", 1)[0] + "/" + name


def test_conformance_on_postgresql(pg_url: str, tmp_path: Path) -> None:
    """The same requirements on PostgreSQL (a process of its own: DBOS is one per process)."""
    url = _own_database(pg_url)
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "durable_conformance.py"
    out = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, str(script), "--database-url", url, "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    failing = [line for line in done.stdout.splitlines() if line.startswith("FAIL")]
    assert done.returncode == 0, "\n".join([*failing, done.stderr[-3000:]])
    figures = json.loads(out.read_text())["postgresql"]
    assert figures["total"] == 155
    assert figures["passed"] >= FLOOR, "\n".join(failing)

"""Fault injection on real processes: database restarts, full disks, lost files, foreign
workers. Marked ``faults`` (run them alone with ``pytest -m faults``)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
DURABLE = HERE.parent / "durable"
for folder in (HERE, DURABLE):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from pg_server import PostgresCluster, PostgresUnavailable, postgres_cluster  # noqa: E402


@pytest.fixture
def pg_cluster() -> Iterator[PostgresCluster]:
    """A PostgreSQL server of this test's own (the test stops and starts it)."""
    try:
        with postgres_cluster() as cluster:
            yield cluster
    except PostgresUnavailable as exc:
        pytest.skip(f"PostgreSQL test skipped: {exc}")

"""The run tally on both backends: each event counted once, whatever is pruned or
re-read (SQLite here always; PostgreSQL where a server can be started)."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from cfnops.database import Database
from cfnops.durable import RunStore
from cfnops.metrics._tally import PAGE, RunTally

DURABLE_TESTS = Path(__file__).resolve().parents[1] / "durable"


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    if request.param == "sqlite":
        db = Database.open(f"sqlite:///{tmp_path / 'db.sqlite'}")
        yield db
        db.dispose()
        return
    if str(DURABLE_TESTS) not in sys.path:
        sys.path.insert(0, str(DURABLE_TESTS))
    from pg_server import PostgresUnavailable, postgres_server

    try:
        with postgres_server() as url:
            db = Database.open(url)
            yield db
            db.dispose()
    except PostgresUnavailable as exc:
        pytest.skip(f"PostgreSQL test skipped: {exc}")


def _rows(database: Database, first: int, count: int, status: str = "SUCCESS") -> None:
    schema = database.dbos_schema
    md = sa.MetaData(schema=schema)
    names = ("workflow_status", "workflow_input", "workflow_output")
    status_t, input_t, output_t = (sa.Table(n, md, autoload_with=database.engine) for n in names)
    now = int(time.time() * 1000)
    with database.engine.begin() as conn:
        for n in range(first, first + count):
            run_id = f"t-{n:05d}"
            conn.execute(
                status_t.insert().values(
                    workflow_uuid=run_id, status=status, name="cfnops.run",
                    created_at=now, updated_at=now + 50, priority=0,
                )
            )  # fmt: skip
            args = {"namedArgs": {}, "positionalArgs": ["test.tally", {}, {}]}
            conn.execute(input_t.insert().values(workflow_uuid=run_id, inputs=json.dumps(args)))
            conn.execute(
                output_t.insert().values(workflow_uuid=run_id, output='{"outcome": "HEALED"}')
            )


def test_events_are_counted_once_across_pages_prunes_and_re_reads(database: Database) -> None:
    with RunStore(database) as store:
        store.ensure_schema()  # DBOS's tables, as a first engine would make them
    _rows(database, 0, PAGE + 5)  # more than a page
    tally = RunTally(database)
    assert tally.update(max_pages=1) == 2 * PAGE  # started and finished each, a page
    assert tally.update() == 2 * 5  # the rest, on the next scrape
    assert tally.update() == 0  # re-read (the margin): nothing twice
    assert RunTally(database).update() == 0  # another process scraping
    with database.engine.begin() as conn:
        table = "workflow_status" if database.dbos_schema is None else "dbos.workflow_status"
        conn.execute(sa.text(f"DELETE FROM {table} WHERE workflow_uuid < 't-01000'"))
    _rows(database, PAGE + 5, 10, status="ERROR")
    assert tally.update() == 20
    assert tally.started() == {"test.tally": PAGE + 15}
    found = {(f.workflow, f.outcome): f.count for f in tally.finished()}
    assert found == {("test.tally", "HEALED"): PAGE + 5, ("test.tally", "FAILED"): 10}
    ((workflow, buckets, count, total),) = tally.durations([0.01, 0.1])
    assert (workflow, count) == ("test.tally", PAGE + 15)
    assert buckets == [(0.01, 0), (0.1, PAGE + 15)] and total == pytest.approx(0.05 * count)

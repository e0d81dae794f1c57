"""A run started before effects were keyed by typed positions resumes after the upgrade.

Its effects were rows of ``cfnops_job_steps`` keyed by strings (``/Each#1~b1/0/Inner#1@1``);
the first job store to open the database moves them into the engine's checkpoints under
the positions they named, and drops the old table. Finished Tasks are not called again,
a started wait keeps its deadline, and task tokens stay what they were.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from tests._runtime import database_for

from cfnops.asl import FakeInvoker, TaskContext
from cfnops.config import load_settings
from cfnops.database import Database
from cfnops.durable import Attempt, Branch, Mark, Position, Sleep, Visit
from cfnops.jobs import JobStore
from cfnops.jobs._durable_ports import make_token
from cfnops.jobs._legacy_keys import LEGACY_TABLE, digest_text, parse
from cfnops.jobs._runner import execute_run

HERE = Path(__file__).resolve().parent

MACHINE = {
    "StartAt": "Work",
    "States": {
        "Work": {
            "Type": "Task",
            "Resource": "arn:aws:lambda:us-east-1:1:function:f",
            "ResultPath": "$.work",
            "Next": "Nap",
        },
        "Nap": {"Type": "Wait", "Seconds": 30, "Next": "Each"},
        "Each": {
            "Type": "Map",
            "ItemsPath": "$.items",
            "ResultPath": "$.done",
            "End": True,
            "ItemProcessor": {
                "StartAt": "Inner",
                "States": {
                    "Inner": {
                        "Type": "Task",
                        "Resource": "arn:aws:lambda:us-east-1:1:function:f",
                        "End": True,
                    }
                },
            },
        },
    },
}


@pytest.mark.parametrize(
    ("key", "position"),
    [
        ("/Work#1@1", Position.of(Visit("Work", 1), Attempt(1))),
        ("/Nap#3~2", Position.of(Visit("Nap", 3), Sleep(2))),
        (
            "/Each#1~b2/7/Inner#1@3",
            Position.of(Visit("Each", 1), Branch(2, 7), Visit("Inner", 1), Attempt(3)),
        ),
        ("/Each#1~b1/0!failed", Position.of(Visit("Each", 1), Branch(1, 0))),
        ("/a/b#c#12@1", Position.of(Visit("a/b#c", 12), Attempt(1))),
        ("/!notify", Position.of(Mark("notify"))),
        ("/?Work#0123abcd", None),
        ("not a key", None),
    ],
)
def test_old_keys_read_as_the_positions_they_named(key: str, position: Position | None) -> None:
    assert parse(key) == position
    if position is not None and not key.endswith("!failed"):
        assert digest_text(position) == key  # the old spelling, for token digests


def test_task_tokens_are_the_ones_handed_out_before_the_upgrade() -> None:
    entry = Position.of(Visit("Each", 1), Branch(1, 0), Visit("Inner", 1))
    old = hashlib.sha256(b"run-1\n/Each#1~b1/0/Inner#1").hexdigest()[:24]
    raw = base64.urlsafe_b64encode(b"run-1").decode().rstrip("=")
    assert make_token("run-1", entry) == f"cfnops1.{raw}.{old}"


def _old_steps(engine: sa.Engine, rows: list[tuple[str, str, bool, Any]]) -> None:
    """The table and rows as cfnops wrote them before positions were typed."""
    table = sa.Table(
        LEGACY_TABLE,
        sa.MetaData(),
        sa.Column("run_id", sa.String(200), primary_key=True),
        sa.Column("key", sa.String(1000), primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("ok", sa.Boolean, nullable=False),
        sa.Column("result", sa.Text),
        sa.Column("error", sa.Text),
        sa.Column("cause", sa.Text),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    table.create(engine)
    with engine.begin() as conn:
        for key, kind, ok, result in rows:
            conn.execute(
                table.insert().values(
                    run_id="old-1", key=key, kind=kind, ok=ok, result=json.dumps(result),
                    created_at=time.time(),
                )
            )  # fmt: skip


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    spec = importlib.util.spec_from_file_location(
        "pg_server", HERE.parent / "durable" / "pg_server.py"
    )
    assert spec is not None and spec.loader is not None
    pg: Any = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pg)
    try:
        with pg.postgres_server() as url:
            yield url
    except pg.PostgresUnavailable as exc:
        pytest.skip(f"PostgreSQL test skipped: {exc}")


@pytest.fixture(
    params=["sqlite", pytest.param("postgres", marks=[pytest.mark.slow, pytest.mark.postgres])]
)
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'old.sqlite'}"
    return str(request.getfixturevalue("pg_url"))


def test_a_run_started_before_the_upgrade_resumes_after_it(url: str) -> None:
    before = JobStore(database_for(load_settings(database_url=url)))
    before.create_run("old-1", "old", MACHINE, {"items": [{"n": 0}, {"n": 1}]})
    deadline = time.time() - 1  # the 30 s wait began long ago: it is over
    # The old process finished Work, began the wait and finished iteration 0, then died.
    _old_steps(
        before.engine,
        [
            ("/Work#1@1", "task", True, {"worked": True}),
            ("/Nap#1~1", "wait", True, deadline),
            ("/Each#1~b1/0/Inner#1@1", "task", True, {"n": 0, "kept": True}),
        ],
    )
    before.add_control("old-1", "skip", actor="op", state="Nowhere", applied_key="/Work#1")

    after = JobStore(Database.open(url))  # a new process: the first store moves the rows
    assert not sa.inspect(after.engine).has_table(LEGACY_TABLE)
    positions = {c.position for c in after.list_steps("old-1")}
    assert positions == {
        Position.of(Visit("Work", 1), Attempt(1)),
        Position.of(Visit("Nap", 1), Sleep(1)),
        Position.of(Visit("Each", 1), Branch(1, 0), Visit("Inner", 1), Attempt(1)),
    }
    [control] = after.list_controls("old-1")
    assert control.applied_key == Position.of(Visit("Work", 1)).to_json()

    calls: list[Any] = []

    def f(payload: Any, ctx: TaskContext) -> Any:
        calls.append(payload)
        return {**payload, "kept": False} if isinstance(payload, dict) else payload

    result = execute_run(after, "old-1", lambda row: FakeInvoker({"f": f}), account="1" * 12)
    nap = after.get_step("old-1", Position.of(Visit("Nap", 1), Sleep(1)))
    assert nap is not None and nap.result == deadline  # the wait kept its recorded end
    assert result.status == "SUCCEEDED", (result.error, result.cause)
    assert calls == [{"n": 1}]  # only the iteration the old process had not finished
    assert result.output["done"] == [{"n": 0, "kept": True}, {"n": 1, "kept": False}]
    assert JobStore(Database.open(url)).list_steps("old-1")  # a second open moves nothing

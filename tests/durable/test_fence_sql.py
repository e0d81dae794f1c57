"""The fence's ownership check and read, as the plain SQL the port issues on each database.

The check must refuse a token that no longer owns the run and hold the run's status row
locked until the caller's transaction ends, so that no hand-over lands between the check
and the write it guards.
"""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import pytest
import sqlalchemy as sa

from cfnops.durable import Engine, _dbos_port


def _status_row(conn: sa.Connection, run_id: str, owner: str | None, schema: str | None) -> None:
    table = "workflow_status" if schema is None else f'"{schema}".workflow_status'
    conn.exec_driver_sql(
        f"INSERT INTO {table} (workflow_uuid, status, owner_xid) VALUES ('{run_id}', "
        f"'PENDING', {'NULL' if owner is None else repr(owner)})"
    )


def test_the_check_passes_its_owner_and_refuses_any_other_token_on_sqlite(
    engine: Engine,
) -> None:
    db = engine.runtime.database.engine
    with db.begin() as conn:
        _status_row(conn, "fence-sql-1", "token-a", None)
    with db.begin() as conn:
        _dbos_port.check_owner(conn, "fence-sql-1", "token-a")  # its owner: passes
    with pytest.raises(type(_dbos_port.lost_ownership("x"))), db.begin() as conn:
        _dbos_port.check_owner(conn, "fence-sql-1", "token-b")
    with pytest.raises(type(_dbos_port.lost_ownership("x"))), db.begin() as conn:
        _dbos_port.check_owner(conn, "fence-sql-missing", "token-a")  # no such run
    assert _dbos_port.current_owner("fence-sql-1") == ("token-a", "PENDING")
    assert _dbos_port.current_owner("fence-sql-missing") == (None, None)


def test_the_check_holds_the_row_until_the_transaction_ends_on_postgres(pg_url: str) -> None:
    """A hand-over (an UPDATE of the row) waits for the checking transaction to commit."""
    engine = sa.create_engine(pg_url.replace("postgresql://", "postgresql+psycopg://"))
    sys_db = SimpleNamespace(_is_sqlite=False, schema="fence_test")
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql("CREATE SCHEMA IF NOT EXISTS fence_test")
            conn.exec_driver_sql(
                "CREATE TABLE IF NOT EXISTS fence_test.workflow_status "
                "(workflow_uuid TEXT PRIMARY KEY, status TEXT, owner_xid TEXT)"
            )
            conn.exec_driver_sql("DELETE FROM fence_test.workflow_status")
            _status_row(conn, "run-1", "token-a", "fence_test")
        read, params = _dbos_port._owner_sql(sys_db, "read", "run-1")
        with engine.connect() as conn:
            assert tuple(conn.exec_driver_sql(read, params).one()) == ("token-a", "PENDING")
        check, params = _dbos_port._owner_sql(sys_db, "check", "run-1")
        handed_over = threading.Event()

        def hand_over() -> None:
            with engine.begin() as other:
                other.exec_driver_sql(
                    "UPDATE fence_test.workflow_status SET owner_xid = 'token-b' "
                    "WHERE workflow_uuid = 'run-1'"
                )
            handed_over.set()

        with engine.begin() as conn:
            assert conn.exec_driver_sql(check, params).scalar() == "token-a"
            thread = threading.Thread(target=hand_over)
            thread.start()
            time.sleep(0.5)
            assert not handed_over.is_set()  # blocked by the check's row lock
        thread.join(10)
        assert handed_over.is_set()
        with engine.begin() as conn:
            assert conn.exec_driver_sql(check, params).scalar() == "token-b"
    finally:
        with engine.begin() as conn:
            conn.exec_driver_sql("DROP SCHEMA IF EXISTS fence_test CASCADE")
        engine.dispose()

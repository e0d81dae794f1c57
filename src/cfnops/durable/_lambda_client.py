"""The SDK's ``DurableServiceClient`` answered by the local backend, and a Lambda context.

The SDK's ``@durable_execution`` wrapper checkpoints through a client with two calls,
``checkpoint`` (``CheckpointDurableExecution``) and ``get_execution_state``
(``GetDurableExecutionState``). On AWS it is boto3's Lambda client; here each call is a
transaction on the execution's row (:mod:`cfnops.durable._lambda_store`), through the
state machine of :mod:`cfnops.durable._history`.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aws_durable_execution_sdk_python.lambda_service import (
    CheckpointOutput,
    CheckpointUpdatedExecutionState,
    Operation,
    OperationUpdate,
    StateOutput,
)

from cfnops.durable import _history as h

if TYPE_CHECKING:
    from cfnops.durable._lambda_store import ExecutionStore


class CheckpointRejected(Exception):
    """A checkpoint for an execution that has ended (stopped, timed out)."""


def now_ms() -> int:
    return int(time.time() * 1000)


def to_operations(raw: list[dict[str, Any]]) -> list[Operation]:
    return [Operation.from_json_dict(op) for op in raw]


class LocalServiceClient:
    """``CheckpointDurableExecution`` / ``GetDurableExecutionState`` on the local store.

    ``on_invoke(record, connection, op_id)`` creates the chained execution a
    ``CHAINED_INVOKE`` START asks for, in the checkpoint's transaction.
    """

    def __init__(
        self,
        store: ExecutionStore,
        on_invoke: Callable[[dict[str, Any], Any, str], None],
    ) -> None:
        self.store = store
        self.on_invoke = on_invoke

    def checkpoint(
        self,
        durable_execution_arn: str,
        checkpoint_token: str,
        updates: list[OperationUpdate],
        client_token: str | None,
    ) -> CheckpointOutput:
        now = now_ms()
        with self.store.update(durable_execution_arn) as found:
            if found is None:
                raise CheckpointRejected(f"no durable execution {durable_execution_arn}")
            record, conn = found
            if record["status"] != "RUNNING":
                raise CheckpointRejected(
                    f"durable execution {durable_execution_arn} has ended ({record['status']})"
                )
            fired = _fired_ids(record, now)
            changed = h.apply_updates(record, [dict(u.to_dict()) for u in updates], now)
            for op_id in record.pop("pending_invokes", []):
                self.on_invoke(record, conn, op_id)
            ids = list(dict.fromkeys([op["Id"] for op in changed] + fired + record["news"]))
            record["news"] = []
            record["token"] += 1
            ops = h.public_operations(record, [i for i in ids if i in record["ops"]])
            token = None if record["status"] != "RUNNING" else _token(record)
        return CheckpointOutput(
            checkpoint_token=token,
            new_execution_state=CheckpointUpdatedExecutionState(operations=to_operations(ops)),
        )

    def get_execution_state(
        self,
        durable_execution_arn: str,
        checkpoint_token: str,
        next_marker: str,
        max_items: int = 1000,
    ) -> StateOutput:
        record = self.store.get(durable_execution_arn)
        if record is None:
            raise CheckpointRejected(f"no durable execution {durable_execution_arn}")
        return StateOutput(operations=to_operations(h.public_operations(record)))


def _fired_ids(record: dict[str, Any], now: int) -> list[str]:
    """Fire due timers; the ids of the operations that changed."""
    before = {op_id: op["Status"] for op_id, op in record["ops"].items()}
    h.fire_timers(record, now)
    return [i for i, op in record["ops"].items() if before.get(i) != op["Status"]]


def _token(record: dict[str, Any]) -> str:
    return f"{record['arn'].rsplit('/', 1)[-1]}.{record['token']}"


@dataclass
class LocalLambdaContext:
    """What Lambda hands a handler as ``context``: ids, names, the time left."""

    function_name: str
    invoked_function_arn: str
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    function_version: str = "$LATEST"
    memory_limit_in_mb: str = "128"
    log_group_name: str | None = None
    log_stream_name: str | None = None
    tenant_id: str | None = None
    client_context: Any | None = None
    identity: Any | None = None
    deadline: float = field(default_factory=lambda: time.time() + 900)

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self.deadline - time.time()) * 1000))

    def log(self, msg: str) -> None:
        print(msg, end="")

"""Helpers shared by the heal tests (import as tests.heal._support)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from cfnops.config import HealSettings, Settings, to_data, validated
from cfnops.durable import Engine
from cfnops.notify import Notification
from cfnops.sandbox import Sandbox

# Short polls: the sandbox settles every operation on the next request (delays 0).
FAST = {
    "drift_poll_seconds": 1,
    "changeset_poll_seconds": 1,
    "execute_poll_seconds": 1,
    "busy_poll_seconds": 1,
}


@dataclass
class Heal:
    """Starts heal runs on the engine against the sandbox and records notifications."""

    engine: Engine
    sandbox: Sandbox
    settings: Settings
    notes: list[Notification] = field(default_factory=list)

    @property
    def cfn(self) -> Any:
        return self.sandbox.client("cloudformation")

    @property
    def ssm(self) -> Any:
        return self.sandbox.client("ssm")

    def event(self, stack: str, only: bool = False, **heal: Any) -> dict[str, Any]:
        merged = to_data(validated(HealSettings, {**to_data(self.settings.heal), **heal}))
        return {"StackName": stack, "CreateChangeSetOnly": only, "Settings": merged}

    def start(self, stack: str, only: bool = False, run_id: str | None = None, **heal: Any) -> str:
        run_id = run_id or f"heal-test-{uuid.uuid4().hex[:10]}"
        self.engine.start("cfnops.heal", self.event(stack, only, **heal), run_id=run_id)
        return run_id

    def run(self, stack: str, only: bool = False, **heal: Any) -> Any:
        run_id = self.start(stack, only, **heal)
        return self.engine.result(run_id, timeout=60)

    def outcomes(self) -> list[str]:
        return [n.outcome for n in self.notes]


def unique(prefix: str = "heal") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"

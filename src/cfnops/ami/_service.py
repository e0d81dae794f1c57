"""One object the CLI, Lambda-less handlers and the demo share: settings, clients, engine.

The durable engine starts only when a stack (pattern 2) is rotated, and is shut
down by :meth:`Rotator.close` only if this rotator started it.
"""

from __future__ import annotations

import uuid
from typing import Any

from cfnops.ami._parameter import ParameterRotation, rollback_parameter, rotate_parameter
from cfnops.ami._rotate import Rotation, rotate_from_event
from cfnops.ami._stack import (
    StackRotation,
    aws_request,
    build_request,
    previous_stack_image,
    rotate_stack,
)
from cfnops.ami._stack_workflow import use_clients
from cfnops.aws import AwsClients
from cfnops.config import Settings

__all__ = ["Rotator"]


class Rotator:
    """Rotate AMIs with one set of settings and clients."""

    def __init__(
        self,
        settings: Settings,
        clients: AwsClients | None = None,
        *,
        force: bool = False,
        check_compatibility: bool | None = None,
        parameter_key: str | None = None,
        roll: bool | None = None,
    ) -> None:
        self.settings = settings
        self.clients = clients or AwsClients(settings.aws)
        if clients is not None:
            # Stack rotations this process runs use the clients given (their credentials).
            use_clients(aws_request(settings.aws), clients)
        self.force = force
        self.check_compatibility = check_compatibility
        self.parameter_key = parameter_key
        self.roll = roll
        self._engine: Any = None
        self._owns_engine = False

    # -- engine ----------------------------------------------------------------

    def engine(self) -> Any:
        if self._engine is None:
            from cfnops.durable import Engine

            current = Engine.current()
            self._engine = current or Engine.start_process(self.settings)
            self._owns_engine = current is None
        return self._engine

    def close(self) -> None:
        if self._engine is not None and self._owns_engine:
            self._engine.shutdown()
        self._engine = None

    def __enter__(self) -> Rotator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- rotations -------------------------------------------------------------

    def stack(
        self, stack: str, image_id: str, *, run_id: str | None = None, action: str = "rotate"
    ) -> StackRotation:
        request = build_request(
            self.settings,
            stack=stack,
            image_id=image_id,
            parameter_key=self.parameter_key,
            check_compatibility=self.check_compatibility,
            action=action,
            roll=self.roll,
        )
        run_id = run_id or f"ami-{action}-{stack}-{uuid.uuid4().hex[:10]}"
        return rotate_stack(self.engine(), request, run_id=run_id)

    def parameter(self, parameter: str, image_id: str) -> ParameterRotation:
        return rotate_parameter(
            self.clients,
            self.settings.ami,
            parameter=parameter,
            image_id=image_id,
            force=self.force,
            check_compatibility=self.check_compatibility,
        )

    def event(self, data: Any, source: str = "<event>") -> list[Rotation]:
        return rotate_from_event(
            self.clients,
            self.settings.ami,
            data,
            run_stack=lambda stack, image, run_id: self.stack(stack, image, run_id=run_id),
            source=source,
            force=self.force,
            check_compatibility=self.check_compatibility,
        )

    def rollback_parameter(self, parameter: str) -> ParameterRotation:
        return rollback_parameter(
            self.clients,
            self.settings.ami,
            parameter=parameter,
            force=self.force,
            check_compatibility=self.check_compatibility,
        )

    def rollback_stack(self, stack: str) -> StackRotation:
        previous, _ = previous_stack_image(self.settings, stack)
        return self.stack(stack, previous, action="rollback")

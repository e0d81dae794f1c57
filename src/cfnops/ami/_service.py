"""One object the CLI, Lambda-less handlers and the demo share: the runtime and the engine.

The durable engine starts only when a stack (pattern 2) is rotated, and is shut
down by :meth:`Rotator.close` only if this rotator started it.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

from cfnops.ami._parameter import ParameterRotation, rollback_parameter, rotate_parameter
from cfnops.ami._rotate import Rotation, rotate_from_event
from cfnops.ami._stack import (
    StackRotation,
    build_request,
    previous_stack_image,
    rotate_stack,
)
from cfnops.runtime import Runtime

__all__ = ["Rotator"]

# https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/resource-ids.html: 8 or 17 hex digits
_AMI_ID = re.compile(r"ami-(?:[0-9a-f]{8}|[0-9a-f]{17})")


class Rotator:
    """Rotate AMIs with one runtime (settings, clients, database).

    Given settings (and optionally clients), the rotator builds its runtime from them.
    Stack rotations run on the process's engine with this runtime.
    """

    def __init__(
        self,
        runtime: Runtime,
        *,
        force: bool = False,
        check_compatibility: bool | None = None,
        parameter_key: str | None = None,
        roll: bool | None = None,
    ) -> None:
        self.runtime = runtime
        self.settings = runtime.settings
        self.clients = runtime.aws
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
            # Stack rotations run on this runtime (:meth:`stack` hands it to each run).
            self._engine = Engine.start_process(self.runtime)
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

    # -- pre-flight ------------------------------------------------------------

    def check_target(self, image_id: str, *, stack: str | None = None) -> None:
        """Refuse an explicit rotation whose image or stack does not exist (exit 2), before
        any run starts: a rotation from an event waits for its image instead (an AMI
        just created may not be visible yet), an operator's typo should not."""
        from cfnops.ami._images import describe_image
        from cfnops.ami.errors import UnknownImage, UnknownStack

        if not _AMI_ID.fullmatch(image_id):
            raise UnknownImage(
                image_id,
                "not an AMI id",
                "AMI ids are ami- and 8 or 17 hexadecimal digits (aws ec2 describe-images)",
            )
        region = self.clients.region or "this region"
        if stack is not None:
            from cfnops.aws import error_code, error_message

            try:
                self.clients.client("cloudformation").describe_stacks(StackName=stack)
            except Exception as exc:
                if error_code(exc) == "ValidationError" and "does not exist" in error_message(exc):
                    raise UnknownStack(stack, region) from exc
                raise
        if describe_image(self.clients.client("ec2"), image_id).state == "missing":
            raise UnknownImage(
                image_id,
                f"no such AMI in {region}",
                "check the id and --region; for an image still being created, rotate from "
                "its event (--event), which waits for it",
            )

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
        # this rotator's runtime (its clients' credentials), whoever started the engine
        return rotate_stack(self.engine(), request, run_id=run_id, runtime=self.runtime)

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
        previous, _ = previous_stack_image(self.runtime.database, stack)
        return self.stack(stack, previous, action="rollback")

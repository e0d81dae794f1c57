"""Pattern 2 from Python: start the rotate-stack workflow, wait, turn outcomes into errors.

The previous value of the stack's image parameter lives in the run record of the
rotation (``PreviousImageId`` in the output of ``cfnops.ami.rotate-stack``);
:func:`previous_stack_image` reads the newest successful rotation of a stack.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, Protocol

from cfnops.ami._stack_workflow import ROTATE_STACK_WORKFLOW
from cfnops.ami.errors import (
    ImageNotAvailable,
    IncompatibleImage,
    NoImageParameter,
    NothingToRollBack,
    NotRollable,
    StackNotReady,
    UpdateRolledBack,
)
from cfnops.config import AwsSettings, Settings
from cfnops.database import Database

__all__ = [
    "StackRotation",
    "build_request",
    "previous_stack_image",
    "raise_for_outcome",
    "rotate_stack",
]


class EngineLike(Protocol):
    def start(
        self,
        workflow: str,
        event: Any,
        *,
        run_id: str | None = ...,
        queue: str | None = ...,
        runtime: Any = ...,
    ) -> Any: ...

    def result(self, run_id: str, timeout: float | None = ...) -> Any: ...


@dataclass(frozen=True)
class StackRotation:
    """The output of one rotate-stack run."""

    run_id: str
    output: dict[str, Any] = field(default_factory=dict)

    @property
    def outcome(self) -> str:
        return str(self.output.get("outcome", ""))

    @property
    def previous_image_id(self) -> str | None:
        found = self.output.get("PreviousImageId")
        return str(found) if found else None

    def to_json(self) -> dict[str, Any]:
        return {"RunId": self.run_id, **self.output}


def build_request(
    settings: Settings,
    *,
    stack: str,
    image_id: str,
    parameter_key: str | None = None,
    check_compatibility: bool | None = None,
    action: str = "rotate",
    roll: bool | None = None,
) -> dict[str, Any]:
    """The workflow input: the target, the bounded waits, and where AWS is."""
    ami = settings.ami
    return {
        "Roll": ami.roll if roll is None else roll,
        "StackName": stack,
        "ImageId": image_id,
        "ParameterKey": parameter_key or ami.parameter_key,
        "CheckCompatibility": (
            ami.check_compatibility if check_compatibility is None else check_compatibility
        ),
        "Action": action,
        "Waits": {
            "image": ami.image_wait_seconds,
            "busy": ami.stack_busy_wait_seconds,
            "update": ami.update_wait_seconds,
            "drift": ami.drift_wait_seconds,
            "poll": max(1, round(ami.poll_seconds)),
        },
        "Aws": aws_request(settings.aws),
    }


def aws_request(aws: AwsSettings) -> dict[str, Any]:
    """Where AWS is, as a run's input records it (region/endpoint/profile; never secrets)."""
    return {
        k: v
        for k, v in {
            "region": aws.region,
            "profile": aws.profile,
            "endpoint_url": aws.endpoint_url,
            "max_attempts": aws.max_attempts,
        }.items()
        if v is not None
    }


def raise_for_outcome(rotation: StackRotation) -> StackRotation:
    """Return ``rotation`` when it updated (or had nothing to do); raise otherwise."""
    out, stack = rotation.output, str(rotation.output.get("StackName", "?"))
    outcome = rotation.outcome
    if outcome in ("UPDATED", "UNCHANGED", "DRIFTED", "DRIFT_UNKNOWN"):
        # DRIFTED / DRIFT_UNKNOWN: the update ran but drift detection did not find the
        # stack in sync; the caller reports what is still drifted (``cfnops ami`` exits 1)
        return rotation
    if outcome == "ROLLED_BACK":
        raise UpdateRolledBack(stack, str(out.get("StackStatus")), out.get("Failures") or [])
    if outcome == "IMAGE_NOT_AVAILABLE":
        raise ImageNotAvailable(
            str(out.get("ImageId")), str(out.get("ImageState")), float(out.get("Waited", 0))
        )
    if outcome == "INCOMPATIBLE":
        raise IncompatibleImage(
            f"stack {stack}",
            str(out.get("ImageId")),
            str(out.get("PreviousImageId")),
            out.get("Differences") or [],
        )
    if outcome == "NOT_ROLLABLE":
        raise NotRollable(stack, out.get("Problems") or [], out.get("Plan") or {})
    if outcome == "NO_SUCH_PARAMETER":
        raise NoImageParameter(stack, str(out.get("ParameterKey")), out.get("ParameterKeys") or [])
    status = str(out.get("StackStatus"))
    reason = str(out.get("Reason") or "")
    if not reason:
        reason = (
            f"still busy after waiting {out.get('Waited', 0)} s"
            if status.endswith("_IN_PROGRESS")
            else "not in a state that accepts UpdateStack"
        )
    raise StackNotReady(stack, status, reason)


def rotate_stack(
    engine: EngineLike,
    request: dict[str, Any],
    *,
    run_id: str | None = None,
    timeout: float | None = None,
    runtime: Any = None,
) -> StackRotation:
    """Run ``cfnops.ami.rotate-stack`` (the same ``run_id`` again returns the same run);
    ``runtime``: what the run executes on (default: the engine's), e.g. the caller's
    clients when the process's engine was started by someone else."""
    run_id = run_id or f"ami-{request.get('Action', 'rotate')}-{uuid.uuid4().hex[:12]}"
    engine.start(ROTATE_STACK_WORKFLOW, request, run_id=run_id, runtime=runtime)
    output = engine.result(run_id, timeout=timeout)
    return raise_for_outcome(StackRotation(run_id, dict(output or {})))


_UPDATED = ("UPDATED", "DRIFTED", "DRIFT_UNKNOWN")  # outcomes of an update that ran


def previous_stack_image(database: Database, stack: str) -> tuple[str, str]:
    """``(previous image, run id)`` of the newest rotation that updated ``stack``."""
    from cfnops.durable import RunStore

    with RunStore(database) as store:
        url = store.database.url
        runs = store.list_runs(status="SUCCEEDED", workflow=ROTATE_STACK_WORKFLOW, limit=500)
    for record in runs:  # newest first
        out = record.output if isinstance(record.output, dict) else {}
        inp = record.input if isinstance(record.input, dict) else {}
        if inp.get("StackName") == stack and out.get("outcome") in _UPDATED:
            previous = out.get("PreviousImageId")
            if previous:
                return str(previous), record.run_id
    raise NothingToRollBack(f"stack {stack}", f"runs of {ROTATE_STACK_WORKFLOW} in {url}")

"""Pattern 2 as a durable workflow: ``cfnops.ami.rotate-stack``.

Written against the AWS Durable Execution SDK, so it runs on cfnops's engine
(DBOS) and, unchanged, as an AWS Lambda durable function
(:mod:`cfnops.lambda_handlers.ami`). Input (JSON)::

    {"StackName": "web", "ImageId": "ami-...", "ParameterKey": "ImageId",
     "CheckCompatibility": true, "Action": "rotate" | "rollback",
     "Waits": {"image": 600, "busy": 900, "update": 3600, "drift": 300, "poll": 15},
     "Aws": {"region": "...", "endpoint_url": "..."}}

Steps: wait (bounded) for the AMI to be ``available``; wait (bounded) while the
stack is busy; read parameters and capabilities; UpdateStack with the previous
template, the new image and ``UsePreviousValue`` for every other parameter
(``ClientRequestToken`` from the run id); wait for the update to end; on a
rollback, read the failing resources' status reasons from DescribeStackEvents.

The output always says what happened (``outcome``: ``UPDATED``, ``UNCHANGED``,
``ROLLED_BACK``, ``IMAGE_NOT_AVAILABLE``, ``INCOMPATIBLE``, ``STACK_NOT_READY``,
``NO_SUCH_PARAMETER``, ``DRIFTED``, ``DRIFT_UNKNOWN``) together with
``PreviousImageId``: the run record is where the previous value is kept for
``cfnops ami rollback --stack``.

An update that ran is verified: drift detection runs on the stack afterwards, and
the run ends ``UPDATED`` (``"Drift": "IN_SYNC"``) only when it finds the stack in
sync. Otherwise ``DRIFTED`` with ``StillDrifted`` (each resource and property still
drifted, expected and actual) or ``DRIFT_UNKNOWN`` with ``DriftDetection`` (why the
detection did not complete): the image parameter was updated all the same, and the
operator's channels are notified (:func:`cfnops.ami._notes.drift_note`, step
``notify-drifted`` / ``notify-drift_unknown``).
"""

from __future__ import annotations

import math
from typing import Any

from aws_durable_execution_sdk_python import DurableContext, StepContext, durable_execution
from aws_durable_execution_sdk_python.config import Duration, StepConfig
from aws_durable_execution_sdk_python.retries import RetryPresets
from aws_durable_execution_sdk_python.waits import WaitForConditionConfig, WaitForConditionDecision

from cfnops.ami import _stack_steps as steps
from cfnops.ami._images import ImageFacts, compatibility_differences, describe_image
from cfnops.ami._notes import drift_note
from cfnops.ami.errors import InstanceRefreshFailed
from cfnops.aws import AwsClients
from cfnops.durable import runtime_of, workflow
from cfnops.notify import Notification
from cfnops.runtime import Runtime

__all__ = [
    "ROTATE_STACK_EVENT_WORKFLOW",
    "ROTATE_STACK_WORKFLOW",
    "event_targets",
    "rotate_event_stacks",
    "rotate_one_stack",
    "rotate_stack",
    "rotate_stack_event",
    "run_rotation",
]

ROTATE_STACK_WORKFLOW = "cfnops.ami.rotate-stack"
_BAD_IMAGE = ("invalid", "deregistered", "failed", "error", "disabled")
_NO_RETRY = StepConfig(retry_strategy=RetryPresets.none())


def _clients(runtime: Runtime, request: dict[str, Any]) -> AwsClients:
    """The runtime's clients with the run's AWS settings (``Aws``: region, endpoint,
    profile; never secrets), as recorded in its input by the process that started it."""
    aws = request.get("Aws") or {}
    return runtime.aws.configured(**{k: v for k, v in aws.items() if v})


def _attempts(bound: float, poll: int) -> int:
    return max(1, math.ceil(bound / max(1, poll)) + 1)


def _poll_until(done: Any, bound: float, poll: int) -> Any:
    limit = _attempts(bound, poll)

    def decide(state: dict[str, Any], attempt: int) -> WaitForConditionDecision:
        if done(state) or attempt >= limit:
            return WaitForConditionDecision.stop_polling()
        return WaitForConditionDecision.continue_waiting(Duration.from_seconds(poll))

    return decide


def _initial() -> dict[str, Any]:
    return {"polls": 0}


def _result(request: dict[str, Any], outcome: str, **extra: Any) -> dict[str, Any]:
    return {
        "pattern": "stack-parameter",
        "outcome": outcome,
        "StackName": request["StackName"],
        "ParameterKey": request.get("ParameterKey", "ImageId"),
        "ImageId": request["ImageId"],
        "Action": request.get("Action", "rotate"),
        **extra,
    }


def run_rotation(
    request: dict[str, Any], context: DurableContext, run_id: str, runtime: Runtime
) -> dict[str, Any]:
    """The workflow body (shared by the engine entry point and the Lambda handler).

    Its durable steps, in this order, are its checkpoints: ``image-available``,
    ``stack-idle``, ``read-stack``, ``compatibility``, ``roll-check``,
    ``update-stack``, ``update-complete``, ``rollback-reasons``, the drift check's
    steps, ``notify-…``. Each is called here or by a method of :class:`_Rotation`
    named after it; a run replays them in the order it recorded them.
    """
    rotation = _Rotation(request, context, run_id, runtime)
    image_state = rotation.image_available()
    new = ImageFacts.from_json(image_state["image"])
    if new.state != "available":
        waited = rotation.waited(image_state)
        return rotation.result("IMAGE_NOT_AVAILABLE", ImageState=new.state, Waited=waited)
    busy = rotation.stack_idle()
    if busy["status"] not in steps.UPDATABLE:
        waited = rotation.waited(busy)
        return rotation.result("STACK_NOT_READY", StackStatus=busy["status"], Waited=waited)
    info = rotation.read_stack()
    previous = info["CurrentImageId"]
    if rotation.key not in info["ParameterKeys"]:
        return rotation.result("NO_SUCH_PARAMETER", ParameterKeys=info["ParameterKeys"])
    differences = rotation.compatibility(new, previous)
    if differences:
        return rotation.result("INCOMPATIBLE", PreviousImageId=previous, Differences=differences)
    if previous == rotation.image_id:
        return rotation.result("UNCHANGED", PreviousImageId=previous, StackStatus=busy["status"])
    plan: dict[str, Any] = {"groups": []}
    if rotation.roll:
        plan = rotation.roll_check()
        if not plan["ok"]:
            return rotation.result("NOT_ROLLABLE", Problems=plan["problems"], Plan=plan.get("plan"))
    parameters = steps.parameter_list(info["ParameterKeys"], rotation.key, rotation.image_id)
    started = rotation.update_stack(parameters, info["Capabilities"])
    if started.get("busy"):
        return rotation.result("STACK_NOT_READY", StackStatus="busy", Reason=started["reason"])
    done = rotation.update_complete(plan)
    ended = rotation.ended_badly(done, info, previous)
    if ended is not None:
        return ended
    return rotation.verified(done, started, info, previous, parameters)


class _Rotation:
    """One run of :func:`run_rotation`: its request, settings and durable steps."""

    def __init__(
        self, request: dict[str, Any], context: DurableContext, run_id: str, runtime: Runtime
    ) -> None:
        self.request, self.context, self.run_id, self.runtime = request, context, run_id, runtime
        self.clients = _clients(runtime, request)
        self.stack, self.image_id = str(request["StackName"]), str(request["ImageId"])
        self.key = str(request.get("ParameterKey") or "ImageId")
        self.waits = dict(request.get("Waits") or {})
        self.poll = max(1, int(self.waits.get("poll", 15)))
        self.roll = bool(request.get("Roll"))

    def result(self, outcome: str, **extra: Any) -> dict[str, Any]:
        return _result(self.request, outcome, **extra)

    def waited(self, state: dict[str, Any]) -> int:
        """Seconds a wait polled before it stopped."""
        return (int(state["polls"]) - 1) * self.poll

    def _wait(self, check: Any, done: Any, wait: str, default: float, name: str) -> Any:
        bound = float(self.waits.get(wait, default))
        config = WaitForConditionConfig(
            wait_strategy=_poll_until(done, bound, self.poll), initial_state=_initial()
        )
        return self.context.wait_for_condition(check, config, name=name)

    def image_available(self) -> dict[str, Any]:
        def check_image(state: dict[str, Any], _: Any) -> dict[str, Any]:
            facts = describe_image(self.clients.client("ec2"), self.image_id)
            return {"polls": int(state.get("polls", 0)) + 1, "image": facts.to_json()}

        def settled(s: dict[str, Any]) -> bool:
            return s["image"]["State"] in ("available", *_BAD_IMAGE)

        result: dict[str, Any] = self._wait(check_image, settled, "image", 600, "image-available")
        return result

    def stack_idle(self) -> dict[str, Any]:
        def check_stack(state: dict[str, Any], _: Any) -> dict[str, Any]:
            status = steps.stack_status(self.clients.client("cloudformation"), self.stack)
            return {"polls": int(state.get("polls", 0)) + 1, "status": status}

        result: dict[str, Any] = self._wait(
            check_stack, _not_in_progress, "busy", 900, "stack-idle"
        )
        return result

    def read_stack(self) -> Any:
        return self.context.step(
            lambda _: steps.read_stack(self.clients.client("cloudformation"), self.stack, self.key),
            name="read-stack",
        )

    def compatibility(self, new: ImageFacts, previous: Any) -> list[str]:
        """The step ``compatibility`` (when asked for and the image changes): what differs."""
        if not (
            self.request.get("CheckCompatibility", True) and previous and previous != self.image_id
        ):
            return []

        def compare(_: StepContext) -> list[str]:
            current = describe_image(self.clients.client("ec2"), previous)
            return [] if current.state == "missing" else compatibility_differences(new, current)

        differences: list[str] = self.context.step(compare, name="compatibility", config=_NO_RETRY)
        return differences

    def roll_check(self) -> Any:
        return self.context.step(
            lambda _: steps.roll_check(
                self.clients.client("cloudformation"),
                self.clients.client("autoscaling"),
                self.stack,
                self.key,
            ),
            name="roll-check",
        )

    def update_stack(self, parameters: Any, capabilities: Any) -> Any:
        return self.context.step(
            lambda _: steps.start_update(
                self.clients.client("cloudformation"),
                self.stack,
                parameters,
                capabilities,
                steps.client_token(self.run_id),
            ),
            name="update-stack",
        )

    def update_complete(self, plan: dict[str, Any]) -> dict[str, Any]:
        def check_update(state: dict[str, Any], _: Any) -> dict[str, Any]:
            status = steps.stack_status(self.clients.client("cloudformation"), self.stack)
            found = {"polls": int(state.get("polls", 0)) + 1, "status": status}
            if self.roll:
                autoscaling = self.clients.client("autoscaling")
                refreshes = steps.refresh_progress(autoscaling, plan["groups"])
                found["refreshes"] = refreshes
                found["progress"] = _progress_log(list(state.get("progress") or []), refreshes)
            return found

        result: dict[str, Any] = self._wait(
            check_update, _not_in_progress, "update", 3600, "update-complete"
        )
        return result

    def ended_badly(self, done: dict[str, Any], info: Any, previous: Any) -> dict[str, Any] | None:
        """The outcome of an update that rolled back or is still running, else None."""
        status = str(done["status"])
        if self.roll and status in steps.ROLLED_BACK:
            refreshes = done.get("refreshes", [])
            failed = [r for r in refreshes if r.get("Status") not in ("Successful", None)]
            if failed:
                raise InstanceRefreshFailed(self.stack, failed[0], status)
        if status in steps.ROLLED_BACK:
            failures = self.context.step(
                lambda _: steps.collect_failures(
                    self.clients.client("cloudformation"), self.stack, info["LastEventId"]
                ),
                name="rollback-reasons",
            )
            return self.result(
                "ROLLED_BACK", PreviousImageId=previous, StackStatus=status, Failures=failures
            )
        if status.endswith("_IN_PROGRESS"):
            reason = "update still running"
            return self.result("STACK_NOT_READY", StackStatus=status, Reason=reason)
        return None

    def verified(
        self,
        done: dict[str, Any],
        started: Any,
        info: Any,
        previous: Any,
        parameters: Any,
    ) -> dict[str, Any]:
        """The outcome of an update that ended: drift detection has the last word, and the
        operator hears of an image updated on a stack not known to be in sync."""
        outcome = "UPDATED" if started.get("started") else "UNCHANGED"
        verified: dict[str, Any] = {}
        if started.get("started"):
            # "UPDATED" says the stack is in sync: drift detection has to agree.
            verified = _verify_in_sync(
                self.context, self.clients, self.runtime, self.stack, self.waits, self.poll
            )
            if verified["Drift"] != "IN_SYNC":
                outcome = "DRIFTED" if verified["Drift"] == "DRIFTED" else "DRIFT_UNKNOWN"
        rolled = {"Refreshes": done.get("refreshes", []), "Progress": done.get("progress", [])}
        result = self.result(
            outcome,
            PreviousImageId=previous,
            StackStatus=str(done["status"]),
            Parameters=parameters,
            Capabilities=info["Capabilities"],
            **verified,
            **({"Roll": rolled} if self.roll else {}),
        )
        note = drift_note(result, self.run_id)
        if note is not None:  # the image was updated, the stack is not known to be in sync
            region = (self.request.get("Aws") or {}).get("region")
            self.context.step(
                lambda _: _send(self.runtime, note, region), name=f"notify-{outcome.lower()}"
            )
        return result


def _not_in_progress(state: dict[str, Any]) -> bool:
    return not str(state["status"]).endswith("_IN_PROGRESS")


def _send(runtime: Runtime, note: Notification, region: str | None) -> list[dict[str, Any]]:
    deliveries = runtime.notify(note, region)
    return [{"channel": d.channel, "ok": d.ok, "attempts": d.attempts} for d in deliveries]


def _verify_in_sync(
    context: DurableContext,
    clients: AwsClients,
    runtime: Runtime,
    stack: str,
    waits: dict[str, Any],
    poll: int,
) -> dict[str, Any]:
    """Detect drift on the updated stack: ``{"Drift": IN_SYNC | DRIFTED | UNKNOWN}``, with
    ``StillDrifted`` (each resource and property drift detection reports, the configured
    ``[heal] ignore`` rules applied) or ``DriftDetection`` (why it did not complete).

    DetectStackDrift, DescribeStackDriftDetectionStatus, DescribeStackResourceDrifts
    (https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/detect-drift-stack.html).
    """
    detection = context.step(
        lambda _: steps.start_drift_detection(clients.client("cloudformation"), stack),
        name="detect-drift",
    )

    def check(state: dict[str, Any], _: Any) -> dict[str, Any]:
        found = steps.drift_detection_status(clients.client("cloudformation"), detection)
        return {"polls": int(state.get("polls", 0)) + 1, **found}

    state: dict[str, Any] = context.wait_for_condition(
        check,
        WaitForConditionConfig(
            wait_strategy=_poll_until(
                lambda s: s["DetectionStatus"] != "DETECTION_IN_PROGRESS",
                float(waits.get("drift", 300)),
                poll,
            ),
            initial_state=_initial(),
        ),
        name="drift-detected",
    )
    detected = str(state["DetectionStatus"])
    unfinished = {
        "DriftDetection": {
            "Status": detected,
            "Reason": state.get("DetectionStatusReason") or "still in progress after the wait",
        }
    }
    if detected == "DETECTION_IN_PROGRESS":
        return {"Drift": "UNKNOWN", **unfinished}
    # DETECTION_FAILED still has results for the resources it could check (User Guide,
    # "Detect drift on an entire CloudFormation stack"): what drifted there is reported.
    ignore = runtime.settings.heal.ignore
    still: list[dict[str, Any]] = context.step(
        lambda _: steps.still_drifted(clients.client("cloudformation"), stack, ignore),
        name="read-drift",
    )
    extra = {} if detected == "DETECTION_COMPLETE" else unfinished
    if still:
        return {"Drift": "DRIFTED", "StillDrifted": still, **extra}
    if extra:
        return {"Drift": "UNKNOWN", "StillDrifted": [], **extra}
    return {"Drift": "IN_SYNC", "StillDrifted": []}


def _progress_log(
    log: list[dict[str, Any]], refreshes: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Append each refresh's state when it differs from the last one logged for its group."""
    from datetime import UTC, datetime

    for refresh in refreshes:
        entry = {
            k: refresh.get(k)
            for k in (
                "GroupName",
                "Status",
                "PercentageComplete",
                "InstancesToUpdate",
                "StatusReason",
            )
        }
        last = next((e for e in reversed(log) if e.get("GroupName") == entry["GroupName"]), None)
        if last is None or {k: last.get(k) for k in entry} != entry:
            log.append({**entry, "At": datetime.now(UTC).isoformat(timespec="seconds")})
    return log


def _run_id(context: Any) -> str:
    found = getattr(context, "run_id", None)  # cfnops's engine
    if found:
        return str(found)
    state = getattr(context, "state", None)  # the SDK on Lambda
    return str(getattr(state, "durable_execution_arn", "") or "cfnops-ami")


@workflow(ROTATE_STACK_WORKFLOW)
@durable_execution
def rotate_stack(event: dict[str, Any], context: DurableContext) -> dict[str, Any]:
    """Rotate the AMI of one stack through its image parameter (pattern 2), on cfnops's
    engine."""
    return rotate_one_stack(event, context)


def rotate_one_stack(
    event: dict[str, Any], context: DurableContext, runtime: Runtime | None = None
) -> dict[str, Any]:
    """The body of :func:`rotate_stack`; under the SDK's runner or on Lambda pass the
    ``runtime`` (the engine's context carries its own)."""
    return run_rotation(event, context, _run_id(context), runtime_of(context, runtime))


ROTATE_STACK_EVENT_WORKFLOW = "cfnops.ami.rotate-stack-event"


def event_targets(event: Any, runtime: Runtime) -> dict[str, Any]:
    """The stacks an EventBridge event's AMIs are tagged for (the runtime's settings).

    On Lambda the runtime's settings come from ``CFNOPS_*`` variables of the function
    (``CFNOPS_AMI__STACK_TAG``, ``CFNOPS_AMI__POLL_SECONDS``, …).
    """
    from cfnops.ami._events import Skipped, parse_event
    from cfnops.ami._images import resolve_event_images
    from cfnops.ami._stack import build_request

    settings = runtime.settings
    parsed = parse_event(event)
    if isinstance(parsed, Skipped):
        return {"targets": [], "skipped": [parsed.reason]}
    clients = runtime.aws
    targets: list[dict[str, Any]] = []
    skipped: list[str] = []
    for image_id in resolve_event_images(clients, parsed):
        facts = describe_image(clients.client("ec2"), image_id)
        stack = facts.tags.get(settings.ami.stack_tag)
        if not stack:
            skipped.append(f"image {image_id} has no {settings.ami.stack_tag!r} tag")
            continue
        targets.append(build_request(settings, stack=stack, image_id=image_id))
    if not targets and not skipped:
        skipped.append(f"no AMI found for the {parsed.kind} event")
    return {"targets": targets, "skipped": skipped}


@workflow(ROTATE_STACK_EVENT_WORKFLOW)
@durable_execution
def rotate_stack_event(event: dict[str, Any], context: DurableContext) -> dict[str, Any]:
    """Pattern 2 driven by an EventBridge event, on cfnops's engine."""
    return rotate_event_stacks(event, context)


def rotate_event_stacks(
    event: dict[str, Any], context: DurableContext, runtime: Runtime | None = None
) -> dict[str, Any]:
    """Rotate every stack an EventBridge event's AMIs are tagged for (also the body of
    the Lambda durable function, which passes its ``runtime``).

    Skipped events end with ``{"results": [], "skipped": [reasons]}``; each tagged
    stack is rotated in its own child context.
    """
    runtime = runtime_of(context, runtime)
    found = context.step(lambda _: event_targets(event, runtime), name="targets", config=_NO_RETRY)
    run_id = _run_id(context)
    results: list[dict[str, Any]] = []
    for index, request in enumerate(found["targets"]):

        def rotate_one(
            child: DurableContext, request: dict[str, Any] = request, index: int = index
        ) -> dict[str, Any]:
            return run_rotation(request, child, f"{run_id}/{index}", runtime)

        results.append(context.run_in_child_context(rotate_one, name=f"stack-{index}"))
    return {"results": results, "skipped": found["skipped"]}

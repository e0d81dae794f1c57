"""The heal workflow, written against the AWS Durable Execution SDK.

Reference behaviour (reproduced step for step; poll intervals and attempt limits
come from ``[heal]``):

1. step ``detect-drift``: DetectStackDrift → detection id;
2. ``wait-drift-detection``: DescribeStackDriftDetectionStatus until not
   DETECTION_IN_PROGRESS; out of attempts → :class:`WaitTimedOut`;
3. DETECTION_FAILED or drift status UNKNOWN → notify and fail; IN_SYNC → log
   "in sync" and finish; DRIFTED → go on;
4. step ``create-change-set``: CreateChangeSet (UsePreviousTemplate,
   DeploymentMode=REVERT_DRIFT, "Change set for configuration healing", name
   ``healing-changeset-<stack>-<hash of the run id>``, token from the run id);
5. ``wait-change-set``: DescribeChangeSet until CREATE_COMPLETE or FAILED;
   FAILED → notify and fail (nothing revertable → a report, see below);
6. CreateChangeSetOnly → notify with the console URL and finish;
7. step ``execute-change-set`` then ``wait-execution`` until EXECUTE_COMPLETE,
   EXECUTE_FAILED or OBSOLETE, each notified;
7b. (cfnops) after EXECUTE_COMPLETE, ``recheck-drift`` / ``wait-recheck-drift``
   detect drift again: HEALED only when every resource the heal reverted is in
   sync, else NOT_HEALED naming each property still drifted and why
   (:mod:`cfnops.heal._recheck`);
8. notifications carry the SNS subject of :data:`SUBJECT`, stack id, change set id.

Beyond it: ``detect-drift`` looks the stack up first, in the same checkpoint
(busy → ``wait-stack-idle``, a bounded wait, then ``detect-drift (stack
idle)``; forbidden status → clear error); the detection poll that sees DRIFTED
also reads the drifted resources and applies the ignore rules (``"drifted"`` in
its state); the change set poll that sees CREATE_COMPLETE reads the whole change
set and runs the safety gate (``"gate"`` in its state). Folding those reads into
checkpoints the run writes anyway keeps a heal at ten checkpoints (thirteen with the
recheck after execution). A held change
set waits durably on the ``approval`` callback (``cfnops approve`` / ``cfnops
reject``) until ``approval_expiry_hours``, then is deleted. Nested stacks are
healed through their root (:mod:`cfnops.heal._nested`): detection on each, one
change set with ``IncludeNestedStacks``, each nested change set gated against
its own stack's drift; a nested stack given directly fails with
:class:`NestedStackHeal`.
"""

from __future__ import annotations

import json
from typing import Any

from aws_durable_execution_sdk_python import DurableContext, durable_execution
from aws_durable_execution_sdk_python.config import Duration, WaitForCallbackConfig
from aws_durable_execution_sdk_python.exceptions import CallbackTimeoutError
from aws_durable_execution_sdk_python.waits import WaitForConditionConfig

from cfnops.config import HealSettings
from cfnops.durable import runtime_of, workflow
from cfnops.heal import _messages as msg
from cfnops.heal import _steps
from cfnops.heal._cfn import CHECKABLE
from cfnops.heal._event import parse_event
from cfnops.heal._explain import NO_CHANGES_MARKER, unrevertable_drift
from cfnops.heal._names import change_set_name, request_token
from cfnops.heal._recheck import still_drifted
from cfnops.heal._runtime import HealAccount
from cfnops.heal._steps import AWS_STEP, poll_until
from cfnops.heal._urls import change_set_console_url, region_from_stack_arn
from cfnops.heal.errors import (
    ChangeSetFailed,
    DetectionFailed,
    ExecutionFailed,
    NestedStackHeal,
    StackBusy,
    StackNotCheckable,
    StackNotFound,
    WaitTimedOut,
)
from cfnops.notify import Notification, Severity
from cfnops.runtime import Runtime

HEAL_WORKFLOW = "cfnops.heal"
APPROVAL = "approval"


def root_name(stack_id: str) -> str:
    """``arn:…:stack/NAME/UUID`` → NAME (the id itself when it is not an ARN)."""
    parts = stack_id.split("/")
    return parts[1] if stack_id.startswith("arn:") and len(parts) >= 3 else stack_id


def run_identity(context: Any) -> str:
    """The run id on cfnops's engine; the durable execution ARN on AWS Lambda."""
    run_id = getattr(context, "run_id", None)
    if run_id:
        return str(run_id)
    arn = getattr(getattr(context, "state", None), "durable_execution_arn", None)
    return str(arn or "local")


def _last(state: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in state.items() if k != "polls"}


class _Run:
    """One heal run: its ids, settings and the context, so steps read as the reference."""

    def __init__(self, event: Any, context: DurableContext, runtime: Runtime) -> None:
        parsed, heal = parse_event(event)
        self.ctx = context
        self.stack = parsed.StackName
        self.only = parsed.CreateChangeSetOnly
        self.region = parsed.Region
        self.account, self.role_name = parsed.Account, parsed.RoleName
        # Every AWS call of the run is made in its account; notifications stay home.
        self.rt = HealAccount(runtime, self.account, self.role_name)
        self.heal: HealSettings = heal or runtime.settings.heal
        self.run_id = run_identity(context)
        self.stack_id = ""
        self.change_set_id: str | None = None
        self.drifted: list[dict[str, Any]] = []
        self.statuses: dict[str, str] = {}
        self.coverage: dict[str, Any] | None = None
        self.nested: list[dict[str, Any]] = []  # nested stacks' detections (path, ids)
        self.nested_drift: dict[str, Any] = {}  # path → that stack's drifted and statuses

    def out(self, outcome: str, **extra: Any) -> dict[str, Any]:
        return {
            "outcome": outcome,
            "stackName": self.stack,
            "stackId": self.stack_id,
            "changeSetId": self.change_set_id,
            "runId": self.run_id,
            "drifted": self.drifted,
            "coverage": self.coverage,
            **({"account": self.account} if self.account else {}),
            **extra,
        }

    def notify(self, outcome: str, text: str, severity: Severity, **kw: Any) -> None:
        note: Notification = msg.note(
            outcome,
            text,
            severity=severity,
            stack=self.stack,
            stack_id=self.stack_id,
            run_id=self.run_id,
            change_set_id=self.change_set_id,
            drifted=self.drifted,
            **kw,
        )
        region = self.region
        self.ctx.step(
            lambda _: _steps.send(self.rt, note, region), name=f"notify-{outcome.lower()}"
        )

    def poll(self, name: str, check: Any, done: Any, seconds: float, attempts: int) -> Any:
        config = WaitForConditionConfig(
            wait_strategy=poll_until(done, seconds, attempts), initial_state={"polls": 0}
        )
        return self.ctx.wait_for_condition(check, config, name=name)

    # -- the phases -------------------------------------------------------------------

    def _start_detection(self, name: str) -> dict[str, Any]:
        stack, region = self.stack, self.region
        got: dict[str, Any] = self.ctx.step(
            lambda _: _steps.detect_drift(self.rt, stack, region), name=name, config=AWS_STEP
        )
        if got["stack"]["StackStatus"] == "NOT_FOUND":
            raise StackNotFound(stack)
        if got["stack"].get("RootId"):
            raise NestedStackHeal(got["stack"]["StackName"], root_name(got["stack"]["RootId"]))
        self.nested = list(got.get("nested", []))
        return got

    def detect(self) -> dict[str, Any]:
        """Check the stack and start detection (one step); poll until it ends."""
        got = self._start_detection("detect-drift")
        info = got["stack"]
        if "detectionId" not in got and info["StackStatus"].endswith("_IN_PROGRESS"):
            stack, region = self.stack, self.region
            info = self.poll(
                "wait-stack-idle",
                _steps.poll_stack(self.rt, stack, region),
                lambda s: not s["StackStatus"].endswith("_IN_PROGRESS"),
                self.heal.busy_poll_seconds,
                self.heal.busy_max_attempts,
            )
            if info["StackStatus"].endswith("_IN_PROGRESS"):
                raise StackBusy(stack, info["StackStatus"], info["polls"])
            if info["StackStatus"] in CHECKABLE:
                got = self._start_detection("detect-drift (stack idle)")
                info = got["stack"]
            if info["StackStatus"].endswith("_IN_PROGRESS"):
                raise StackBusy(stack, info["StackStatus"], self.heal.busy_max_attempts)
        if "detectionId" not in got:
            raise StackNotCheckable(self.stack, info["StackStatus"])
        self.stack_id, self.stack = info["StackId"], info["StackName"]
        region_from_stack_arn(self.stack_id)  # a malformed ARN fails before any change
        state = self.poll(
            "wait-drift-detection",
            _steps.poll_detection(
                self.rt,
                str(got["detectionId"]),
                self.stack,
                self.region,
                self.heal,
                info.get("DeployedAt"),
                self.nested,
            ),
            lambda s: s["DetectionStatus"] != "DETECTION_IN_PROGRESS",
            self.heal.drift_poll_seconds,
            self.heal.drift_max_attempts,
        )
        if state["DetectionStatus"] == "DETECTION_IN_PROGRESS":
            raise WaitTimedOut(
                self.stack, "DescribeStackDriftDetectionStatus", state["polls"], _last(state)
            )
        return dict(state)

    def create_change_set(self) -> dict[str, Any]:
        stack_id, region = self.stack_id, self.region
        name = change_set_name(self.stack, self.run_id)
        token = request_token(self.run_id, "create")
        nested = bool(self.nested)
        made = self.ctx.step(
            lambda _: _steps.create_change_set(self.rt, stack_id, name, token, region, nested),
            name="create-change-set",
            config=AWS_STEP,
        )
        self.change_set_id = change_set_id = str(made["Id"])
        gating = None if self.only else self.heal
        state = self.poll(
            "wait-change-set",
            _steps.poll_created_change_set(
                self.rt,
                self.stack,
                stack_id,
                change_set_id,
                region,
                gating,
                {"drifted": self.drifted, "statuses": self.statuses, "nested": self.nested_drift},
            ),
            lambda s: s["Status"] in ("CREATE_COMPLETE", "FAILED"),
            self.heal.changeset_poll_seconds,
            self.heal.changeset_max_attempts,
        )
        if state["Status"] not in ("CREATE_COMPLETE", "FAILED"):
            raise WaitTimedOut(self.stack, "DescribeChangeSet", state["polls"], _last(state))
        return dict(state)

    def await_approval(self, reasons: list[str], url: str) -> dict[str, Any]:
        seconds = max(1, round(self.heal.approval_expiry_hours * 3600))
        text = msg.held(self.stack_id, str(self.change_set_id), reasons, self.run_id, url)
        note = msg.note(
            "HELD",
            text,
            severity="warning",
            stack=self.stack,
            stack_id=self.stack_id,
            run_id=self.run_id,
            change_set_id=self.change_set_id,
            url=url,
            drifted=self.drifted,
        )
        region = self.region

        def submitter(callback_id: str, _: Any) -> None:
            _steps.send(self.rt, note, region)

        config = WaitForCallbackConfig(timeout=Duration.from_seconds(seconds))
        try:
            answer = self.ctx.wait_for_callback(submitter, name=APPROVAL, config=config)
        except CallbackTimeoutError:
            return {"decision": "expired", "seconds": seconds}
        if isinstance(answer, str):
            answer = json.loads(answer)
        recorded = dict(answer) if isinstance(answer, dict) else {"decision": "reject"}
        return dict(self.ctx.step(lambda _: recorded, name="record-approval"))

    def delete_change_set(self) -> None:
        stack_id, cs, region = self.stack_id, str(self.change_set_id), self.region
        self.ctx.step(
            lambda _: _steps.delete(self.rt, stack_id, cs, region),
            name="delete-change-set",
            config=AWS_STEP,
        )

    def execute(self) -> dict[str, Any]:
        stack_id, cs, region = self.stack_id, str(self.change_set_id), self.region
        token = request_token(self.run_id, "execute")
        self.ctx.step(
            lambda _: _steps.execute(self.rt, stack_id, cs, token, region),
            name="execute-change-set",
            config=AWS_STEP,
        )
        final = ("EXECUTE_COMPLETE", "EXECUTE_FAILED", "OBSOLETE")
        state = self.poll(
            "wait-execution",
            _steps.poll_change_set(self.rt, stack_id, cs, region),
            lambda s: s["ExecutionStatus"] in final,
            self.heal.execute_poll_seconds,
            self.heal.execute_max_attempts,
        )
        if state["ExecutionStatus"] not in final:
            raise WaitTimedOut(self.stack, "DescribeChangeSet", state["polls"], _last(state))
        return dict(state)

    def recheck(self) -> list[dict[str, Any]]:
        """Detect drift again after the execution; what is still drifted of what was healed."""
        stack, region = self.stack, self.region
        got = self.ctx.step(
            lambda _: _steps.detect_drift(self.rt, stack, region),
            name="recheck-drift",
            config=AWS_STEP,
        )
        if "detectionId" not in got:
            why = f"drift could not be detected again: stack is {got['stack']['StackStatus']}"
            return [{"logicalId": self.stack, "resourceType": "", "path": None, "reason": why}]
        state = self.poll(
            "wait-recheck-drift",
            _steps.poll_detection(
                self.rt,
                str(got["detectionId"]),
                self.stack,
                region,
                self.heal,
                None,
                list(got.get("nested", [])),
            ),
            lambda s: s["DetectionStatus"] != "DETECTION_IN_PROGRESS",
            self.heal.drift_poll_seconds,
            self.heal.drift_max_attempts,
        )
        if state["DetectionStatus"] != "DETECTION_COMPLETE":
            reason = state.get("DetectionStatusReason") or state["DetectionStatus"]
            why = f"drift detection after the heal ended {state['DetectionStatus']}: {reason}"
            return [{"logicalId": self.stack, "resourceType": "", "path": None, "reason": why}]
        return still_drifted(self.drifted, list(state.get("drifted", [])))


def heal_stack(
    event: Any, context: DurableContext, runtime: Runtime | None = None
) -> dict[str, Any]:
    """Detect drift and heal it with a REVERT_DRIFT change set (see the module docstring).

    ``runtime``: settings, clients and notifiers; on cfnops's engine the context
    carries it, under the SDK's own runner or on AWS Lambda pass it. With
    ``Account`` in the event, every AWS call of the run is made in that account
    (STS AssumeRole of ``RoleName``); notifications stay in the caller's account.
    """
    return _heal(_Run(event, context, runtime_of(context, runtime)), context)


def _heal(run: _Run, context: DurableContext) -> dict[str, Any]:
    det = run.detect()
    status, drift = det["DetectionStatus"], det["StackDriftStatus"]
    if status == "DETECTION_FAILED" or drift == "UNKNOWN":
        kind = "UNKNOWN" if status != "DETECTION_FAILED" else status
        reason = det.get("DetectionStatusReason") or kind
        run.notify("DETECTION_FAILED", msg.detection_failed(run.stack_id, kind, reason), "error")
        raise DetectionFailed(run.stack, kind, reason)
    run.coverage = det.get("coverage")
    if drift == "IN_SYNC":
        context.logger.info("in sync")
        return run.out("IN_SYNC")
    if drift == "NOT_CHECKED":
        # Every resource is of a type drift detection does not support.
        context.logger.info("not checkable: no resource supports drift detection")
        return run.out("NOT_CHECKABLE")
    stack_id = run.stack_id
    run.drifted = list(det.get("drifted", []))
    run.statuses = dict(det.get("statuses", {}))
    run.nested_drift = dict(det.get("nested", {}))
    if not any(d["effectiveStatus"] in ("MODIFIED", "DELETED") for d in run.drifted):
        accepted = any(d["effectiveStatus"] == "ACCEPTED" for d in run.drifted)
        context.logger.info("in sync (only ignored or accepted drift)")
        return run.out("IN_SYNC", ignoredOnly=not accepted, acceptedOnly=accepted)
    cs = run.create_change_set()
    cs_id = str(run.change_set_id)
    url = change_set_console_url(stack_id, cs_id)
    if cs["Status"] == "FAILED":
        return _change_set_failed(run, cs, cs_id)
    if run.only:
        text = msg.change_set_only(stack_id, cs_id, url)
        run.notify("CHANGE_SET_CREATED", text, "info", url=url)
        return run.out("CHANGE_SET_CREATED", consoleUrl=url)
    decision: dict[str, Any] = cs["gate"]
    approval: dict[str, Any] | None = None
    if decision["decision"] == "SKIP":
        run.delete_change_set()
        return run.out("IN_SYNC", ignoredOnly=True, gate=decision)
    if decision["decision"] == "HOLD":
        approval = run.await_approval(list(decision["reasons"]), url)
        verdict = approval.get("decision")
        if verdict != "approve":
            return _not_approved(run, decision, approval, cs_id, url)
    return _execute(run, decision, approval, cs_id, url)


def _execute(
    run: _Run, decision: dict[str, Any], approval: dict[str, Any] | None, cs_id: str, url: str
) -> dict[str, Any]:
    """Execute the change set; the run ends HEALED only when a fresh detection agrees."""
    stack_id = run.stack_id
    ex = run.execute()
    extra = {"gate": decision, "approval": approval, "consoleUrl": url}
    if ex["ExecutionStatus"] == "EXECUTE_FAILED":
        reason = str(ex.get("StatusReason") or "no reason given")
        run.notify("EXECUTE_FAILED", msg.execute_failed(stack_id, cs_id, reason), "error", url=url)
        raise ExecutionFailed(run.stack, cs_id, reason)
    if ex["ExecutionStatus"] == "OBSOLETE":
        run.notify("OBSOLETE", msg.obsolete(stack_id, cs_id, url), "warning", url=url)
        return run.out("OBSOLETE", **extra)
    # HEALED means in sync now: a fresh detection must find every healed resource IN_SYNC.
    still = run.recheck()
    if still:
        text = msg.not_healed(stack_id, cs_id, still)
        run.notify("NOT_HEALED", text, "error", url=url, details=msg.still_details(still))
        return run.out("NOT_HEALED", stillDrifted=still, **extra)
    run.notify("HEALED", msg.healed(stack_id, cs_id), "info", url=url)
    return run.out("HEALED", **extra)


def _change_set_failed(run: _Run, cs: dict[str, Any], cs_id: str) -> dict[str, Any]:
    """A change set that failed: nothing CloudFormation can revert, or an error."""
    stack_id = run.stack_id
    if NO_CHANGES_MARKER in str(cs.get("StatusReason", "")):
        lines = unrevertable_drift(run.drifted, region_from_stack_arn(stack_id))
        run.notify("NOT_REVERTABLE", msg.not_revertable(stack_id, cs_id, lines), "warning")
        return run.out("NOT_REVERTABLE", unrevertable=lines)
    reason = str(cs.get("StatusReason") or "no reason given")
    run.notify("CHANGE_SET_FAILED", msg.change_set_failed(stack_id, cs_id, reason), "error")
    raise ChangeSetFailed(run.stack, cs_id, reason)


def _not_approved(
    run: _Run, decision: dict[str, Any], approval: dict[str, Any], cs_id: str, url: str
) -> dict[str, Any]:
    """A held change set nobody approved: deleted, and the run ends EXPIRED or REJECTED."""
    stack_id = run.stack_id
    run.delete_change_set()
    if approval.get("decision") == "expired":
        text = msg.expired(stack_id, cs_id, int(approval["seconds"]))
        run.notify("EXPIRED", text, "warning", url=url)
        return run.out("EXPIRED", gate=decision, approval=approval)
    by, why = str(approval.get("by", "?")), str(approval.get("reason", ""))
    run.notify("REJECTED", msg.decided("rejected", stack_id, cs_id, by, why), "warning")
    return run.out("REJECTED", gate=decision, approval=approval)


@workflow(HEAL_WORKFLOW)
@durable_execution
def heal(event: Any, context: DurableContext) -> dict[str, Any]:
    """The heal workflow as registered on cfnops's engine (``cfnops.heal``)."""
    return heal_stack(event, context)

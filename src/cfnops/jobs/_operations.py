"""Job-manager operations on runs: rerun modes, hold, release, skip and force.

Each action is checked against the run's record first (a bad request changes nothing),
then written durably (the job store), audited (``cfnops.durable.AuditLog``: who, when,
why) and shown in the run's history (see :mod:`cfnops.jobs._controls`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from cfnops.asl import check_definition
from cfnops.config import Settings
from cfnops.durable import Attempt, Position
from cfnops.jobs._runner import iter_states
from cfnops.jobs._store import JobStore, LineageRow, RunRow
from cfnops.jobs._views import state_views
from cfnops.jobs.errors import ActionRefused, JobInputError, UnknownState
from cfnops.runtime import Runtime

if TYPE_CHECKING:
    from cfnops.jobs._rerun import RerunRequest

__all__ = ["RunOperations"]

_ENDED = ("FAILED", "TIMED_OUT", "ABORTED")


class RunOperations:
    """Mixed into :class:`cfnops.jobs.JobService`."""

    settings: Settings
    runtime: Runtime
    store: JobStore
    _launch: Callable[..., None]
    redrive: Callable[..., str]

    # -- reruns --------------------------------------------------------------------------
    def rerun(
        self,
        run_id: str,
        request: RerunRequest,
        *,
        actor: str,
        reason: str | None = None,
        name: str | None = None,
        queue: str | None = None,
    ) -> str:
        """Start a new run from ``run_id``'s record as ``request`` says; its run id."""
        from cfnops.jobs._rerun import plan_rerun  # a rerun's planning: not loaded to run
        from cfnops.jobs._service import _NAME

        origin = self.store.get_run(run_id)
        plan = plan_rerun(
            origin, self.store.history(run_id), self.store.list_steps(run_id), request
        )
        if request.definition is not None:
            check_definition(plan.definition)
        new_id = name or self._rerun_id(run_id)
        fresh = _NAME.match(new_id) is not None and self.store.find_run(new_id) is None
        created = fresh and self.store.create_run(  # False: the name was taken meanwhile
            new_id, origin.machine_name, plan.definition, plan.execution_input,
            options=plan.options, source="rerun",
            rerun_of=LineageRow(new_id, run_id, plan.mode, plan.state), copies=plan.copies,
        )  # fmt: skip
        if not created:
            raise JobInputError(
                "the rerun's name", repr(new_id), "use a new name of 1-80 letters, digits, '-_.'"
            )
        detail = {
            "rerunRunId": new_id,
            "mode": plan.mode,
            "state": plan.state,
            "iterations": request.iterations,
            "editedDefinition": request.definition is not None,
        }
        self._audit(actor, "rerun", run_id, reason, detail)
        self._launch(new_id, queue)
        return new_id

    def _rerun_id(self, run_id: str) -> str:
        count = len(self.store.reruns_of(run_id)) + 1
        while True:
            suffix = f"-rerun{count}"
            candidate = run_id[: 80 - len(suffix)] + suffix
            if self.store.find_run(candidate) is None:
                return candidate
            count += 1

    def lineage(self, run_id: str) -> dict[str, Any]:
        """The run's origin (when it is a rerun), its own reruns, and its operator actions."""
        origin = self.store.lineage_of(run_id)
        return {
            "rerunOf": origin.to_json() if origin else None,
            "reruns": [r.to_json() for r in self.store.reruns_of(run_id)],
            "held": self._held(run_id),
            "operatorActions": [
                {"action": c.action, "state": c.state, "actor": c.actor, "reason": c.reason,
                 "at": c.created_at, "applied": c.applied_key is not None, **c.payload}
                for c in self.store.list_controls(run_id)
            ],
        }  # fmt: skip

    # -- hold / release ------------------------------------------------------------------
    def hold(self, run_id: str, *, actor: str, reason: str | None = None) -> None:
        """No new state starts until :meth:`release` (states running keep running)."""
        self._live(run_id, "hold")
        if self._held(run_id):
            raise ActionRefused("hold", run_id, "it is held already", "release it: job release")
        self._act(run_id, "hold", actor, reason)

    def release(self, run_id: str, *, actor: str, reason: str | None = None) -> None:
        self._live(run_id, "release")
        if not self._held(run_id):
            raise ActionRefused("release", run_id, "it is not held", "hold it first: job hold")
        self._act(run_id, "release", actor, reason)

    def _held(self, run_id: str) -> bool:
        return self.store.held(run_id)

    # -- skip ----------------------------------------------------------------------------
    def skip(
        self, run_id: str, state: str, output: Any, *, actor: str, reason: str | None = None
    ) -> None:
        """Pass ``state`` (not started yet) with ``output`` as its output when reached."""
        row = self._live(run_id, "skip")
        found = self._state(row, state, "skip")
        if found.get("Type") == "Choice":
            raise ActionRefused(
                "skip", run_id, f"{state!r} is a Choice state (it has no single next state)",
                "skip the state the Choice leads to",
            )  # fmt: skip
        for event in self.store.history(run_id):
            if (
                str(event["type"]).endswith("StateEntered")
                and event["details"].get("name") == state
            ):
                raise ActionRefused(
                    "skip", run_id, f"state {state!r} was already reached (event #{event['id']})",
                    "skip only states not yet started; force a running Task: job force",
                )  # fmt: skip
        self._act(run_id, "skip", actor, reason, state=state, payload={"output": output})

    # -- force ---------------------------------------------------------------------------
    def force(
        self,
        run_id: str,
        state: str,
        *,
        ok: bool,
        output: Any = None,
        error: str | None = None,
        cause: str | None = None,
        actor: str,
        reason: str | None = None,
    ) -> None:
        """End a running Task, or the Task a run failed in, with the given outcome.

        A failed run continues from there (a redrive that keeps the forced outcome).
        """
        row = self.store.get_run(run_id)
        found = self._state(row, state, "force")
        if found.get("Type") != "Task":
            raise ActionRefused(
                "force", run_id, f"{state!r} is a {found.get('Type')} state, not a Task",
                "force a Task; pass any other state with job skip",
            )  # fmt: skip
        payload = {"ok": ok, "output": output, "error": error, "cause": cause}
        if row.status == "RUNNING":
            view = state_views(self.store.history(run_id)).get(state)
            if view is None or view.status != "RUNNING":
                raise ActionRefused(
                    "force", run_id, f"Task {state!r} is not running now",
                    "force a Task while it runs, or after the run failed in it",
                )  # fmt: skip
            self._act(run_id, "force", actor, reason, state=state, payload=payload)
            return
        if row.status not in _ENDED:
            raise ActionRefused("force", run_id, f"it {row.status}", "rerun it: job rerun")
        failed = [s for s in self.store.list_steps(run_id)  # oldest first
                  if not s.ok and s.kind == "task" and _state_of(s.position) == state]  # fmt: skip
        if not failed:
            raise ActionRefused(
                "force", run_id, f"Task {state!r} did not fail in it",
                "force the Task the run failed in (job show RUN), or rerun --after-failed",
            )  # fmt: skip
        key = failed[-1].position.entry().then(Attempt(1))
        self._act(run_id, "force", actor, reason, state=state, payload=payload,
                  applied_key=key.to_json())  # fmt: skip

        def write_forced() -> None:
            self.store.put_step(
                run_id, key, "forced", ok=ok, result=output, error=error, cause=cause
            )

        self.redrive(run_id, keep_under=key, after_prepare=write_forced)

    # -- shared --------------------------------------------------------------------------
    def _live(self, run_id: str, action: str) -> RunRow:
        row = self.store.get_run(run_id)
        if row.status != "RUNNING":
            raise ActionRefused(
                action, run_id, f"it is {row.status}, not RUNNING",
                "operator actions apply to running runs; see job rerun for ended ones",
            )  # fmt: skip
        return row

    @staticmethod
    def _state(row: RunRow, state: str, action: str) -> Mapping[str, Any]:
        for name, found in iter_states(row.definition):
            if name == state:
                return found
        raise UnknownState(
            state, f"the definition of run {row.run_id!r}", f"name a state to {action}"
        )

    def _act(
        self,
        run_id: str,
        action: str,
        actor: str,
        reason: str | None,
        *,
        state: str | None = None,
        payload: Mapping[str, Any] | None = None,
        applied_key: str | None = None,
    ) -> int:
        control = self.store.add_control(
            run_id, action, actor=actor, state=state, payload=payload, reason=reason,
            applied_key=applied_key,
        )  # fmt: skip
        detail = {"state": state, **dict(payload or {})} if state else dict(payload or {})
        self._audit(actor, action, run_id, reason, detail)
        return control

    def _audit(
        self, actor: str, action: str, target: str, reason: str | None, detail: Mapping[str, Any]
    ) -> None:
        from cfnops.durable import AuditLog  # an operator's action only: not loaded to run

        with AuditLog(self.runtime.database) as audit:
            audit.record(
                actor=actor, action=action, target=target, reason=reason, detail=dict(detail)
            )


def _state_of(position: Position) -> str | None:
    """The state an effect belongs to (its innermost visit)."""
    visit = position.last_visit()
    return visit.state if visit is not None else None

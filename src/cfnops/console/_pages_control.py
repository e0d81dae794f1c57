"""Job-manager controls on a job run: hold, release, rerun, skip and force.

The job library checks each request against the run's record (a refused one
changes nothing, 4xx) and writes the audit entry itself, with the console's
actor. Whatever must execute (a rerun, a forced Task's redrive) is queued for
``cfnops worker``: the console never runs a job-net in its own process.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from cfnops.console._web import authorize_post, console_of
from cfnops.console.errors import BadFilter
from cfnops.jobs import JobService, RerunRequest

QUEUE = "cfnops"
_MODES = ("from-start", "from", "only", "after-failed")


class QueuedJobs(JobService):
    """A :class:`JobService` whose redrives go to the worker queue."""

    def redrive(self, run_id: str, **kw: Any) -> str:
        kw["queue"] = QUEUE
        return super().redrive(run_id, **kw)


def jobs_for(request: Request) -> QueuedJobs:
    return QueuedJobs(console_of(request).runtime)


def _json_field(form: dict[str, str], name: str) -> Any:
    text = form.get(name, "").strip()
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError as exc:
        raise BadFilter(name, text[:60], f"JSON ({exc})") from None


def require_reason(form: dict[str, str], action: str) -> str:
    """The reason a destructive action needs (kept in the audit log); 400 without one."""
    reason = form.get("reason", "").strip()
    if not reason:
        raise BadFilter("reason", "", f"say why you {action} (it is kept in the audit log)")
    return reason


def _back(run_id: str) -> Response:
    return RedirectResponse(f"/jobs/{run_id}", status_code=303)


async def hold(request: Request) -> Response:
    actor, form = await authorize_post(request, "operator")
    run_id, reason = request.path_params["run_id"], require_reason(form, "hold")
    jobs = jobs_for(request)
    await anyio.to_thread.run_sync(lambda: jobs.hold(run_id, actor=actor, reason=reason))
    return _back(run_id)


async def release(request: Request) -> Response:
    actor, form = await authorize_post(request, "operator")
    run_id, reason = request.path_params["run_id"], require_reason(form, "release")
    jobs = jobs_for(request)
    await anyio.to_thread.run_sync(lambda: jobs.release(run_id, actor=actor, reason=reason))
    return _back(run_id)


async def rerun(request: Request) -> Response:
    actor, form = await authorize_post(request, "operator")
    run_id = request.path_params["run_id"]
    mode = form.get("mode", "")
    if mode not in _MODES:
        raise BadFilter("mode", mode, f"one of {', '.join(_MODES)}")
    state = form.get("state") or None
    if mode in ("from", "only") and state is None:
        raise BadFilter("state", "", f"the state to rerun {mode.replace('only', 'alone')}")
    kw: dict[str, Any] = {}
    if mode == "after-failed" and form.get("output", "").strip():
        kw["output"] = _json_field(form, "output")
    req = RerunRequest(mode, state=state if mode in ("from", "only") else None, **kw)
    jobs, reason = jobs_for(request), require_reason(form, "rerun")
    new_id = await anyio.to_thread.run_sync(
        lambda: jobs.rerun(run_id, req, actor=actor, reason=reason, queue=QUEUE)
    )
    return _back(new_id)


async def skip(request: Request) -> Response:
    actor, form = await authorize_post(request, "operator")
    run_id, state = request.path_params["run_id"], form.get("state", "")
    output, reason = _json_field(form, "output"), require_reason(form, "skip")
    jobs = jobs_for(request)
    await anyio.to_thread.run_sync(
        lambda: jobs.skip(run_id, state, output, actor=actor, reason=reason)
    )
    return _back(run_id)


async def force(request: Request) -> Response:
    actor, form = await authorize_post(request, "operator")
    run_id, state = request.path_params["run_id"], form.get("state", "")
    outcome = form.get("outcome", "")
    if outcome not in ("succeed", "fail"):
        raise BadFilter("outcome", outcome, "succeed or fail")
    ok = outcome == "succeed"
    output = _json_field(form, "output")
    error = (form.get("error") or "States.TaskFailed") if not ok else None
    cause = form.get("cause") or None
    jobs, reason = jobs_for(request), require_reason(form, "force")
    await anyio.to_thread.run_sync(
        lambda: jobs.force(
            run_id,
            state,
            ok=ok,
            output=output,
            error=error,
            cause=cause,
            actor=actor,
            reason=reason,
        )
    )
    return _back(run_id)


routes = [
    Route("/jobs/{run_id}/hold", hold, methods=["POST"]),
    Route("/jobs/{run_id}/release", release, methods=["POST"]),
    Route("/jobs/{run_id}/rerun", rerun, methods=["POST"]),
    Route("/jobs/{run_id}/skip", skip, methods=["POST"]),
    Route("/jobs/{run_id}/force", force, methods=["POST"]),
]

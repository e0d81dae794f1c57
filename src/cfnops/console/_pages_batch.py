"""Actions on many job runs at once, from the Runs page: rerun, redrive, cancel, hold, release.

The Runs page posts the runs ticked by hand, or its filter ("every job run matching"),
with the action to ``/runs/batch``: the answer is the dry run, listing each run with
whether the action applies to it now, and one confirmation form stating the count and
the consequence, which needs a reason. Confirmed, ``/runs/batch/confirm`` acts on the
runs listed (and only those), each audited as if acted on alone, and shows one result
per run. Both need the operator role and the CSRF token; whatever must execute (a rerun,
a redrive) is queued for ``cfnops worker``.
"""

from __future__ import annotations

from typing import Any

import anyio
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from cfnops.console._pages_control import QUEUE, jobs_for, require_reason
from cfnops.console._runs_query import RunFilter
from cfnops.console._web import authorize_post, console_of, render
from cfnops.console.errors import BadFilter
from cfnops.jobs import BATCH_ACTIONS, batch_consequence, plan_batch, run_batch

__all__ = ["routes"]

_MAX = 500


def _action(form: dict[str, str]) -> str:
    action = form.get("action", "")
    if action not in BATCH_ACTIONS:
        raise BadFilter("action", action, f"one of {', '.join(BATCH_ACTIONS)}")
    return action


async def _chosen(request: Request, form: dict[str, str]) -> list[str]:
    """The job runs ticked by hand, or every job run the posted filter matches."""
    if form.get("scope") == "filter":
        params = {k[2:]: v for k, v in form.items() if k.startswith("f-")}
        flt = RunFilter.parse({**params, "page": "1"})
        page = await anyio.to_thread.run_sync(lambda: console_of(request).runs.page(flt, _MAX + 1))
        return [r.job_run for r in page.rows if r.job_run]
    ticked = [str(v) for v in (await request.form()).getlist("run") if str(v).strip()]
    if not ticked:
        raise BadFilter("run", "", "tick at least one job run, or choose every run matching")
    return ticked


async def preview(request: Request) -> Response:
    _, form = await authorize_post(request, "operator")
    action = _action(form)
    run_ids = await _chosen(request, form)
    jobs = jobs_for(request)
    plan = await anyio.to_thread.run_sync(lambda: plan_batch(jobs.store, action, run_ids))
    count = sum(1 for p in plan if p.ok)
    return render(
        request, "batch.html", action=action, plan=plan, results=None, count=count,
        consequence=batch_consequence(action, count),
    )  # fmt: skip


async def confirm(request: Request) -> Response:
    actor, form = await authorize_post(request, "operator")
    action = _action(form)
    reason = require_reason(form, action)
    run_ids = [str(v) for v in (await request.form()).getlist("run")]
    if not run_ids:
        raise BadFilter("run", "", "the runs listed by the preview (preview again)")
    jobs = jobs_for(request)
    results = await anyio.to_thread.run_sync(
        lambda: run_batch(jobs, action, run_ids, actor=actor, reason=reason, queue=QUEUE)
    )
    done = sum(1 for r in results if r.ok)
    summary: dict[str, Any] = {"done": done, "refused": len(results) - done}
    return render(
        request, "batch.html", action=action, plan=None, results=results, count=done,
        consequence=batch_consequence(action, len(results)), summary=summary, reason=reason,
    )  # fmt: skip


routes = [
    Route("/runs/batch", preview, methods=["POST"]),
    Route("/runs/batch/confirm", confirm, methods=["POST"]),
]

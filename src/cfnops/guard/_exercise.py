"""``cfnops guard --exercise``: run each custom resource's handler with generated requests.

For every custom resource whose Lambda handler (Python or Node.js) is in reach,
send, each in a fresh process (:mod:`cfnops.guard._exercise_child`):

1. **Create** with the template's properties;
2. **Update, properties unchanged** (a second after Create at least) and 3. **Update,
   properties changed**, both with the id Create answered: a different id is a
   replacement (EX001);
4. **Update whose AWS calls fail** (AccessDenied): a FAILED answer with a different
   id is what rollback and later Deletes then work with (EX002);
5. **Delete of an id the handler never issued** (as after a failed Create or for the
   old id of a replacement): changing calls that never name that id act on
   something else (EX003);
6. **Delete** of the id Create answered.

AWS calls go to ``endpoint_url`` (the sandbox) through a recording listener; the
response each request PUTs to its ``ResponseURL`` is captured there. A handler
that cannot run here (no interpreter, a module not installed, a FAILED Create) is
listed as not exercised, with why.
"""

from __future__ import annotations

import dataclasses
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfnops.guard._exercise_events import changed, plain, request
from cfnops.guard._exercise_rules import DELETE_IGNORES_ID, FAILED_UPDATE_NEW_ID, UPDATE_NEW_ID
from cfnops.guard._model import Exercised, ExerciseStep, Finding, GuardReport, Severity
from cfnops.guard._template import (
    Template,
    _function_settings,
    handler_code,
    is_custom_resource,
    load_template,
    resolve_string,
    service_function,
)
from cfnops.templates import line_of

if TYPE_CHECKING:  # the runner and its HTTP listener load only when a run starts
    from cfnops.guard._exercise_child import Handler, Invocation
    from cfnops.guard._exercise_http import Listener

INVOKE_SECONDS = 60.0
_MIN_GAP = 1.1  # seconds between the start of Create and the first Update
FOREIGN_ID = "cfnops-exercise-never-issued-0d4f"
UNCHANGED, CHANGED = "Update (properties unchanged)", "Update (properties changed)"
FAILING, FOREIGN = "Update (its AWS calls fail)", "Delete (an id it never issued)"
NOT_INDUCED = "Update (its AWS calls fail: it made none, so it did not fail)"


def exercise(
    report: GuardReport,
    endpoint_url: str,
    code_dir: Path | str | None = None,
    *,
    region: str = "us-east-1",
    timeout: float = INVOKE_SECONDS,
) -> GuardReport:
    """``report`` (from :func:`check_template`) with every handler run and judged.

    ``endpoint_url`` is the AWS endpoint the handlers' SDK calls go to: a sandbox
    (``cfnops sandbox up``), never a real account.

    >>> report = exercise(check_template("t.yaml"), "http://127.0.0.1:5000")  # doctest: +SKIP
    >>> [(e.resource, e.exercised) for e in report.exercised]  # doctest: +SKIP
    [('Thing', True)]
    """
    from cfnops.guard._exercise_http import Listener

    template = load_template(Path(report.template))
    code = Path(code_dir) if code_dir is not None else None
    runs: list[Exercised] = []
    findings: list[Finding] = []
    with Listener(endpoint_url) as listener, tempfile.TemporaryDirectory() as work:
        for resource in report.custom_resources:
            run = _exercise_one(template, resource, code, Path(work), listener, region, timeout)
            runs.append(run)
            findings += _judge(template, run)
    merged = tuple(sorted({*report.findings, *findings}))
    return dataclasses.replace(report, findings=merged, exercised=tuple(runs))


def _locate(
    template: Template, function: str, code: Path | None, work: Path, timeout: float
) -> Handler | str:
    from cfnops.guard._exercise_child import Handler

    source, why = handler_code(template, function, code)
    if source is None:
        return why
    if source.assumed:
        return f"its handler cannot be resolved: {source.assumed}"
    settings = _function_settings(template, function)
    runtime = resolve_string(template, settings.get("Runtime")) or ""
    handler = resolve_string(template, settings.get("Handler")) or "index.handler"
    module = handler.rpartition(".")[0].replace(".", "/") or "index"
    env = settings.get("Environment")
    variables = env.get("Variables") if isinstance(env, Mapping) else None
    environment = {
        str(k): str(plain(template, v, "us-east-1"))
        for k, v in (variables.items() if isinstance(variables, Mapping) else ())
    }
    if source.file == str(template.path):  # inline code: Lambda writes it as index.py/.js
        root = work / function
        suffix = ".py" if source.language == "python" else ".js"
        (root / module).parent.mkdir(parents=True, exist_ok=True)
        (root / f"{module}{suffix}").write_text(source.text, encoding="utf-8")
    else:
        root = Path(source.file).resolve().parent
        for _ in module.split("/")[1:]:
            root = root.parent
    return Handler(
        function, source.language, runtime, root, module, source.entry, environment, timeout
    )


def _exercise_one(
    template: Template,
    resource: str,
    code: Path | None,
    work: Path,
    listener: Listener,
    region: str,
    timeout: float,
) -> Exercised:
    from cfnops.guard._exercise_child import interpreter, invoke, python2_copy

    function, why = service_function(template, resource)
    if function is None:
        return Exercised(resource, "", False, why)
    located = _locate(template, function, code, work / resource, timeout)
    if isinstance(located, str):
        return Exercised(resource, function, False, located)
    note = ""
    if located.runtime.startswith("python2"):
        located, problem = python2_copy(located, work / resource)
        if problem:
            return Exercised(resource, function, False, problem)
        note = "Python 2 code, run as its 2to3 translation (fissix) under Python 3"
    command, why = interpreter(located)
    if command is None:
        return Exercised(resource, function, False, why)
    body = template.resources[resource]
    props = plain(template, body.get("Properties") or {}, region)
    props = dict(props) if isinstance(props, Mapping) else {}
    props["ServiceToken"] = f"arn:aws:lambda:{region}:123456789012:function:{function}"
    kind = str(body.get("Type"))

    def send(name: str, event: dict[str, Any], failing: bool = False) -> ExerciseStep:
        outcome = invoke(located, command, event, listener, region=region, failing=failing)
        return _step(name, outcome)

    started = time.monotonic()
    create = send("Create", request("Create", resource, kind, props, region))
    if create.status != "SUCCESS":
        why = f"Create did not succeed here: {create.detail}"
        return Exercised(resource, function, False, why, (create,), note)
    pid = create.physical_id
    new = changed(props)
    # a second apart at least: ids built from the time in seconds differ, as in real updates
    time.sleep(max(0.0, started + _MIN_GAP - time.monotonic()))
    steps = [
        create,
        send(
            UNCHANGED,
            request("Update", resource, kind, props, region, physical_id=pid, old_properties=props),
        ),
        send(
            CHANGED,
            request("Update", resource, kind, new, region, physical_id=pid, old_properties=props),
        ),
        send(
            FAILING,
            request(
                "Update", resource, kind, changed(new), region, physical_id=pid, old_properties=new
            ),
            failing=True,
        ),
        send(FOREIGN, request("Delete", resource, kind, new, region, physical_id=FOREIGN_ID)),
        send("Delete", request("Delete", resource, kind, new, region, physical_id=pid)),
    ]
    return Exercised(resource, function, True, "", tuple(steps), note)


def _step(name: str, run: Invocation) -> ExerciseStep:
    changes = tuple(dict.fromkeys(c.operation for c in run.calls if c.changes))
    if name == FOREIGN:  # only the changes that never name the id asked for
        changes = tuple(
            dict.fromkeys(
                c.operation for c in run.calls if c.changes and not c.mentions(FOREIGN_ID)
            )
        )
    if name == FAILING and not run.calls:
        name = NOT_INDUCED  # nothing to fail: this was an ordinary Update
    failed = [f"{c.operation} ({c.error})" for c in run.calls if c.error]
    refused = f"; AWS calls that failed here: {', '.join(dict.fromkeys(failed))}" if failed else ""
    if run.answer is not None:
        return ExerciseStep(
            name,
            str(run.answer.get("Status") or "?"),
            str(run.answer.get("PhysicalResourceId") or ""),
            str(run.answer.get("Reason") or "") + refused,
            changes,
        )
    if isinstance(run.returned, Mapping) and run.returned.get("PhysicalResourceId"):
        # a provider-framework handler (onEvent) returns its answer instead of PUTting it
        detail = "returned, not sent to the ResponseURL (a provider framework's onEvent)"
        return ExerciseStep(
            name, "SUCCESS", str(run.returned["PhysicalResourceId"]), detail, changes
        )
    return ExerciseStep(name, "", "", _no_answer(run) + refused, changes)


def _no_answer(run: Invocation) -> str:
    if run.missing:
        return (
            f"it imports {run.missing!r}, which is not installed here (the Lambda runtime or "
            "the function's package provides it): install it (Python: into this environment; "
            "Node.js: npm install, then NODE_PATH) to exercise this handler"
        )
    if run.timed_out:
        return "no response within the exercise's time limit"
    if run.error:
        return f"it failed before sending a response: {run.error}"
    return "it ended without sending a response to the ResponseURL"


def _judge(template: Template, run: Exercised) -> list[Finding]:
    if not run.exercised:
        return []
    steps = {step.event: step for step in run.steps}
    pid = steps["Create"].physical_id
    line = line_of(template.resources[run.resource]) or 1
    file = str(template.path)
    out: list[Finding] = []
    moved = [
        steps[name]
        for name in (UNCHANGED, CHANGED)
        if steps[name].status == "SUCCESS" and steps[name].physical_id != pid
    ]
    if moved:
        first = moved[0]
        severity = Severity.ERROR if first.event == UNCHANGED else Severity.WARNING
        message = (
            f"Run with {first.event}, function {run.handler} answered PhysicalResourceId "
            f"{first.physical_id!r} where Create answered {pid!r}: CloudFormation treats that "
            "as a replacement and sends Delete for the old id."
        )
        if severity is Severity.WARNING:
            message += (
                " The properties changed: make sure the handler really replaced the resource."
            )
        fix = (
            "Answer Update with the incoming event PhysicalResourceId unless the resource was "
            "replaced."
        )
        out.append(Finding(run.resource, file, line, UPDATE_NEW_ID.id, severity, message, fix))
    failing = steps.get(FAILING) or steps.get(NOT_INDUCED)
    if failing is not None and failing.status == "FAILED" and failing.physical_id != pid:
        message = (
            f"Run with an Update whose AWS calls fail, function {run.handler} answered FAILED "
            f"with PhysicalResourceId {failing.physical_id!r}, not the incoming {pid!r}: rollback "
            "and later Delete requests then carry an id that names nothing."
        )
        fix = "Answer FAILED with the incoming PhysicalResourceId as well."
        out.append(
            Finding(
                run.resource, file, line, FAILED_UPDATE_NEW_ID.id, Severity.WARNING, message, fix
            )
        )
    foreign = steps[FOREIGN]
    if foreign.changes:
        message = (
            f"Asked to Delete {FOREIGN_ID!r}, an id it never issued, function {run.handler} called "
            f"{', '.join(foreign.changes)} without naming that id: Deletes for an old id after a "
            "replacement, or after a failed Create, remove what the properties name instead."
        )
        fix = (
            "Decide what to delete from the incoming PhysicalResourceId; do nothing for ids "
            "you never issued."
        )
        out.append(
            Finding(run.resource, file, line, DELETE_IGNORES_ID.id, Severity.WARNING, message, fix)
        )
    return out


def custom_resources(template: Template) -> tuple[str, ...]:
    return tuple(name for name, res in template.resources.items() if is_custom_resource(res))

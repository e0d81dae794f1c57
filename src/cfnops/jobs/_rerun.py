"""Rerun modes: a new run made from a finished one (pure planning; no I/O here).

A rerun is a new run linked to its origin. What it starts with comes from the origin's
history and checkpoints:

- ``from-start``: the whole job-net again (``--input`` replaces the execution input);
- ``from STATE``: STATE (a top-level state) with the input it was last entered with and
  the variables assigned before it; the states before it are not run again;
- ``only STATE``: the same start, and the run ends when STATE ends (its Next and Catch
  are not followed);
- ``after-failed``: the state the origin failed in counts as succeeded with the given
  output (a ``StateSkipped`` event), and the run continues after it.

For a Map or Parallel STATE, ``iterations`` keeps the recorded effects of the other
iterations (branches): ``failed`` runs only those that failed, from their start; an
index ``N`` runs iteration N alone again (the others replay from their checkpoints).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cfnops.durable import Branch, Checkpoint, Position, Visit
from cfnops.jobs._functions import import_modules
from cfnops.jobs._runner import iter_states, only_program, top_level_path
from cfnops.jobs._store import MODULES_OPTION, RunRow
from cfnops.jobs.errors import ModuleImportFailed, RerunRefused, UnknownState

__all__ = ["MODES", "RerunPlan", "RerunRequest", "only_program", "plan_rerun"]

MODES = ("from-start", "from", "only", "after-failed")
_UNSET: Any = object()


@dataclass(frozen=True)
class RerunRequest:
    """What the operator asked for (``state`` for from/only; ``output`` for after-failed)."""

    mode: str
    state: str | None = None
    output: Any = _UNSET
    definition: Mapping[str, Any] | None = None
    definition_source: str = "the edited definition"
    input: Any = _UNSET
    iterations: str | None = None

    @property
    def has_input(self) -> bool:
        return self.input is not _UNSET

    @property
    def has_output(self) -> bool:
        return self.output is not _UNSET


@dataclass(frozen=True)
class RerunPlan:
    """The new run: its definition, execution input, options and the effects it keeps."""

    mode: str
    state: str | None
    definition: Mapping[str, Any]
    execution_input: Any
    options: Mapping[str, Any]
    copies: tuple[tuple[Position, Position], ...] = field(default=())


def plan_rerun(
    origin: RunRow,
    history: Sequence[Mapping[str, Any]],
    steps: Sequence[Checkpoint],
    request: RerunRequest,
) -> RerunPlan:
    """Check ``request`` against the origin's record and say what the rerun starts with.

    Raises :class:`RerunRefused` (also when a module the origin recorded cannot be
    imported here) or :class:`UnknownState`; nothing is created then.
    """
    run_id = origin.run_id
    if origin.status == "RUNNING":
        raise RerunRefused(
            run_id, "it is still RUNNING", "wait for it to end, or stop it: cfnops job stop RUN"
        )
    if request.mode not in MODES:
        raise RerunRefused(run_id, f"unknown mode {request.mode!r}", f"use one of {MODES}")
    edited = request.definition is not None
    definition = dict(request.definition) if edited else origin.definition  # type: ignore[arg-type]
    where = request.definition_source if edited else f"the definition of run {run_id!r}"
    execution_input = origin.input
    info: dict[str, Any] = {"of": run_id, "mode": request.mode}
    base: dict[str, Any] = {"rerun": info, "notify": origin.options.get("notify")}
    if origin.modules:  # the local functions of `job run --import`: the rerun needs them too
        # refused here, before anything is created, as `job redrive` refuses (a rerun
        # created anyway would wait for some worker that can import them)
        _import_recorded(run_id, origin.modules)
        base[MODULES_OPTION] = list(origin.modules)
    if request.mode == "from-start":
        if request.iterations is not None:
            raise RerunRefused(run_id, "--map-iterations needs --from or --only", "name the Map")
        if request.has_input:
            execution_input = request.input
        return RerunPlan(request.mode, None, definition, execution_input, base)
    top = frozenset(definition.get("States", {}))
    if request.mode == "after-failed":
        return _after_failed(origin, history, request, definition, where, top, base)
    state = str(request.state)
    _check_top_level(state, definition, where, top)
    entered = _last_entry(history, state)
    if entered is None and not request.has_input:
        raise RerunRefused(
            run_id,
            f"state {state!r} never started in it, so there is no recorded input",
            "give the state's input with --input, or rerun from a state that ran",
        )
    value = request.input if request.has_input else entered[1]  # type: ignore[index]
    variables = _variables_before(history, entered[0] if entered else len(history), top)
    options: dict[str, Any] = {**base, "start": {"state": state, "input": value,
                                                 "variables": variables}}  # fmt: skip
    options["rerun"] = {**base["rerun"], "state": state}
    if request.mode == "only":
        if definition["States"][state].get("Type") == "Choice":
            raise RerunRefused(
                run_id, f"{state!r} is a Choice state: it has no output of its own to rerun",
                "rerun --from the Choice state instead",
            )  # fmt: skip
        options["only"] = state
    copies: tuple[tuple[Position, Position], ...] = ()
    if request.iterations is not None:
        copies = _iteration_copies(origin, history, steps, definition, state, request.iterations)
        options["rerun"]["iterations"] = request.iterations
    return RerunPlan(request.mode, state, definition, execution_input, options, copies)


# -- helpers ------------------------------------------------------------------------------
def _import_recorded(run_id: str, modules: Sequence[str]) -> None:
    try:
        import_modules(modules)
    except ModuleImportFailed as exc:
        raise RerunRefused(
            run_id,
            f"it needs module {exc.module!r} (its local functions), which cannot be "
            f"imported here: {exc.reason}",
            "make it importable here (PYTHONPATH, or run from its directory), then rerun",
        ) from exc


def _check_top_level(
    state: str, definition: Mapping[str, Any], where: str, top: frozenset[str]
) -> None:
    if state in top:
        return
    for name, st in definition.get("States", {}).items():
        inner = {n for n, _ in iter_states({"States": {name: st}})} - {name}
        if state in inner:
            raise UnknownState(
                state,
                f"the top level of {where} (it is inside {st.get('Type')} {name!r})",
                f"rerun {name!r} with --map-iterations failed|N to rerun inside it",
            )
    raise UnknownState(
        state, where, "use a state name of the definition (cfnops job graph RUN_ID lists them)"
    )


def _last_entry(history: Sequence[Mapping[str, Any]], state: str) -> tuple[int, Any] | None:
    """(event position, input) of the last time ``state`` was entered."""
    found: tuple[int, Any] | None = None
    for pos, event in enumerate(history):
        details = event.get("details") or {}
        if str(event["type"]).endswith("StateEntered") and details.get("name") == state:
            found = (pos, _load(details.get("input")))
    return found


def _variables_before(
    history: Sequence[Mapping[str, Any]], end: int, top: frozenset[str]
) -> dict[str, Any]:
    """The top-level variables as they stood before event position ``end``."""
    values: dict[str, Any] = {}
    for event in history[:end]:
        details = event.get("details") or {}
        if str(event["type"]).endswith("StateExited") and details.get("name") in top:
            for key, text in (details.get("assignedVariables") or {}).items():
                values[key] = _load(text)
    return values


def _load(text: Any) -> Any:
    return json.loads(text) if isinstance(text, str) else text


_TASK_FAILED = frozenset(
    {"TaskFailed", "TaskTimedOut", "LambdaFunctionFailed", "LambdaFunctionTimedOut"}
)
_TASK_OK = frozenset({"TaskSucceeded", "LambdaFunctionSucceeded"})
_STATE_FAILED = frozenset({"MapStateFailed", "ParallelStateFailed", "EvaluationFailed"})


def _failed_state(
    history: Sequence[Mapping[str, Any]], definition: Mapping[str, Any], top: frozenset[str]
) -> tuple[str, int] | None:
    """The last top-level state visit that failed (caught by a Catcher or not): its name and
    entry position. A Fail state is where a job-net ends on purpose: not a candidate."""
    states = definition.get("States", {})
    found: tuple[str, int] | None = None
    visit: dict[str, Any] | None = None

    def close() -> None:
        nonlocal found
        if visit is None or states.get(visit["name"], {}).get("Type") == "Fail":
            return
        own_task = states.get(visit["name"], {}).get("Type") == "Task"
        if visit["failed"] or (own_task and visit["task"] == "failed") or not visit["exited"]:
            found = (visit["name"], visit["pos"])

    for pos, event in enumerate(history):
        kind = str(event["type"])
        name = (event.get("details") or {}).get("name")
        if kind.endswith("StateEntered") and name in top:
            close()
            visit = {"name": name, "pos": pos, "failed": False, "task": None, "exited": False}
        elif visit is None:
            continue
        elif kind.endswith("StateExited") and name == visit["name"]:
            visit["exited"] = True
        elif kind in _STATE_FAILED:
            visit["failed"] = True
        elif kind in _TASK_FAILED or kind in _TASK_OK:
            visit["task"] = "failed" if kind in _TASK_FAILED else "ok"
    close()
    return found


def _after_failed(
    origin: RunRow,
    history: Sequence[Mapping[str, Any]],
    request: RerunRequest,
    definition: Mapping[str, Any],
    where: str,
    top: frozenset[str],
    base: Mapping[str, Any],
) -> RerunPlan:
    run_id = origin.run_id
    if origin.status == "SUCCEEDED":
        raise RerunRefused(run_id, "it SUCCEEDED: no state failed", "use --from or --from-start")
    if not request.has_output:
        raise RerunRefused(
            run_id, "--after-failed needs the failed state's output",
            "give it with --output-json JSON (or @FILE)",
        )  # fmt: skip
    origin_top = frozenset(origin.definition.get("States", {}))
    failed = _failed_state(history, origin.definition, origin_top)
    if failed is None:
        raise RerunRefused(
            run_id, "no state failed in it (it ended in a Fail state or before any state)",
            "rerun --from a state instead",
        )  # fmt: skip
    state, pos = failed
    if state not in top:
        raise UnknownState(
            state, where, f"the origin failed in {state!r}: keep that state in the definition"
        )
    if definition["States"][state].get("Type") == "Choice":
        raise RerunRefused(
            run_id, f"it failed in Choice state {state!r}, which has no single next state",
            f"rerun --from the state {state!r} should lead to",
        )  # fmt: skip
    value = _load((history[pos].get("details") or {}).get("input"))
    options = {
        **base,
        "rerun": {**base["rerun"], "state": state},
        "start": {"state": state, "input": value,
                  "variables": _variables_before(history, pos, top)},
        "skips": {state: {"output": request.output}},
    }  # fmt: skip
    return RerunPlan(request.mode, state, definition, origin.input, options)


def _iteration_copies(
    origin: RunRow,
    history: Sequence[Mapping[str, Any]],
    steps: Sequence[Checkpoint],
    definition: Mapping[str, Any],
    state: str,
    iterations: str,
) -> tuple[tuple[Position, Position], ...]:
    """Checkpoints of the iterations that are not run again, moved to the rerun's positions
    (the state's first visit, its first fan-out: where the rerun runs them)."""
    run_id = origin.run_id
    kind = definition["States"][state].get("Type")
    if kind not in ("Map", "Parallel"):
        raise RerunRefused(
            run_id, f"--map-iterations needs a Map or Parallel state; {state!r} is a {kind}",
            "drop --map-iterations, or name the Map state",
        )  # fmt: skip
    path = top_level_path([dict(e) for e in history], frozenset(origin.definition["States"]))
    visits = [v for n, v in path if n == state]
    if not visits:
        raise RerunRefused(run_id, f"{state!r} never ran in it", "rerun --from it instead")
    head = Visit(state, visits[-1])
    inside = [
        (s, s.position.segments[1])
        for s in steps
        if len(s.position.segments) >= 2
        and s.position.segments[0] == head
        and isinstance(s.position.segments[1], Branch)
    ]
    if not inside:
        return ()  # no effect recorded inside: nothing to keep
    launch = max(branch.launch for _, branch in inside)  # type: ignore[union-attr]
    by_index: dict[int, list[Checkpoint]] = {}
    failed: set[int] = set()
    for step, branch in inside:
        assert isinstance(branch, Branch)
        if branch.launch != launch:
            continue
        if len(step.position.segments) == 2 and step.kind == "branch":
            failed.add(branch.index)  # the branch's own marker: it failed
        else:
            by_index.setdefault(branch.index, []).append(step)
    if iterations == "failed":
        if not failed:
            raise RerunRefused(
                run_id, f"no iteration of {state!r} failed in it",
                f"rerun one iteration with --map-iterations N, or --from {state}",
            )  # fmt: skip
        keep = [i for i in by_index if i not in failed]
    else:
        wanted = _index(run_id, iterations)
        indices = _iteration_indices(history, state) | set(by_index) | failed
        if kind == "Parallel":
            indices |= set(range(len(definition["States"][state].get("Branches", []))))
        if wanted not in indices:
            raise RerunRefused(
                run_id, f"{state!r} has no iteration {wanted} in it",
                f"use an index it ran: {sorted(indices)}",
            )  # fmt: skip
        keep = [i for i in by_index if i != wanted]
    return tuple(
        (step.position, Position.of(Visit(state, 1), Branch(1, index), *step.position.segments[2:]))
        for index in sorted(keep)
        for step in by_index[index]
    )


def _iteration_indices(history: Sequence[Mapping[str, Any]], state: str) -> set[int]:
    found = set()
    for event in history:
        details = event.get("details") or {}
        if event["type"] in ("MapIterationStarted",) and details.get("name") == state:
            found.add(int(details.get("index", -1)))
    return found


def _index(run_id: str, text: str) -> int:
    if text.isdigit():
        return int(text)
    raise RerunRefused(
        run_id, f"--map-iterations {text!r} is neither 'failed' nor an index",
        "use --map-iterations failed, or an iteration index such as 3",
    )  # fmt: skip

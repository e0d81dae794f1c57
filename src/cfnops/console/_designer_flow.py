"""The designer's data flow: ``cfnops job check`` laid out per state and per arrow (pure).

:func:`design_check` runs the very analysis of ``cfnops job check``
(:func:`cfnops.jobs.check_dataflow`: every path walked with the user's sample input
and Task results, ``aws-sdk`` results sampled from botocore's models) and answers in the
shape the designer page draws:

- ``states``: per state (by its JSON pointer, the node id on the canvas) the input and
  output shapes, what a Task receives, and the paths that exist in its input (the form's
  suggestions: JSONPath ``$.a.b`` and JSONata ``$states.input.a.b``);
- ``edges``: per arrow (``Next``, Choice rules, ``Default``, ``Catch``) the shape of the
  data passed along it, and the findings of the state it leads to that read its input
  (the arrow is drawn red with their JSON pointers);
- ``findings``: every finding, with the state it belongs to and the field inside it;
- ``strict``: what Step Functions would reject (``cfnops job validate --strict``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from cfnops.asl import shape_text
from cfnops.jobs import check_dataflow, strict_problems

__all__ = ["design_check", "edges_of", "input_paths", "state_pointers"]

_MAX_PATHS = 300
# Fields through which a state reads its input (a finding there marks its incoming arrows).
_READS = (
    "InputPath", "Parameters", "Arguments", "ItemsPath", "Items", "ItemSelector", "Choices",
    "SecondsPath", "TimestampPath", "Seconds", "Timestamp", "Assign", "Output", "OutputPath",
    "ResultSelector", "Cause", "CausePath", "Error", "ErrorPath", "Variable",
)  # fmt: skip


def _esc(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def state_pointers(program: Mapping[str, Any], ptr: str = "") -> Iterator[tuple[str, Any]]:
    """(JSON pointer, state) of every state, nested Map and Parallel states included."""
    states = program.get("States")
    if not isinstance(states, Mapping):
        return
    for name, state in states.items():
        sptr = f"{ptr}/States/{_esc(str(name))}"
        yield sptr, state
        if not isinstance(state, Mapping):
            continue
        for key in ("ItemProcessor", "Iterator"):
            if isinstance(state.get(key), Mapping):
                yield from state_pointers(state[key], f"{sptr}/{key}")
        branches = state.get("Branches")
        if isinstance(branches, list):
            for i, branch in enumerate(branches):
                if isinstance(branch, Mapping):
                    yield from state_pointers(branch, f"{sptr}/Branches/{i}")


def edges_of(program: Mapping[str, Any], ptr: str = "") -> Iterator[dict[str, str]]:
    """Every arrow: ``{id, source, target, kind, via}``; ``via`` points at the field."""
    states = program.get("States")
    if not isinstance(states, Mapping):
        return
    start = program.get("StartAt")
    if isinstance(start, str) and start in states:
        yield _edge(f"{ptr}/StartAt", f"{ptr}/States/{_esc(start)}", "start", f"{ptr}/StartAt")
    for name, state in states.items():
        if not isinstance(state, Mapping):
            continue
        src = f"{ptr}/States/{_esc(str(name))}"
        for target, kind, via in _targets(state):
            if isinstance(target, str) and target in states:
                yield _edge(src, f"{ptr}/States/{_esc(target)}", kind, src + via)
        for inner, inner_ptr in _inner_programs(state, src):
            yield from edges_of(inner, inner_ptr)


def _targets(state: Mapping[str, Any]) -> list[tuple[Any, str, str]]:
    """(target name, kind, field) of every transition a state names, in document order."""
    targets: list[tuple[Any, str, str]] = [(state.get("Next"), "next", "/Next")]
    for i, rule in enumerate(_list(state.get("Choices"))):
        if isinstance(rule, Mapping):
            targets.append((rule.get("Next"), "choice", f"/Choices/{i}/Next"))
    targets.append((state.get("Default"), "default", "/Default"))
    for i, catcher in enumerate(_list(state.get("Catch"))):
        if isinstance(catcher, Mapping):
            targets.append((catcher.get("Next"), "catch", f"/Catch/{i}/Next"))
    return targets


def _inner_programs(state: Mapping[str, Any], src: str) -> Iterator[tuple[Mapping[str, Any], str]]:
    """(program, pointer) of a Map's item processor and of each Parallel branch."""
    for key in ("ItemProcessor", "Iterator"):
        if isinstance(state.get(key), Mapping):
            yield state[key], f"{src}/{key}"
    for i, branch in enumerate(_list(state.get("Branches"))):
        if isinstance(branch, Mapping):
            yield branch, f"{src}/Branches/{i}"


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _edge(source: str, target: str, kind: str, via: str) -> dict[str, str]:
    return {"id": f"{via}->{target}", "source": source, "target": target, "kind": kind, "via": via}


def input_paths(shape: Any, limit: int = _MAX_PATHS) -> list[str]:
    """JSONPaths (``$.a``, ``$.a.b``, ``$.list[0].c``) that exist in a shape, breadth first."""
    out: list[str] = ["$"]
    queue: list[tuple[str, Any]] = [("$", shape)]
    while queue and len(out) < limit:
        path, node = queue.pop(0)
        if isinstance(node, Mapping):
            for key, value in node.items():
                step = f".{key}" if key.isidentifier() else f"['{key}']"
                out.append(path + step)
                queue.append((path + step, value))
        elif isinstance(node, list) and node:
            out.append(path + "[0]")
            queue.append((path + "[0]", node[0]))
    return out[:limit]


def _owner(pointer: str, states: list[str]) -> str | None:
    best = None
    for sptr in states:
        if (pointer == sptr or pointer.startswith(sptr + "/")) and len(sptr) > len(best or ""):
            best = sptr
    return best


def _field_reads_input(relative: str) -> bool:
    first = relative.strip("/").split("/", 1)[0]
    return first in _READS or first.endswith(".$")


def design_check(
    definition: Mapping[str, Any], sample_input: Any, task_results: Mapping[str, Any] | None
) -> dict[str, Any]:
    """The check laid out for the canvas; see the module docstring."""
    report = check_dataflow(definition, sample_input, dict(task_results or {}))
    pointers = [p for p, _ in state_pointers(definition)]
    shapes = {s.pointer: s for s in report.states}
    states: dict[str, dict[str, Any]] = {}
    for ptr in pointers:
        seen = shapes.get(ptr)
        if seen is None:
            states[ptr] = {"reached": False, "paths": [], "findings": []}
            continue
        paths = input_paths(seen.inputs[0]) if seen.inputs else ["$"]
        states[ptr] = {
            "reached": True,
            "type": seen.type,
            "input": [shape_text(s) for s in seen.inputs],
            "output": [shape_text(s) for s in seen.outputs],
            "payload": [shape_text(s) for s in seen.payloads],
            "result": seen.result_source,
            "paths": paths,
            "jsonata": ["$states.input" + p[1:] for p in paths],
            "findings": [],
        }
    findings: list[dict[str, Any]] = []
    for f in report.findings:
        owner = _owner(f.pointer, pointers)
        relative = f.pointer[len(owner) :] if owner else f.pointer
        entry = {**f.to_json(), "state": owner, "field": relative}
        entry["readsInput"] = bool(owner) and _field_reads_input(relative)
        findings.append(entry)
        if owner:
            states[owner]["findings"].append(entry)
    edges = []
    for edge in edges_of(definition):
        source = states.get(edge["source"], {})
        target = states.get(edge["target"], {})
        if edge["kind"] == "start":
            carried = [shape_text(shapes[edge["target"]].inputs[0])] if target.get("input") else []
        elif edge["kind"] == "catch":
            carried = target.get("input", [])
        else:
            carried = source.get("output", [])
        bad = [f for f in target.get("findings", []) if f["readsInput"]]
        edges.append({**edge, "shape": carried, "findings": bad})
    return {
        "ok": report.ok,
        "findings": findings,
        "notChecked": [n.to_json() for n in report.not_checked],
        "unreached": list(report.unreached),
        "states": states,
        "edges": edges,
        "strict": strict_problems(definition),
    }

"""``cfnops job graph``: a job-net as Graphviz DOT or Mermaid, coloured by a run's statuses."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from cfnops.asl import transitions

__all__ = ["to_dot", "to_mermaid"]

COLOURS = {
    "SUCCEEDED": "#9be39b",
    "RUNNING": "#8ec5ff",
    "FAILED": "#ff9b9b",
    "ABORTED": "#d0d0d0",
    "CAUGHT": "#ffd27f",
}


def _edges(definition: Mapping[str, Any]) -> Iterator[tuple[str, str, str]]:
    for name, target, kind, errors in transitions(definition.get("States", {})):
        yield name, target, "catch " + ",".join(errors) if kind == "catch" else kind


def _nested(state: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    subs = list(state.get("Branches", []) or [])
    for key in ("ItemProcessor", "Iterator"):
        if isinstance(state.get(key), Mapping):
            subs.append(state[key])
    return subs


def _ident(name: str) -> str:
    return "s_" + "".join(c if c.isalnum() else "_" for c in name)


def to_dot(definition: Mapping[str, Any], statuses: Mapping[str, str] | None = None) -> str:
    lines = [
        "digraph jobnet {",
        "  rankdir=TB;",
        '  node [shape=box, style="rounded,filled", fillcolor="#ffffff", fontname="Helvetica"];',
    ]
    counter = [0]

    def machine(defn: Mapping[str, Any], indent: str) -> None:
        for name, state in defn.get("States", {}).items():
            status = (statuses or {}).get(name)
            fill = COLOURS.get(status or "", "#ffffff")
            label = f"{name}\\n{state.get('Type')}" + (f" · {status}" if status else "")
            lines.append(f'{indent}{_ident(name)} [label="{label}", fillcolor="{fill}"];')
            for sub in _nested(state):
                counter[0] += 1
                lines.append(f"{indent}subgraph cluster_{counter[0]} {{")
                lines.append(f'{indent}  label="{name}"; style=dashed;')
                machine(sub, indent + "  ")
                lines.append(f"{indent}}}")
                lines.append(
                    f"{indent}{_ident(name)} -> {_ident(str(sub['StartAt']))} [style=dotted];"
                )
        for src, dst, label in _edges(defn):
            extra = f' [label="{label}"]' if label else ""
            lines.append(f"{indent}{_ident(src)} -> {_ident(dst)}{extra};")

    lines.append('  start [shape=circle, label="", width=0.2, fillcolor="#000000"];')
    lines.append(f"  start -> {_ident(str(definition['StartAt']))};")
    machine(definition, "  ")
    lines.append("}")
    return "\n".join(lines) + "\n"


def to_mermaid(definition: Mapping[str, Any], statuses: Mapping[str, str] | None = None) -> str:
    lines = ["flowchart TD"]
    used: set[str] = set()

    def machine(defn: Mapping[str, Any], indent: str) -> None:
        for name, state in defn.get("States", {}).items():
            lines.append(f'{indent}{_ident(name)}["{name} ({state.get("Type")})"]')
            status = (statuses or {}).get(name)
            if status:
                used.add(status)
                lines.append(f"{indent}class {_ident(name)} {status.lower()}")
            for sub in _nested(state):
                lines.append(f"{indent}subgraph {_ident(name)}_inner [{name}]")
                machine(sub, indent + "  ")
                lines.append(f"{indent}end")
                lines.append(f"{indent}{_ident(name)} -.-> {_ident(str(sub['StartAt']))}")
        for src, dst, label in _edges(defn):
            arrow = f" -->|{label}| " if label else " --> "
            lines.append(f"{indent}{_ident(src)}{arrow}{_ident(dst)}")

    machine(definition, "  ")
    for status in sorted(used):
        lines.append(f"  classDef {status.lower()} fill:{COLOURS.get(status, '#ffffff')}")
    return "\n".join(lines) + "\n"

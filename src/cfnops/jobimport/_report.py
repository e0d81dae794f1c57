"""The migration report: JSON (the output contract), text and Markdown."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["render_markdown", "render_text"]


def render_text(report: dict[str, Any]) -> str:
    lines = [f"imported from {report['product']} export {report['source']}:"]
    for net in report["jobNets"]:
        lines.append(f"  {net['name']}: {net['jobs']} jobs -> {net['definition']}")
        for s in net["schedules"]:
            when = s["cron"] or "after " + ", ".join(s["after"])
            extra = f" calendar {s['calendar']} day-rule {s['dayRule']}" if s["calendar"] else ""
            lines.append(f"    schedule {s['name']}: {when} {s['timezone']}{extra}")
    for name, cap in sorted(report["pools"].items()):
        lines.append(f"  pool {name}: capacity {cap}")
    for rule in report["notify"]:
        lines.append(f"  notify on {rule['when']} of {rule['jobNet']}: {rule['destination']}")
    lines.append(f"not mapped or mapped approximately ({len(report['unmapped'])}):")
    for u in report["unmapped"]:
        lines.append(f"  [{u['kind']}] {u['source']}: {u['reason']}")
    return "\n".join(lines) + "\n"


def _cell(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(report: dict[str, Any]) -> str:
    out = [f"# Migration report: {report['product']} export `{report['source']}`", ""]
    out += ["| job-net | jobs | definition | schedules |", "|---|---|---|---|"]
    for net in report["jobNets"]:
        scheds = "; ".join(
            f"{s['name']}: {s['cron'] or 'after ' + ', '.join(s['after'])}"
            + (f" ({s['calendar']}, {s['dayRule']})" if s["calendar"] else "")
            for s in net["schedules"]
        )
        out.append(
            f"| {_cell(net['name'])} | {net['jobs']} | `{net['definition']}` | {_cell(scheds)} |"
        )
    if report["pools"]:
        out += ["", "| pool | capacity |", "|---|---|"]
        out += [f"| {_cell(k)} | {v} |" for k, v in sorted(report["pools"].items())]
    if report["notify"]:
        out += ["", "| job-net | when | destination | message |", "|---|---|---|---|"]
        out += [
            f"| {_cell(r['jobNet'])} | {r['when']} | {_cell(r['destination'])} "
            f"| {_cell(r['message'])} |"
            for r in report["notify"]
        ]
    for net in report["jobNets"]:
        out += ["", *_review(net)]
    out += ["", "## Not mapped, or mapped approximately: what to do", ""]
    groups: dict[str, list[dict[str, str]]] = {}
    for u in report["unmapped"]:
        groups.setdefault(u["kind"], []).append(u)
    for kind, title in _ACTIONS:
        items = groups.pop(kind, [])
        if items:
            out += _group(title, items)
    for kind, items in sorted(groups.items()):
        out += _group(f"Other ({kind})", items)
    return "\n".join(out) + "\n"


_ACTIONS = [
    ("job", "Replace or rewrite these jobs"),
    ("schedule", "Check these schedules (run the forecast)"),
    ("calendar", "Provide or check these calendars"),
    ("dependency", "Check these dependencies and the waits the layout added"),
    ("keyword", "Apply these settings by hand"),
    ("value", "Check the values the importer filled in or could not map"),
    ("resource", "Set these resource pools"),
    ("notify", "Route these notifications"),
]


def _group(title: str, items: list[dict[str, str]]) -> list[str]:
    rows = [f"| `{_cell(u['source'])}` | {_cell(u['reason'])} |" for u in items]
    return [f"### {title} ({len(items)})", "", "| source | reason |", "|---|---|", *rows, ""]


def _label(text: str) -> str:
    """A Mermaid node label: quoted, with the characters Mermaid reads as syntax encoded."""
    return '"' + "".join(f"#{ord(c)};" if c in '"<>#&`' else c for c in text) + '"'


def _review(net: dict[str, Any]) -> list[str]:
    """The job-net's graph: the source's dependencies, and the waits the layout added."""
    deps = [tuple(e) for e in net.get("dependencies", [])]
    added = net.get("addedWaits", {})
    jobs = sorted(
        {j for e in deps for j in e} | set(added) | {a for v in added.values() for a in v}
    )
    ids = {j: f"j{i}" for i, j in enumerate(jobs)}
    out = [f"## Job-net {_cell(net['name'])}", ""]
    if not jobs:
        return [*out, "No jobs.", ""]
    out += ["```mermaid", "flowchart TD"]
    out += [f"  {ids[j]}[{_label(j)}]" for j in jobs]
    out += [f"  {ids[a]} --> {ids[b]}" for a, b in deps]
    out += [f"  {ids[a]} -. added .-> {ids[b]}" for b, preds in added.items() for a in preds]
    out += ["```", "", "| job | waits for (source) | also waits for (added by the layout) |"]
    out += ["|---|---|---|"]
    for j in jobs:
        src = ", ".join(a for a, b in deps if b == j) or "-"
        extra = ", ".join(added.get(j, [])) or "-"
        out.append(
            f"| {_cell(j)} | {_cell(src)} | {'**' + _cell(extra) + '**' if extra != '-' else '-'} |"
        )
    for loop in net.get("loops", []):
        out.append(
            f"\nJob train (a loop of at most {loop['rounds']} rounds): "
            + _cell(", ".join(loop["jobs"]))
        )
    return [*out, ""]

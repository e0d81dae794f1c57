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
    out += ["", "## Not mapped, or mapped approximately", ""]
    out += ["| kind | source | reason and manual step |", "|---|---|---|"]
    out += [
        f"| {u['kind']} | `{_cell(u['source'])}` | {_cell(u['reason'])} |"
        for u in report["unmapped"]
    ]
    return "\n".join(out) + "\n"

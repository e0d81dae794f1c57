"""Markdown rendering for pull-request comments: a summary table, then details."""

from __future__ import annotations

from cfnops.diff._drift import DriftEntry
from cfnops.diff._model import (
    MANGLED_NOTE,
    EntryDiff,
    Impact,
    ResourceDiff,
    TemplateDiff,
)
from cfnops.diff._render_security import security_lines
from cfnops.diff._render_text import short
from cfnops.diff._security_model import SecurityView

_BADGE = {
    Impact.WILL_REPLACE: "🔴 requires replacement",
    Impact.MAY_REPLACE: "🟠 may cause replacement",
    Impact.WILL_DESTROY: "🔴 destroy",
    Impact.WILL_ORPHAN: "🟡 orphan (retained)",
    Impact.WILL_UPDATE: "🟡 update",
    Impact.WILL_CREATE: "🟢 create",
}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _code(value: object) -> str:
    return "`" + short(value).replace("`", "'") + "`"


def _resource_details(res: ResourceDiff) -> list[str]:
    lines = [f"- **{res.logical_id}** (`{res.type}`): {_cell(res.reason)}"]
    for prop in res.properties:
        badge = _BADGE.get(prop.impact, prop.impact.value)
        if prop.change is None:
            values = f"unchanged text {_code(prop.new)}"
        else:
            values = f"{prop.change.value.lower()}: {_code(prop.old)} → {_code(prop.new)}"
        lines.append(f"  - `{prop.name}` — {badge}, {values} ({_cell(prop.reason)})")
    for attr in res.other:
        lines.append(
            f"  - `{attr.name}` ({attr.change.value.lower()}): "
            f"{_code(attr.old)} → {_code(attr.new)}"
        )
    lines.extend(f"  - note: {_cell(n)}" for n in (*res.notes, *res.annotations))
    return lines


def _entries(title: str, entries: tuple[EntryDiff, ...]) -> list[str]:
    lines = [f"#### {title}", "", "| Name | Change |", "|---|---|"]
    lines.extend(f"| `{_cell(e.name)}` | {e.change.value} |" for e in entries)
    return [*lines, ""]


def _resource_table(diff: TemplateDiff) -> list[str]:
    lines = ["| Resource | Type | Impact | Why |", "|---|---|---|---|"]
    for res in diff.resources:
        lines.append(
            f"| `{res.logical_id}` | `{res.type}` | {_BADGE.get(res.impact, res.impact.value)}"
            f" | {_cell(res.reason)} |"
        )
    detailed = [r for r in diff.resources if r.properties or r.other or r.notes or r.annotations]
    lines.append("")
    if detailed:
        lines += ["<details><summary>Property changes</summary>", ""]
        for res in detailed:
            lines += _resource_details(res)
        lines += ["", "</details>", ""]
    return lines


def _security(view: SecurityView) -> list[str]:
    icons = {"+": "added:", "-": "removed:", "!": "⚠️"}
    lines = ["#### Security changes", ""]
    lines += [f"- {icons[m]} {_cell(text)}" for m, text in security_lines(view)]
    return [*lines, ""]


def _parameter_values(diff: TemplateDiff) -> list[str]:
    lines = ["#### Parameter values", "", "| Name | Deployed | New |", "|---|---|---|"]
    for p in diff.parameter_values:
        deployed = "not known" if p.old is None else _code(p.old)
        lines.append(f"| `{p.name}` | {deployed} | {_code(p.new)} |")
    return [*lines, ""]


def _deploy_findings(diff: TemplateDiff) -> list[str]:
    lines = ["#### Will it deploy?", ""]
    for f in diff.deploy_findings:
        at = f" (line {f.line})" if f.line else ""
        mark = "❌" if f.level == "error" else "⚠️"
        lines.append(f"- {mark} `{f.logical_id}` {f.rule}{at}: {_cell(f.message)}")
    return [*lines, ""]


def _value_changes(diff: TemplateDiff) -> list[str]:
    lines = ["#### Values changed by replacements", ""]
    lines += [f"- `{v.name}` ({v.kind}): {_cell(v.reason)}" for v in diff.value_changes]
    return [*lines, ""]


def _drift(drift: tuple[DriftEntry, ...]) -> list[str]:
    lines = ["#### Live drift", ""]
    for e in drift:
        mark = "⚠️ also changed by the template: " if e.also_changed else ""
        lines.append(
            f"- {mark}`{e.drift.logical_id}` {_cell(e.drift.path or e.drift.status)}: "
            f"expected {_code(e.drift.expected)}, actual {_code(e.drift.actual)}"
        )
    if not drift:
        lines.append("- the deployed stack has no drift")
    return [*lines, ""]


def render_markdown(diff: TemplateDiff, *, title: str = "cfnops diff") -> str:
    """A Markdown report of ``diff``."""
    count = diff.counted_differences
    lines = [f"### {title}: {count} difference{'s' if count != 1 else ''}", ""]
    if diff.mangled_equivalent:
        raw = diff.difference_count
        lines.insert(1, f"{raw} not counted: {MANGLED_NOTE}.")
    if diff.is_empty:
        return "\n".join([*lines, "No differences."]) + "\n"
    if diff.resources:
        lines += _resource_table(diff)
    for label, entries in (
        ("Template", diff.sections),
        ("Parameters", diff.parameters),
        ("Conditions", diff.conditions),
        ("Mappings", diff.mappings),
        ("Metadata", diff.metadata),
        ("Outputs", diff.outputs),
    ):
        if entries:
            lines += _entries(label, entries)
    security = diff.security
    if security is not None and (security.has_iam_changes or security.has_sg_changes):
        lines += _security(security)
    if diff.parameter_values:
        lines += _parameter_values(diff)
    if diff.deploy_findings:
        lines += _deploy_findings(diff)
    if diff.value_changes:
        lines += _value_changes(diff)
    if diff.drift is not None:
        lines += _drift(diff.drift)
    lines.extend(f"> {n}\n" for n in diff.notes)
    lines.append(f"<sub>Update behaviour: {diff.schema_source}, region {diff.schema_region}.</sub>")
    return "\n".join(lines) + "\n"

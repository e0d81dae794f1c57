"""Text rendering: a tree in the manner of ``cdk diff``, readable without colour.

Markers: ``[+]`` added, ``[-]`` removed, ``[~]`` changed; replacements say
"(requires replacement)" or "(may cause replacement)" in words, so the output
keeps its meaning in a log file or with ``NO_COLOR``.
"""

from __future__ import annotations

import json
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from cfnops.diff._model import (
    MANGLED_NOTE,
    Change,
    EntryDiff,
    Impact,
    ResourceDiff,
    TemplateDiff,
)
from cfnops.diff._render_security import security_lines
from cfnops.diff._render_tree import FastTree as Tree
from cfnops.diff._security_model import SecurityView

_MAX_VALUE = 160

_HEADLINE = {
    Impact.WILL_CREATE: ("[+]", "green", ""),
    Impact.WILL_DESTROY: ("[-]", "red", " (destroy)"),
    Impact.WILL_ORPHAN: ("[-]", "yellow", " (orphan: kept in the account)"),
    Impact.WILL_UPDATE: ("[~]", "yellow", ""),
    Impact.MAY_REPLACE: ("[~]", "magenta", " (may cause replacement)"),
    Impact.WILL_REPLACE: ("[~]", "red", " (requires replacement)"),
}
_CHANGE = {
    Change.ADDED: ("[+]", "green"),
    Change.REMOVED: ("[-]", "red"),
    Change.MODIFIED: ("[~]", "yellow"),
}
_PROPERTY_SUFFIX = {
    Impact.WILL_REPLACE: " (requires replacement)",
    Impact.MAY_REPLACE: " (may cause replacement)",
}


def short(value: Any) -> str:
    """A one-line rendering of a template value, shortened."""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= _MAX_VALUE else text[: _MAX_VALUE - 1] + "…"


def _resource_tree(res: ResourceDiff) -> Tree:
    marker, style, suffix = _HEADLINE.get(res.impact, ("[?]", "", ""))
    head = Text.assemble(
        (marker, style), " ", (res.type, "bold"), " ", res.logical_id, (suffix, style)
    )
    tree = Tree(head, guide_style="dim")
    if res.old_type:
        tree.add(Text.assemble(("type: ", "dim"), f"{res.old_type} → {res.type}"))
    if res.impact.replaces or res.impact in (Impact.WILL_DESTROY, Impact.WILL_ORPHAN):
        tree.add(Text(res.reason, style="dim italic"))
    for prop in res.properties:
        marker = _CHANGE[prop.change][0] if prop.change else "[~]"
        suffix = _PROPERTY_SUFFIX.get(prop.impact, "")
        node = tree.add(
            Text.assemble((marker, "yellow"), f" {prop.name}", (suffix, _HEADLINE[prop.impact][1]))
        )
        if prop.change in (Change.MODIFIED, Change.REMOVED):
            node.add(Text.assemble(("[-] ", "red"), short(prop.old)))
        if prop.change in (Change.MODIFIED, Change.ADDED):
            node.add(Text.assemble(("[+] ", "green"), short(prop.new)))
        if prop.propagated_from or prop.impact.replaces or prop.reason == "unknown schema":
            node.add(Text(prop.reason, style="dim italic"))
    for attr in res.other:
        marker, style = _CHANGE[attr.change]
        node = tree.add(Text.assemble((marker, style), f" {attr.name}"))
        if attr.change is not Change.ADDED:
            node.add(Text.assemble(("[-] ", "red"), short(attr.old)))
        if attr.change is not Change.REMOVED:
            node.add(Text.assemble(("[+] ", "green"), short(attr.new)))
    for note in (*res.notes, *res.annotations):
        tree.add(Text(f"note: {note}", style="cyan"))
    return tree


def _entries(title: str, entries: tuple[EntryDiff, ...]) -> Tree:
    tree = Tree(Text(title, style="bold underline"), guide_style="dim")
    for entry in entries:
        marker, style = _CHANGE[entry.change]
        node = tree.add(Text.assemble((marker, style), f" {entry.name}"))
        if entry.change is Change.MODIFIED:
            node.add(Text.assemble(("[-] ", "red"), short(entry.old)))
            node.add(Text.assemble(("[+] ", "green"), short(entry.new)))
    return tree


def _drift_tree(diff: TemplateDiff) -> Tree:
    entries = diff.drift or ()
    marked = sum(e.also_changed for e in entries)
    title = f"Live drift ({len(entries)} drifted, {marked} also changed by the template)"
    tree = Tree(Text(title, style="bold underline"), guide_style="dim")
    if not entries:
        tree.add("the deployed stack has no drift")
    for e in entries:
        d = e.drift
        tag = ("[!] ", "bold red") if e.also_changed else ("[ ] ", "")
        what = (
            "deleted out of band"
            if d.status == "DELETED"
            else (f"{d.path}: expected {short(d.expected)}, actual {short(d.actual)}")
        )
        suffix = f" — the template also changes it ({e.impact})" if e.also_changed else ""
        tree.add(Text.assemble(tag, f"{d.logical_id} {what}", (suffix, "red")))
    return tree


def _headline(diff: TemplateDiff, title: str) -> Text:
    """``Stack diff: N differences (1 will replace, ...)``, or why none are counted."""
    count = diff.counted_differences
    summary = ", ".join(
        f"{diff.count(i)} {i.value}"
        for i in (
            Impact.WILL_REPLACE,
            Impact.MAY_REPLACE,
            Impact.WILL_DESTROY,
            Impact.WILL_ORPHAN,
            Impact.WILL_UPDATE,
            Impact.WILL_CREATE,
        )
        if diff.count(i)
    )
    headline = f"{title}: {count} difference{'s' if count != 1 else ''}"
    if diff.mangled_equivalent:
        raw = diff.difference_count
        summary = (
            f"{raw} difference{'s' if raw != 1 else ''} of mangled characters only, not "
            f"counted: {MANGLED_NOTE}"
        )
    return Text(headline + (f" ({summary})" if summary else ""), style="bold")


def _deploy_tree(diff: TemplateDiff) -> Tree:
    tree = Tree(Text("Will it deploy? (not counted)", style="bold underline"))
    for f in diff.deploy_findings:
        at = f" (line {f.line})" if f.line else ""
        tag = "[!]" if f.level == "error" else "[?]"
        tree.add(Text.assemble((tag, "bold red"), f" {f.rule}{at}: ", f.message))
    return tree


def _value_changes_tree(diff: TemplateDiff) -> Tree:
    tree = Tree(
        Text("Values changed by replacements (updated, not counted)", style="bold underline"),
        guide_style="dim",
    )
    for v in diff.value_changes:
        label = "Output" if v.kind == "output" else "[~]"
        tree.add(Text.assemble(f"{label} {v.name}: ", (v.reason, "dim italic")))
    return tree


def _security_tree(security: SecurityView) -> Tree:
    tree = Tree(Text("Security changes (IAM, security groups)", style="bold underline"))
    styles = {"+": ("[+]", "green"), "-": ("[-]", "red"), "!": ("[!]", "bold red")}
    for marker, line in security_lines(security):
        tag, style = styles[marker]
        tree.add(Text.assemble((tag, style), " ", line))
    return tree


def _parameter_values_tree(diff: TemplateDiff) -> Tree:
    tree = Tree(Text("Parameter values", style="bold underline"), guide_style="dim")
    for p in diff.parameter_values:
        old = "(deployed value not known)" if p.old is None else p.old
        tree.add(f"[~] {p.name}: {old} → {p.new!s}")
    return tree


def _template_sections(diff: TemplateDiff) -> list[RenderableType]:
    """Template, Parameters … Conditions, Resources and Outputs, those that changed."""
    parts: list[RenderableType] = []
    for label, entries in (
        ("Template", diff.sections),
        ("Parameters", diff.parameters),
        ("Metadata", diff.metadata),
        ("Mappings", diff.mappings),
        ("Conditions", diff.conditions),
    ):
        if entries:
            parts.append(_entries(label, entries))
    if diff.resources:
        parts.append(Text("Resources", style="bold underline"))
        parts.extend(_resource_tree(r) for r in diff.resources)
    if diff.outputs:
        parts.append(_entries("Outputs", diff.outputs))
    return parts


def render_text(diff: TemplateDiff, *, title: str = "Stack diff") -> RenderableType:
    """A Rich renderable of ``diff`` (print it with ``Console.print``)."""
    parts: list[RenderableType] = [_headline(diff, title)]
    if diff.is_empty:
        parts.append(Text("There were no differences."))
    parts.extend(_template_sections(diff))
    if diff.deploy_findings:
        parts.append(_deploy_tree(diff))
    if diff.value_changes:
        parts.append(_value_changes_tree(diff))
    security = diff.security
    if security is not None and (security.has_iam_changes or security.has_sg_changes):
        parts.append(_security_tree(security))
    if diff.drift is not None:
        parts.append(_drift_tree(diff))
    if diff.parameter_values:
        parts.append(_parameter_values_tree(diff))
    parts.extend(Text(f"note: {note}", style="cyan") for note in diff.notes)
    parts.append(
        Text(f"(update behaviour: {diff.schema_source}, region {diff.schema_region})", style="dim")
    )
    return Group(*parts)

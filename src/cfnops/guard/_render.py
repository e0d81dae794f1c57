"""Renderers: the documented JSON shape, SARIF 2.1.0, and Rich text."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from cfnops._version import __version__
from cfnops.guard._exercise_rules import EXERCISE_RULES
from cfnops.guard._model import Exercised, Finding, GuardReport, RuleInfo, Severity
from cfnops.guard.rules import RULES

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def to_json(report: GuardReport) -> dict[str, Any]:
    """``{"findings": [{"rule", "severity", "resource", "file", "line", "message", "fix"}],
    "notChecked": [{"resource", "handler", "reason"}]}``, and with ``--exercise``
    ``"exercised": [{"resource", "handler", "exercised", "reason", "note", "steps"}]``."""
    out: dict[str, Any] = {
        "findings": [finding.to_json() for finding in report.findings],
        "notChecked": [item.to_json() for item in report.not_checked],
    }
    if report.exercised:
        out["exercised"] = [run.to_json() for run in report.exercised]
    return out


def _uri(file: str) -> str:
    """Relative to the working folder (the repository root in CI) and normalised
    (no ``..``), as GitHub code scanning matches it to the checkout; a file outside
    that folder keeps an absolute ``file:`` URI."""
    path = Path(os.path.normpath(Path(file).absolute()))
    try:
        return path.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_uri()


def _construct_paths(template: str) -> dict[str, str]:
    """Logical id → CDK construct path (``Metadata: aws:cdk:path``), for templates
    synthesised by the CDK: names that survive a rename of the cdk.out folder."""
    from cfnops.templates import TemplateError, load_template

    try:
        resources = load_template(template).get("Resources")
    except TemplateError:
        return {}
    out: dict[str, str] = {}
    for key, value in (resources or {}).items() if isinstance(resources, dict) else ():
        meta = value.get("Metadata") if isinstance(value, dict) else None
        path = meta.get("aws:cdk:path") if isinstance(meta, dict) else None
        if isinstance(path, str):
            out[str(key)] = path
    return out


def _rule(rule: RuleInfo) -> dict[str, Any]:
    full = f"{rule.summary}. {rule.detail}" if rule.detail else f"{rule.summary}."
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": full},
        "help": {
            "text": f"{full} See {rule.help_uri}",
            "markdown": f"**{rule.summary}.** {rule.detail} [AWS documentation]({rule.help_uri})",
        },
        "helpUri": rule.help_uri,
        "defaultConfiguration": {"level": rule.severity.value},
        "properties": {"tags": ["cloudformation", "custom-resource"]},
    }


def _result(f: Finding, index: int, constructs: dict[str, str]) -> dict[str, Any]:
    uri = _uri(f.file)
    construct = constructs.get(f.resource)
    logical: dict[str, Any] = {"name": f.resource, "kind": "resource"}
    if construct:
        logical["fullyQualifiedName"] = construct
    # the construct path names a CDK resource wherever the cdk.out folder lies
    where = construct or f"{uri}:{f.resource}"
    return {
        "ruleId": f.rule,
        "ruleIndex": index,
        "level": f.severity.value,
        "message": {"text": f"{f.message} Fix: {f.fix}"},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": uri},
                    "region": {"startLine": max(f.line, 1)},
                },
                "logicalLocations": [logical],
            }
        ],
        "partialFingerprints": {"cfnopsGuard/v1": f"{where}:{f.rule}"},
    }


def to_sarif(report: GuardReport) -> dict[str, Any]:
    """A SARIF 2.1.0 log with one run, the rules' metadata and one result per finding."""
    known = RULES + EXERCISE_RULES if report.exercised else RULES
    index = {rule.id: i for i, rule in enumerate(known)}
    rules = [_rule(rule) for rule in known]
    constructs = _construct_paths(report.template)
    results = [_result(f, index[f.rule], constructs) for f in report.findings]
    # what was not checked (or only in part) is a notification a reader can filter on
    notifications: list[dict[str, Any]] = [
        {
            "level": "note" if item.partial else "warning",
            "descriptor": {"id": "not-checked"},
            "message": {"text": f"{item.resource}: {item.reason}"},
            "properties": item.to_json(),
        }
        for item in report.not_checked
    ]
    notifications += [
        {
            "level": "warning",
            "descriptor": {"id": "not-exercised"},
            "message": {"text": f"{run.resource}: not exercised: {run.reason}"},
            "properties": run.to_json(),
        }
        for run in report.exercised
        if not run.exercised
    ]
    covered = {(item.resource, item.reason) for item in report.not_checked}
    notifications += [
        {"level": "note", "message": {"text": f"{note.resource}: {note.message}"}}
        for note in report.notes
        if not any(r == note.resource and why in note.message for r, why in covered)
    ]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "cfnops-guard",
                        "version": __version__,
                        "rules": rules,
                    }
                },
                "invocations": [
                    {"executionSuccessful": True, "toolExecutionNotifications": notifications}
                ],
                "results": results,
            }
        ],
    }


def render_text(report: GuardReport, console: Console) -> None:
    """Findings as a table plus why/fix lines; readable without colour."""
    unchecked = len(report.not_analysed)
    partly = len(report.not_checked) - unchecked
    tail = f", {unchecked} handler{'s' if unchecked != 1 else ''} not checked" if unchecked else ""
    tail += f", {partly} checked in part" if partly else ""
    if not report.custom_resources:
        console.print(f"{report.template}: no custom resources.", markup=False)
    elif not report.findings:
        console.print(
            f"{report.template}: {len(report.custom_resources)} custom resource(s), "
            f"no findings{tail}.",
            markup=False,
        )
    for finding in report.findings:
        style = "bold red" if finding.severity is Severity.ERROR else "yellow"
        console.print(
            f"[{style}]{finding.severity.value.upper()}[/] {finding.rule} "
            f"[bold]{escape(finding.resource)}[/] {escape(finding.file)}:{finding.line}",
            soft_wrap=True,
        )
        console.print(f"  why: {finding.message}", markup=False, soft_wrap=True)
        console.print(f"  fix: {finding.fix}", markup=False, soft_wrap=True)
    if report.notes:
        table = Table(title="not checked", show_edge=False)
        table.add_column("resource", overflow="fold")
        table.add_column("note", overflow="fold")
        for note in report.notes:
            table.add_row(note.resource, note.message)
        console.print(table)
    if report.exercised:
        _render_exercise(report.exercised, console)
    errors = sum(f.severity is Severity.ERROR for f in report.findings)
    if report.findings:
        console.print(f"{errors} error(s), {len(report.findings) - errors} warning(s){tail}.")


def _render_exercise(runs: tuple[Exercised, ...], console: Console) -> None:
    """One table per exercised handler: each request and the id it answered."""
    for run in runs:
        head = f"exercised {run.resource} (function {run.handler or '?'})"
        if not run.exercised:
            console.print(f"{head}: not exercised: {run.reason}", markup=False, soft_wrap=True)
            continue
        if run.note:
            head += f" - {run.note}"
        table = Table(title=head, show_edge=False, title_justify="left")
        table.add_column("request")
        table.add_column("answer")
        table.add_column("PhysicalResourceId", overflow="fold")
        table.add_column("changing AWS calls", overflow="fold")
        for step in run.steps:
            table.add_row(
                escape(step.event),
                escape(step.status or "none: " + step.detail),
                escape(step.physical_id),
                escape(", ".join(step.changes)),
            )
        console.print(table)

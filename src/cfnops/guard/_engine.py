"""Run the rules over every custom resource of a template."""

from __future__ import annotations

from pathlib import Path

from cfnops.guard._facts import HandlerFacts
from cfnops.guard._flow import HandlerSyntaxError
from cfnops.guard._javascript import analyze_javascript
from cfnops.guard._js_local import local_js_modules
from cfnops.guard._model import Finding, GuardReport, NotChecked, Note, Severity
from cfnops.guard._py_local import local_modules
from cfnops.guard._python import analyze_python
from cfnops.guard._template import (
    CodeSource,
    Template,
    handler_code,
    is_custom_resource,
    load_template,
    service_function,
)
from cfnops.guard.errors import GuardInputError
from cfnops.guard.rules import ALL_RULES, RULES, RuleContext


def analyze_source(source: CodeSource) -> HandlerFacts:
    """Facts about one handler (raises HandlerSyntaxError when it does not parse)."""
    if source.language == "python":
        on_disk = Path(source.file) if source.file.endswith(".py") else None
        return analyze_python(source.text, source.entry, local_modules(source.text, on_disk))
    on_disk_js = Path(source.file) if source.file.endswith((".js", ".mjs", ".cjs")) else None
    return analyze_javascript(source.text, source.entry, local_js_modules(source.text, on_disk_js))


def check_template(template_path: Path | str, code_dir: Path | str | None = None) -> GuardReport:
    """Check every custom resource of a template; see ``docs/guard.md``.

    >>> report = check_template("template.yaml")  # doctest: +SKIP
    >>> [f.rule for f in report.findings]  # doctest: +SKIP
    ['CR001']
    """
    path = Path(template_path)
    code = Path(code_dir) if code_dir is not None else None
    if code is not None and not code.is_dir():
        raise GuardInputError(
            code,
            "--code must be a folder" + ("" if code.exists() else " (it does not exist)"),
            hint="give the folder holding the handlers' code (the one CodeUri/Code points at)",
        )
    template = load_template(path)
    customs = tuple(name for name, res in template.resources.items() if is_custom_resource(res))
    findings: set[Finding] = set()
    notes: list[Note] = []
    unchecked: list[NotChecked] = []
    analyzed: dict[str, tuple[CodeSource, HandlerFacts] | str] = {}
    for resource in customs:
        function, why = service_function(template, resource)
        if function is None:
            notes.append(Note(resource, why))
            unchecked.append(NotChecked(resource, "", why))
            continue
        if function not in analyzed:
            analyzed[function] = _analyze(template, function, code)
        result = analyzed[function]
        if isinstance(result, str):
            notes.append(Note(resource, f"function {function}: {result}"))
            unchecked.append(NotChecked(resource, function, result))
            continue
        source, facts = result
        partly = source.assumed or (
            "" if facts.entry_found else f"handler {source.entry!r} not found in {source.file}"
        )
        if partly:
            why = f"{partly}; checked every top-level function instead"
            notes.append(Note(resource, f"function {function}: {why}"))
            unchecked.append(NotChecked(resource, function, why, partial=True))
        ctx = RuleContext(resource=resource, function=function, source=source)
        for _, check in ALL_RULES:
            findings.update(check(facts, ctx))
    return GuardReport(str(path), customs, tuple(sorted(findings)), tuple(notes), tuple(unchecked))


def _analyze(
    template: Template, function: str, code: Path | None
) -> tuple[CodeSource, HandlerFacts] | str:
    source, why = handler_code(template, function, code)
    if source is None:
        return why
    try:
        return source, analyze_source(source)
    except HandlerSyntaxError as exc:
        line = source.file_line(exc.line) if exc.line else 0
        return f"cannot parse the handler ({source.file}:{line}: {exc.reason})"
    except RecursionError:
        return f"the handler in {source.file} is nested too deeply to analyse"


def findings_by_resource(
    template_path: Path | str, code_dir: Path | str | None = None
) -> dict[str, list[Finding]]:
    """Guard findings keyed by custom resource logical id (every custom resource is a key).

    Meant for other tools (``cfnops diff``) that annotate custom-resource changes.
    """
    return check_template(template_path, code_dir).by_resource()


def diff_annotations(
    template_path: Path | str, code_dir: Path | str | None = None
) -> dict[str, tuple[str, ...]]:
    """One short line per finding, keyed by custom resource, for ``cfnops.diff.annotate``.

    Errors come first; the full why/fix stays with ``cfnops guard``.

    >>> diff = annotate(diff, diff_annotations("new.yaml"))  # doctest: +SKIP
    """
    summary = {rule.id: rule.summary for rule in RULES}
    out: dict[str, tuple[str, ...]] = {}
    for resource, found in findings_by_resource(template_path, code_dir).items():
        ordered = sorted(found, key=lambda f: (f.severity is not Severity.ERROR, f.line))
        if ordered:
            out[resource] = tuple(
                f"guard {f.rule} ({f.severity.value}) {f.file}:{f.line}: {summary[f.rule]} "
                "(cfnops guard explains why and the fix)"
                for f in ordered
            )
    return out


_UNSTABLE_ID_RULES = frozenset({"CR001", "CR002", "CR003"})


def replacement_reasons(
    template_path: Path | str, code_dir: Path | str | None = None
) -> dict[str, str]:
    """Custom resources whose handler answers Update with a new PhysicalResourceId.

    Keyed by logical id, for ``cfnops.diff.escalate``: only error-severity
    findings of the unstable-id rules (CR001-CR003) count.
    """
    summary = {rule.id: rule.summary for rule in RULES}
    out: dict[str, str] = {}
    for resource, found in findings_by_resource(template_path, code_dir).items():
        errors = [f for f in found if f.severity is Severity.ERROR and f.rule in _UNSTABLE_ID_RULES]
        if errors:
            first = min(errors, key=lambda f: f.line)
            out[resource] = (
                f"guard {first.rule} {first.file}:{first.line}: {summary[first.rule]}; "
                "the handler answers this Update with a new PhysicalResourceId"
            )
    return out

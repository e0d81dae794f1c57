"""``review``: a request in, a result out; the diff with what the guard, the stack,
cfn-lint and the gate add. Rendering is the caller's."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfnops.errors import UsageError
from cfnops.review._checks import validated, with_guard_findings, with_live_drift, with_taken_names
from cfnops.review._request import USAGE_HINT, ReviewRequest, ReviewRuntime, check_request
from cfnops.review._result import ReviewResult
from cfnops.review._sources import FileDiff, diff_pair, git_text

if TYPE_CHECKING:
    from cfnops.diff import TemplateDiff

__all__ = ["review"]


def review(request: ReviewRequest, runtime: ReviewRuntime | None = None) -> ReviewResult:
    """Review what deploying NEW does: ``request`` says what to compare and check;
    ``runtime`` gives AWS (needed with ``stack``) and the default region.

    Raises :class:`cfnops.errors.UsageError` on options that mean nothing together and
    the diff's, git's or AWS's errors as they come.
    """
    from cfnops.review._parameters import given_parameters

    check_request(request)
    run = _Run(request, runtime, given_parameters(request.parameter_files, request.parameters))
    templates = request.templates
    if not request.stack and not request.git_ref and all(is_assembly(t) for t in templates):
        found = run.assemblies()
    elif request.git_ref:
        found = run.against_git(request.git_ref)
    else:
        found = run.one()
    return _gated(request, found)


def is_assembly(path: Path) -> bool:
    """A CDK cloud assembly: a folder with a manifest.json (checked without importing it)."""
    return path.is_dir() and (path / "manifest.json").is_file()


@dataclass(frozen=True)
class _Run:
    request: ReviewRequest
    runtime: ReviewRuntime | None
    given: dict[str, str]

    @property
    def region(self) -> str:
        """The table's region without building an AWS session: request, runtime, us-east-1."""
        if self.request.region:
            return self.request.region
        return (self.runtime.aws_region if self.runtime else None) or "us-east-1"

    @property
    def aws(self) -> ReviewRuntime:
        if self.runtime is None:
            raise UsageError("--stack needs AWS: review(request, runtime) with a runtime")
        return self.runtime

    def checked(self, result: TemplateDiff, template: Path) -> TemplateDiff:
        """The guard's findings, then (``validate``) the registry schema's."""
        request = self.request
        result = with_guard_findings(result, template, request.code)
        return validated(result, template, self.region, request.validate)

    def one(self) -> ReviewResult:
        """One template against another or a stack."""
        from cfnops.diff import load_template

        templates, stack = self.request.templates, self.request.stack
        new_path = templates[-1]
        if is_assembly(new_path):
            if not stack:
                raise UsageError(
                    f"{new_path} is a cloud assembly: compare it with another one "
                    "(OLD/cdk.out NEW/cdk.out) or with a deployed stack (--stack NAME)",
                    hint=USAGE_HINT,
                )
            new_path, stack = _artifact_template(new_path, stack)
        new = load_template(new_path)
        if stack:
            found = self._against_stack(stack, new, new_path)
        else:
            old = load_template(templates[0])
            found = diff_pair(
                old,
                new,
                str(new_path),
                region=self.region,
                given=self.given,
                old_source=str(templates[0]),
            )
            found = replace(found, diff=self.checked(found.diff, new_path))
        return ReviewResult(f"Stack {stack}" if stack else "Template diff", (found,))

    def _against_stack(self, stack: str, new: dict[str, Any], new_path: Path) -> FileDiff:
        from cfnops.diff.stack import diff_against_stack

        aws, request = self.aws, self.request
        result = diff_against_stack(
            aws.clients.client("cloudformation"),
            stack,
            new,
            parameters=self.given,
            region=aws.clients.region,
            change_set=request.change_set,
        )
        result = self.checked(result, new_path)
        if request.validate:
            result = with_taken_names(aws, new, result)
        if request.drift:
            result = with_live_drift(aws, stack, result)
        return FileDiff(str(new_path), result)

    def assemblies(self) -> ReviewResult:
        from cfnops.diff import diff_assemblies, load_assembly

        dirs = self.request.templates
        region, given = self.region, self.given
        result = diff_assemblies(
            load_assembly(dirs[0]),
            load_assembly(dirs[1]),
            lambda old, new: diff_pair(old, new, "", region=region, given=given).diff,
        )
        return ReviewResult("", assembly=result)

    def against_git(self, ref: str) -> ReviewResult:
        """Each template against its content at git ``ref``."""
        from cfnops.diff import TemplateLoadError, load_template, parse_template

        found: list[FileDiff] = []
        skipped: list[Path] = []
        for path in self.request.templates:
            try:
                new = load_template(path)
            except TemplateLoadError as exc:
                if "not a CloudFormation template" not in exc.message:
                    raise
                skipped.append(path)
                continue
            text = git_text(ref, path)
            old = parse_template(text, f"{ref}:{path}") if text and text.strip() else {}
            item = diff_pair(
                old,
                new,
                str(path),
                region=self.region,
                given=self.given,
                old_source=f"{ref}:{path}",
            )
            found.append(replace(item, diff=self.checked(item.diff, path)))
        return ReviewResult(f"Template diff against {ref}", tuple(found), skipped=tuple(skipped))


def _artifact_template(assembly_dir: Path, stack: str) -> tuple[Path, str]:
    """The template of the artifact named ``stack`` (artifact id or stack name), and the
    name of the stack it deploys."""
    from cfnops.diff import load_assembly

    assembly = load_assembly(assembly_dir)
    artifact = assembly.stack(stack)
    if artifact is None:
        names = ", ".join(sorted(assembly.stacks)) or "none"
        raise UsageError(
            f"{assembly_dir}: no stack artifact {stack!r} (artifact ids: {names})",
            hint="--stack takes an artifact id or the stack name it deploys",
        )
    return artifact.template_file, artifact.stack_name


def _gated(request: ReviewRequest, found: ReviewResult) -> ReviewResult:
    """``found`` with what the ``fail_on`` gate decided."""
    from cfnops.diff import FailOn, gate

    if request.fail_on is None:
        return found
    level = FailOn(request.fail_on)
    trips = [gate(d, level, strict=request.strict) for d in found.diffs]
    if any(t is not None for t in trips):
        tripped = tuple(r for t in trips for r in (t or ()))
        return replace(found, tripped=tripped)
    failing = [f for d in found.diffs for f in d.deploy_findings if f.level == "error"]
    errors = tuple(sorted({f"{f.logical_id} ({f.rule})" for f in failing}))
    return replace(found, deploy_errors=errors)

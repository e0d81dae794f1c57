"""Text, Markdown and JSON for two cloud assemblies, grouped by stack.

JSON (``cfnops diff OLD.out NEW.out -o json``)::

    {"differenceCount": N,
     "stacks": [{"artifactId": "App", "stackName": "app-prod", "change": "MODIFIED",
                 "template": "cdk.out/App.template.json",
                 "diff": {… the single-template shape of cfnops.diff.to_json …},
                 "nested": [{"artifactId": "App/Db", …}]}]}
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from cfnops.diff._assembly import AssemblyDiff, StackChange, StackDiff
from cfnops.diff._render_json import to_json
from cfnops.diff._render_markdown import render_markdown
from cfnops.diff._render_text import render_text

__all__ = ["assembly_json", "assembly_markdown", "assembly_text"]

_WORDS = {
    StackChange.ADDED: "new stack",
    StackChange.REMOVED: "stack removed",
    StackChange.MODIFIED: "changed",
    StackChange.UNCHANGED: "no differences",
}


def _heading(stack: StackDiff) -> str:
    name = f" ({stack.stack_name})" if stack.stack_name != stack.artifact_id else ""
    return f"Stack {stack.artifact_id}{name}: {_WORDS[stack.change]}"


def assembly_text(result: AssemblyDiff) -> RenderableType:
    """One section per stack (nested stacks after their parent); unchanged stacks in one line."""
    parts: list[RenderableType] = [
        Text(
            f"Cloud assembly diff: {len(result.walk())} stacks, "
            f"{result.difference_count} differences"
        )
    ]
    for stack in result.walk():
        parts.append(Text(""))
        parts.append(Text(_heading(stack), style="bold"))
        if not stack.diff.is_empty:
            parts.append(render_text(stack.diff, title=stack.artifact_id))
    return Group(*parts)


def assembly_markdown(result: AssemblyDiff) -> str:
    """A pull-request comment: a table of stacks, then each changed stack's report."""
    lines = [
        f"## cfnops diff: {result.difference_count} differences in "
        f"{sum(1 for s in result.walk() if not s.diff.is_empty)} of "
        f"{len(result.walk())} stacks",
        "",
        "| Stack | Change | Differences |",
        "|---|---|---|",
    ]
    for stack in result.walk():
        lines.append(
            f"| `{stack.artifact_id}` | {_WORDS[stack.change]} | {stack.diff.difference_count} |"
        )
    lines.append("")
    out = "\n".join(lines) + "\n"
    for stack in result.walk():
        if not stack.diff.is_empty:
            out += "\n" + render_markdown(stack.diff, title=f"Stack {stack.artifact_id}")
    return out


def _stack_json(stack: StackDiff) -> dict[str, Any]:
    return {
        "artifactId": stack.artifact_id,
        "stackName": stack.stack_name,
        "change": stack.change.value,
        "template": stack.template_file,
        "diff": to_json(stack.diff),
        "nested": [_stack_json(child) for child in stack.nested],
    }


def assembly_json(result: AssemblyDiff) -> dict[str, Any]:
    """Everything the text report says, as JSON (shape in the module docstring)."""
    return {
        "differenceCount": result.difference_count,
        "stacks": [_stack_json(stack) for stack in result.stacks],
    }

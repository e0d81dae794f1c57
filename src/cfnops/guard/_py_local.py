"""Project-local Python helpers: modules next to the handler that it imports.

A handler often sends its response through a small module of its own package
(``from .cfn import send_response``, ``import response_helper``). The guard
follows such calls into the helper, so a helper that falls back to the log
stream name is judged like cfn-response itself. Only modules in the handler's
own folder (or package) are read; nothing is imported or executed.
"""

from __future__ import annotations

import ast
from pathlib import Path

from cfnops.guard._flow import HandlerSyntaxError
from cfnops.guard._py_parse import parse_python

_MAX_MODULES = 20
_MAX_BYTES = 512 * 1024


def _imported(tree: ast.Module) -> list[str]:
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
        elif isinstance(node, ast.ImportFrom) and node.level:
            names += [alias.name for alias in node.names]  # from . import helper
    return names


def local_modules(source: str, file: Path | None) -> dict[str, str]:
    """Dotted module name -> source, for the project-local modules ``source`` imports."""
    if file is None:
        return {}
    folder = file.parent
    found: dict[str, str] = {}
    pending = [source]
    while pending and len(found) < _MAX_MODULES:
        try:
            tree = parse_python(pending.pop())
        except HandlerSyntaxError:
            continue
        for name in _imported(tree):
            if name in found:
                continue
            relative = Path(*name.split("."))
            for candidate in (
                folder / relative.with_suffix(".py"),
                folder / relative / "__init__.py",
            ):
                if candidate.is_file() and candidate.resolve() != file.resolve():
                    if candidate.stat().st_size > _MAX_BYTES:
                        break
                    text = candidate.read_text(encoding="utf-8", errors="replace")
                    found[name] = text
                    pending.append(text)
                    break
    return found


def local_functions(modules: dict[str, str]) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """``module.function`` (and ``module.Class.method`` as ``module.method``) -> definition."""
    out: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    for module, text in modules.items():
        try:
            tree = parse_python(text)
        except HandlerSyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                out.setdefault(f"{module}.{node.name}", node)
    return out

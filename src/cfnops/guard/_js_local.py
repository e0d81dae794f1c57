"""Project-local Node.js modules: files next to the handler that it requires or imports.

``require('./response')`` / ``import { send } from './response.mjs'``: the guard reads
those files too (relative specifiers only; nothing is executed), so a response helper
of the handler's own package is judged like cfn-response itself.
"""

from __future__ import annotations

from pathlib import Path

from cfnops.guard._flow import HandlerSyntaxError
from cfnops.guard._js_syntax import Node, collect_declarations, parse_javascript, walk

_SUFFIXES = ("", ".js", ".cjs", ".mjs", "/index.js")
_MAX_MODULES = 20
_MAX_BYTES = 512 * 1024


def _specifiers(tree: Node) -> list[str]:
    found: list[str] = []
    for node in walk(tree):
        value = None
        if node.type == "CallExpression" and node.callee.type == "Identifier":
            if node.callee.name == "require" and node.arguments:
                arg = node.arguments[0]
                value = arg.value if arg.type == "Literal" else None
        elif node.type == "ImportDeclaration":
            value = node.source.value
        if isinstance(value, str) and value.startswith("."):
            found.append(value)
    return found


def local_js_modules(source: str, file: Path | None) -> dict[str, str]:
    """Relative specifier -> source, for the local modules ``source`` loads (one level)."""
    if file is None:
        return {}
    try:
        tree = parse_javascript(source)
    except HandlerSyntaxError:
        return {}
    out: dict[str, str] = {}
    for spec in _specifiers(tree)[:_MAX_MODULES]:
        for suffix in _SUFFIXES:
            candidate = (file.parent / (spec + suffix)).resolve()
            if candidate.is_file() and candidate != file.resolve():
                if candidate.stat().st_size <= _MAX_BYTES:
                    out[spec] = candidate.read_text(encoding="utf-8", errors="replace")
                break
    return out


def local_js_functions(modules: dict[str, str]) -> tuple[dict[str, Node], dict[str, str]]:
    """(qualified name -> function, ``spec#export`` -> qualified name) of local modules."""
    functions: dict[str, Node] = {}
    exports: dict[str, str] = {}
    for spec, text in modules.items():
        try:
            declared = collect_declarations(parse_javascript(text))
        except HandlerSyntaxError:
            continue
        for name, node in declared.functions.items():
            functions[f"{spec}#{name}"] = node
            exports[f"{spec}#{name}"] = f"{spec}#{name}"
        for exported, local in declared.exports.items():
            if local in declared.functions:
                exports[f"{spec}#{exported}"] = f"{spec}#{local}"
    return functions, exports

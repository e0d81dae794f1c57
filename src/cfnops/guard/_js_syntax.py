"""JavaScript syntax for the guard: parsing with esprima, tree walking, declarations."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from cfnops.guard._facts import AWS, CFN_RESPONSE, MOD_PREFIX, Val, lab
from cfnops.guard._flow import HandlerSyntaxError

Node = Any  # esprima nodes are untyped attribute bags
FUNCTIONS = ("FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression")
# esprima 4 predates ES2020; on a parse error retry with optional chaining and
# nullish coalescing spelled the ES2017 way (same data flow for this analysis).
_MODERN = (
    (re.compile(r"\?\.(?=[\[(])"), ""),
    (re.compile(r"\?\.(?!\d)"), "."),
    (re.compile(r"\?\?="), "||="),
    (re.compile(r"\?\?"), "||"),
)


def parse_javascript(source: str) -> Node:
    """Parse a script or an ES module; raise :class:`HandlerSyntaxError` if neither parses."""
    # Imported here, and without esprima's own character tables (built by walking every
    # Unicode code point: most of its import time): see cfnops.guard._js_chars.
    from cfnops.guard._js_chars import install

    install()
    import esprima

    first_error: Exception | None = None
    for text in (source, _downlevel(source)):
        for parse in (esprima.parseScript, esprima.parseModule):
            try:
                return parse(text, {"loc": True})
            except Exception as exc:  # esprima raises its own Error class
                first_error = first_error or exc
    line = int(getattr(first_error, "lineNumber", 0) or 0)
    reason = re.sub(r"^Line \d+: ", "", str(first_error))
    raise HandlerSyntaxError(line, reason)


def _downlevel(source: str) -> str:
    for pattern, replacement in _MODERN:
        source = pattern.sub(replacement, source)
    return source


def children(node: Node) -> Iterator[Node]:
    for key, value in vars(node).items():
        if key in ("loc", "range"):
            continue
        items = value if isinstance(value, list) else [value]
        for item in items:
            if hasattr(item, "type") and isinstance(item.type, str):
                yield item


def walk(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(children(current))


def line_of(node: Node) -> int:
    return int(node.loc.start.line) if getattr(node, "loc", None) else 0


def key_of(node: Node, computed: bool = False) -> str | None:
    if node is None:
        return None
    if node.type == "Identifier" and not computed:
        return str(node.name)
    if node.type == "Literal" and isinstance(node.value, str):
        return node.value
    return None


# cfn-response and its npm ports with the same send(event, context, status, data, id).
CFN_RESPONSE_PORTS = frozenset({"cfn-response", "cfn-response-promise", "cfn-response-async"})


def module_value(name: str) -> Val:
    if name in CFN_RESPONSE_PORTS:
        return lab(CFN_RESPONSE)
    if name == "aws-sdk" or name.startswith("@aws-sdk/"):
        return lab(AWS)
    return lab(MOD_PREFIX + name.removeprefix("node:"))


@dataclass
class Declarations:
    """Functions by name, exported names (export name -> local name), names called directly."""

    functions: dict[str, Node] = field(default_factory=dict)
    exports: dict[str, str] = field(default_factory=dict)
    called: set[str] = field(default_factory=set)
    nested: set[int] = field(default_factory=set)  # id() of functions inside functions

    def export(self, name: str, value: Node) -> None:
        if value.type in FUNCTIONS:
            self.functions.setdefault(name, value)
        elif value.type == "Identifier" and value.name != name:
            self.exports[name] = value.name


def collect_declarations(tree: Node) -> Declarations:
    """Every named function, including ``exports.x = ...`` and ``module.exports = {...}``."""
    out = Declarations()
    for outer in walk(tree):
        if outer.type in FUNCTIONS:
            out.nested.update(id(inner) for inner in walk(outer.body) if inner.type in FUNCTIONS)
    for node in walk(tree):
        if node.type == "FunctionDeclaration" and node.id is not None:
            out.functions.setdefault(node.id.name, node)
        elif node.type == "VariableDeclarator" and node.init is not None:
            if node.id.type == "Identifier" and node.init.type in FUNCTIONS:
                out.functions.setdefault(node.id.name, node.init)
        elif node.type == "AssignmentExpression" and node.left.type == "MemberExpression":
            _collect_export(out, node)
        elif node.type == "ExportSpecifier":
            out.exports[node.exported.name] = node.local.name
        elif node.type == "CallExpression" and node.callee.type == "Identifier":
            out.called.add(node.callee.name)
    return out


def _collect_export(out: Declarations, node: Node) -> None:
    left, right = node.left, node.right
    name = key_of(left.property, left.computed)
    if name == "exports" and right.type == "ObjectExpression":  # module.exports = {...}
        for prop in right.properties:
            key = key_of(prop.key, prop.computed) if prop.type == "Property" else None
            if key is not None:
                out.export(key, prop.value)
    elif name is not None:
        out.export(name, right)

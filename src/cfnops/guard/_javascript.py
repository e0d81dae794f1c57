"""Node.js handlers: an abstract run of the esprima syntax tree, once per request type.

The run's statement handlers are in :mod:`cfnops.guard._js_statements`, its expression
handlers in :mod:`cfnops.guard._js_expressions`; ``_Run`` inherits both.
"""

from __future__ import annotations

from collections.abc import Mapping

from cfnops.guard import _facts
from cfnops.guard._facts import NONE, Recorder, Val, lab
from cfnops.guard._js_expressions import _JsExpressions
from cfnops.guard._js_local import local_js_functions
from cfnops.guard._js_statements import _NEXT
from cfnops.guard._js_syntax import (
    Node,
    collect_declarations,
    line_of,
    parse_javascript,
)

_MAX_DEPTH = 8
_CALL_BUDGET = 400  # inlined calls per request type: bounds the time on very large modules


def analyze_javascript(
    source: str, entry: str, local: Mapping[str, str] | None = None
) -> _facts.HandlerFacts:
    """Facts about the Node.js handler exported as ``entry`` from ``source``.

    ``local`` maps relative module specifiers to their source (see
    :func:`cfnops.guard._js_local.local_js_modules`); calls into them are followed and
    reported at the handler's call site.
    """
    tree = parse_javascript(source)
    foreign = local_js_functions(dict(local or {}))
    runs = []
    found = False
    for request_type in _facts.REQUEST_TYPES:
        run = _Run(tree, Recorder(request_type), foreign)
        found = run.run(entry)
        runs.append(run.rec)
    return _facts.merge_runs("nodejs", found, False, runs)


class _Run(_JsExpressions):
    """One abstract execution of the module for one request type."""

    def __init__(
        self,
        tree: Node,
        rec: Recorder,
        foreign: tuple[dict[str, Node], dict[str, str]] = ({}, {}),
    ) -> None:
        self.tree = tree
        self.rec = rec
        self.rt = rec.request_type
        self.declared = declared = collect_declarations(tree)
        self.functions: dict[str, Node] = declared.functions
        self.foreign, self.foreign_exports = foreign
        self.functions.update(self.foreign)
        for qualified, fn in self.foreign.items():  # helpers calling each other by name
            self.functions.setdefault(qualified.split("#", 1)[1], fn)
        self.foreign_nodes = {id(fn) for fn in self.foreign.values()}
        self.site: int | None = None
        self.call_line = 0
        self.exports = declared.exports
        self.called = declared.called
        self.globals: dict[str, Val] = {}
        self.stack: list[str] = []
        self.budget = _CALL_BUDGET
        self.returns: list[list[Val]] = [[]]

    def run(self, entry: str) -> bool:
        self.block(self.tree.body, self.globals)
        target = self.exports.get(entry, entry)
        if target in self.functions:
            self.call(target, [Val(), Val(), Val()])
            return True
        for name in list(self.functions):
            if name not in self.called and self.rt in _facts.name_hint(name):
                self.call(name, [Val(), Val(), Val()])
        return False

    def call(self, name: str, args: list[Val], caller: dict[str, Val] | None = None) -> Val:
        """Run a function with these arguments; a nested function also sees the caller's
        variables (it is called where it is defined: a callback or a local helper)."""
        fn = self.functions[name]
        if name in self.stack or len(self.stack) >= _MAX_DEPTH or self.budget <= 0:
            return _facts.derived(args)
        self.budget -= 1
        entering = self.site is None and id(fn) in self.foreign_nodes
        if entering:
            self.site = self.call_line
        closure = caller if caller is not None and id(fn) in self.declared.nested else {}
        env: dict[str, Val] = dict(closure)
        for i, param in enumerate(fn.params):
            self.bind(param, args[i] if i < len(args) else lab(NONE), env, line_of(fn))
        self.stack.append(name)
        self.returns.append([])
        try:
            if fn.body.type != "BlockStatement":
                self.returns[-1].append(self.expr(fn.body, env))
            elif self.block(fn.body.body, env) == _NEXT:
                self.returns[-1].append(lab(NONE))
            values = self.returns[-1]
        finally:
            self.returns.pop()
            self.stack.pop()
            if entering:
                self.site = None
        return _facts.union(values)

    def sink(self, kind: str, line: int, value: Val, status: Val | None) -> None:
        """Record a sink; inside a project-local module, at the handler's call site."""
        self.rec.sink(kind, self.site if self.site is not None else line, value, status)

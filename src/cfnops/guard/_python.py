"""Python handlers: an abstract run of the module with :mod:`ast`, once per request type.

The run's statement handlers are in :mod:`cfnops.guard._py_statements`, its expression
handlers in :mod:`cfnops.guard._py_expressions`; ``_Run`` inherits both.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from cfnops.guard._facts import (
    REQUEST_TYPES,
    HandlerFacts,
    Recorder,
    Val,
    merge_runs,
    name_hint,
)
from cfnops.guard._py_expressions import _PyExpressions
from cfnops.guard._py_local import local_functions
from cfnops.guard._py_parse import parse_python
from cfnops.guard._py_statements import _Frame, _Func

_CALL_BUDGET = 400  # inlined calls per request type: bounds the time on very large modules


def analyze_python(source: str, entry: str, local: Mapping[str, str] | None = None) -> HandlerFacts:
    """Facts about the Python handler ``entry`` defined in ``source``.

    ``local`` maps project-local module names to their source (see
    :func:`cfnops.guard._py_local.local_modules`); calls into them are followed,
    and what happens there is reported at the handler's call site.
    """
    tree = parse_python(source)
    foreign = local_functions(dict(local or {}))
    runs = []
    found = False
    uses_crhelper = False
    for request_type in REQUEST_TYPES:
        run = _Run(tree, Recorder(request_type), foreign)
        found = run.run(entry)
        uses_crhelper = uses_crhelper or run.uses_crhelper
        runs.append(run.rec)
    return merge_runs("python", found, uses_crhelper, runs)


class _Run(_PyExpressions):
    """One abstract execution of the module for one request type."""

    def __init__(
        self, tree: ast.Module, rec: Recorder, foreign: Mapping[str, _Func] | None = None
    ) -> None:
        self.tree = tree
        self.rec = rec
        self.rt = rec.request_type
        self.functions: dict[str, _Func] = {}
        self.called: set[str] = set()
        self.methods: set[str] = set()
        self.classes: set[str] = set()
        self.attrs: dict[str, Val] = {}  # self.<name> = value, in any method
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self.functions.setdefault(node.name, node)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                self.called.add(node.func.id)
            elif isinstance(node, ast.ClassDef):
                self.classes.add(node.name)
                self.methods.update(
                    f.name
                    for f in node.body
                    if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
                )
        self.foreign = dict(foreign or {})
        self.functions.update(self.foreign)
        for fn in self.foreign.values():
            self.functions.setdefault(fn.name, fn)  # helpers calling each other by name
        self.site: int | None = None  # call site in the handler of the helper being run
        self.call_line = 0
        self.globals: dict[str, Val] = {}
        self.crhelper: dict[str, set[str]] = {}
        self.uses_crhelper = False
        self.stack: list[str] = []
        self.budget = _CALL_BUDGET
        self.frames: list[_Frame] = [_Frame()]

    # -- entry points ---------------------------------------------------------------

    def run(self, entry: str) -> bool:
        self.block(self.tree.body, self.globals)
        for name, kinds in self.crhelper.items():
            if self.rt in kinds:
                returns: list[tuple[int, Val]] = []
                self.call(name, [Val(), Val()], {}, collect=returns)
                for line, value in returns:
                    self.sink("crhelper_return", line, value, None)
        if entry in self.functions:
            self.call(entry, [Val(), Val()], {})
            return True
        if self.crhelper:
            return True
        for name, fn in self.functions.items():
            top_level = fn in self.tree.body
            if top_level and name not in self.called and self.rt in name_hint(name):
                self.call(name, [Val(), Val()], {})
        return False

    def sink(self, kind: str, line: int, value: Val, status: Val | None) -> None:
        """Record a sink; inside a project-local helper, at the handler's call site."""
        self.rec.sink(kind, self.site if self.site is not None else line, value, status)

"""Python handlers: an abstract run of the module with :mod:`ast`, once per request type."""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from cfnops.guard._facts import (
    AWS,
    CFN_RESPONSE,
    CFN_SEND,
    CLASS,
    CREATE,
    CRHELPER,
    CRHELPER_CLASS,
    EXACT,
    FROM_REQUEST_TYPE,
    INCOMING_ID,
    INSTANCE,
    LITERAL,
    MOD_PREFIX,
    NONE,
    REQUEST_TYPE,
    REQUEST_TYPES,
    RESPONSE_URL,
    STR_PREFIX,
    HandlerFacts,
    Recorder,
    Val,
    derived,
    field_value,
    is_aws_action,
    is_destructive_name,
    lab,
    merge_runs,
    name_hint,
    to_response_url,
    union,
)
from cfnops.guard._flow import (
    LOGGING_CALLS,
    any_true,
    compare_request_type,
    has_incoming_id,
    merge_envs,
    truth,
    truth_value,
)
from cfnops.guard._py_local import local_functions
from cfnops.guard._py_parse import parse_python
from cfnops.guard._py_values import (
    const_str,
    is_namespace,
    mentions_request_type,
    module_val,
    volatile_call,
)

_Func = ast.FunctionDef | ast.AsyncFunctionDef
_MAX_DEPTH = 8
_CALL_BUDGET = 400  # inlined calls per request type: bounds the time on very large modules
_CRHELPER_EVENTS = {"create": "Create", "update": "Update", "delete": "Delete"}


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


@dataclass
class _Frame:
    returns: list[tuple[int, Val]] = field(default_factory=list)


class _Run:
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

    def call(
        self,
        name: str,
        args: list[Val],
        kwargs: dict[str, Val],
        collect: list[tuple[int, Val]] | None = None,
        caller: dict[str, Val] | None = None,
    ) -> Val:
        fn = self.functions[name]
        if name in self.stack or len(self.stack) >= _MAX_DEPTH or self.budget <= 0:
            return derived(args)
        self.budget -= 1
        first = fn.args.args[0].arg if fn.args.args else ""
        if first in ("self", "cls"):
            args = [lab(INSTANCE), *args]  # a method: the instance is bound implicitly
        entering = self.site is None and (name in self.foreign or fn in self.foreign.values())
        if entering:
            self.site = self.call_line
        # A nested function is called where it is defined: it sees the caller's variables.
        nested = caller is not None and fn not in self.tree.body
        env: dict[str, Val] = dict(caller) if caller is not None and nested else {}
        params = [*fn.args.posonlyargs, *fn.args.args]
        defaults = [None] * (len(params) - len(fn.args.defaults)) + list(fn.args.defaults)
        for i, (param, default) in enumerate(zip(params, defaults, strict=True)):
            if i < len(args):
                env[param.arg] = args[i]
            elif param.arg in kwargs:
                env[param.arg] = kwargs[param.arg]
            else:
                env[param.arg] = self.expr(default, self.globals) if default else lab(NONE)
        for param, kw_default in zip(fn.args.kwonlyargs, fn.args.kw_defaults, strict=True):
            fallback = self.expr(kw_default, self.globals) if kw_default else lab(NONE)
            env[param.arg] = kwargs.get(param.arg, fallback)
        self.stack.append(name)
        frame = _Frame()
        self.frames.append(frame)
        try:
            if self.block(fn.body, env):
                frame.returns.append((fn.lineno, lab(NONE)))  # falls off the end: None
        finally:
            self.frames.pop()
            self.stack.pop()
            if entering:
                self.site = None
        if collect is not None:
            collect.extend(frame.returns)
        return union(value for _, value in frame.returns)

    def sink(self, kind: str, line: int, value: Val, status: Val | None) -> None:
        """Record a sink; inside a project-local helper, at the handler's call site."""
        self.rec.sink(kind, self.site if self.site is not None else line, value, status)

    # -- statements: each returns whether control can fall through -------------------

    def block(self, body: list[ast.stmt], env: dict[str, Val]) -> bool:
        return all(self.stmt(node, env) for node in body)

    def stmt(self, node: ast.stmt, env: dict[str, Val]) -> bool:
        handler = self._STATEMENTS.get(type(node))
        return handler(self, node, env) if handler is not None else True

    def _expr_stmt(self, node: ast.Expr, env: dict[str, Val]) -> bool:
        self.expr(node.value, env)
        return True

    def _assign_stmt(self, node: ast.Assign, env: dict[str, Val]) -> bool:
        value = self.expr(node.value, env)
        for target in node.targets:
            self.bind(target, value, env, node.lineno)
        return True

    def _ann_assign_stmt(self, node: ast.AnnAssign, env: dict[str, Val]) -> bool:
        if node.value is not None:
            self.bind(node.target, self.expr(node.value, env), env, node.lineno)
        return True

    def _aug_assign_stmt(self, node: ast.AugAssign, env: dict[str, Val]) -> bool:
        value = derived([self.expr(node.target, env), self.expr(node.value, env)])
        self.bind(node.target, value, env, node.lineno)
        return True

    def _return_stmt(self, node: ast.Return, env: dict[str, Val]) -> bool:
        value = self.expr(node.value, env) if node.value is not None else lab(NONE)
        self.frames[-1].returns.append((node.lineno, value))
        return False

    def _raise_stmt(self, node: ast.Raise, env: dict[str, Val]) -> bool:
        if node.exc is not None:
            self.expr(node.exc, env)
        return False

    def _if_stmt(self, node: ast.If, env: dict[str, Val]) -> bool:
        return self.branches(self.cond(node.test, env), node.body, node.orelse, env)

    def _with_stmt(self, node: ast.With | ast.AsyncWith, env: dict[str, Val]) -> bool:
        for item in node.items:
            value = self.expr(item.context_expr, env)
            if item.optional_vars is not None:
                self.bind(item.optional_vars, value, env, node.lineno)
        return self.block(node.body, env)

    def _def_stmt(self, node: _Func, env: dict[str, Val]) -> bool:
        self.define(node, env)
        return True

    def _import_stmt(self, node: ast.Import, env: dict[str, Val]) -> bool:
        for alias in node.names:
            dotted = alias.name if alias.asname else alias.name.split(".")[0]
            env[alias.asname or dotted] = module_val(dotted)
        return True

    def _import_from_stmt(self, node: ast.ImportFrom, env: dict[str, Val]) -> bool:
        for alias in node.names:
            value = module_val(f"{node.module or ''}.{alias.name}".lstrip("."))
            local = f"{node.module}.{alias.name}" if node.module else ""
            if local in self.foreign:
                value = Val(funcs=frozenset({local}))
            if node.module == "cfnresponse" and alias.name in ("SUCCESS", "FAILED"):
                value = lab(STR_PREFIX + alias.name)
            env[alias.asname or alias.name] = value
        return True

    def _assert_stmt(self, node: ast.Assert, env: dict[str, Val]) -> bool:
        self.cond(node.test, env)
        return True

    def branches(
        self,
        decided: bool | None,
        body: list[ast.stmt],
        orelse: list[ast.stmt],
        env: dict[str, Val],
    ) -> bool:
        if decided is True:
            return self.block(body, env)
        if decided is False:
            return self.block(orelse, env)
        left, right = dict(env), dict(env)
        falls = (self.block(body, left), self.block(orelse, right))
        merge_envs(
            env, [e for e, f in zip((left, right), falls, strict=True) if f] or [left, right]
        )
        return any(falls)

    def loop(self, node: ast.For | ast.AsyncFor | ast.While, env: dict[str, Val]) -> bool:
        inner = dict(env)
        if isinstance(node, ast.While):
            self.cond(node.test, env)
        else:
            self.bind(node.target, self.expr(node.iter, env), inner, node.lineno)
        self.block(node.body, inner)
        merge_envs(env, [env, inner])
        return self.block(node.orelse, env)

    def try_(self, node: ast.Try | ast.TryStar, env: dict[str, Val]) -> bool:
        falls = self.block(node.body, env) and self.block(node.orelse, env)
        handled = [env]
        for handler in node.handlers:
            inner = dict(env)
            if handler.name:
                inner[handler.name] = lab(LITERAL)
            if self.block(handler.body, inner):
                falls = True
                handled.append(inner)
        merge_envs(env, handled)
        return self.block(node.finalbody, env) and falls

    def match(self, node: ast.Match, env: dict[str, Val]) -> bool:
        subject = self.expr(node.subject, env)
        outcomes: list[tuple[dict[str, Val], bool]] = []
        for case in node.cases:
            decided = self.pattern(case.pattern, subject)
            if decided is False:
                continue
            inner = dict(env)
            outcomes.append((inner, self.block(case.body, inner)))
            if decided is True:
                break
        else:
            outcomes.append((dict(env), True))
        merge_envs(env, [e for e, f in outcomes if f] or [e for e, _ in outcomes])
        return any(f for _, f in outcomes)

    def pattern(self, pattern: ast.pattern, subject: Val) -> bool | None:
        if isinstance(pattern, ast.MatchAs) and pattern.pattern is None:
            return True
        if isinstance(pattern, ast.MatchOr):
            results = [self.pattern(p, subject) for p in pattern.patterns]
            return any_true(results)
        if isinstance(pattern, ast.MatchValue) and isinstance(pattern.value, ast.Constant):
            return compare_request_type(
                self.rt, subject, lab(STR_PREFIX + str(pattern.value.value))
            )
        return None

    def define(self, node: _Func, env: dict[str, Val]) -> None:
        env[node.name] = Val(funcs=frozenset({node.name}))
        for decorator in node.decorator_list:
            if (
                isinstance(decorator, ast.Attribute)
                and decorator.attr in _CRHELPER_EVENTS
                and self.expr(decorator.value, env).has(CRHELPER)
            ):
                kinds = self.crhelper.setdefault(node.name, set())
                kinds.add(_CRHELPER_EVENTS[decorator.attr])

    def bind(self, target: ast.expr, value: Val, env: dict[str, Val], line: int) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                self.bind(element, value, env, line)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, value, env, line)
        elif isinstance(target, ast.Subscript | ast.Attribute):
            key = target.attr if isinstance(target, ast.Attribute) else const_str(target.slice)
            if key == "PhysicalResourceId":
                self.sink("response_body", line, value, None)
            base = target.value
            if isinstance(base, ast.Name):
                owner = self.lookup(base.id, env)
                if isinstance(target, ast.Attribute) and owner.has(INSTANCE):
                    self.attrs[target.attr] = self.attrs.get(target.attr, Val()) | value
                env[base.id] = owner | value

    # -- expressions -----------------------------------------------------------------

    def lookup(self, name: str, env: dict[str, Val]) -> Val:
        if name in env:
            return env[name]
        if name in self.globals:
            return self.globals[name]
        if name in self.functions:
            return Val(funcs=frozenset({name}))
        return lab(CLASS) if name in self.classes else Val()

    def cond(self, node: ast.expr, env: dict[str, Val]) -> bool | None:
        if isinstance(node, ast.BoolOp):
            results = [self.cond(v, env) for v in node.values]
            if isinstance(node.op, ast.And):
                return False if False in results else (True if all(results) else None)
            return any_true(results)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            inner = self.cond(node.operand, env)
            return None if inner is None else not inner
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            left, right = self.expr(node.left, env), self.expr(node.comparators[0], env)
            self.rec.use(left, node.lineno)
            self.rec.use(right, node.lineno)
            op = node.ops[0]
            negate = isinstance(op, ast.NotEq | ast.IsNot | ast.NotIn)
            if isinstance(op, ast.In | ast.NotIn) and const_str(node.left) == "PhysicalResourceId":
                return has_incoming_id(self.rt) != negate
            if isinstance(op, ast.In | ast.NotIn) and not left.has(REQUEST_TYPE):
                return None
            decided = compare_request_type(self.rt, left, right)
            return None if decided is None else decided != negate
        if isinstance(node, ast.Compare):  # chained: a < b < c
            for operand in (node.left, *node.comparators):
                self.rec.use(self.expr(operand, env), node.lineno)
            return None
        if isinstance(node, ast.Constant):
            return bool(node.value)
        value = self.expr(node, env)
        self.rec.use(value, node.lineno)
        return truth(value)

    def expr(self, node: ast.expr | None, env: dict[str, Val]) -> Val:
        if node is None:
            return Val()
        handler = self._EXPRESSIONS.get(type(node))
        if handler is not None:
            return handler(self, node, env)
        return self._derived_expr(node, env)

    def _derived_expr(self, node: ast.expr, env: dict[str, Val]) -> Val:
        """Any other expression: derived from all its sub-expressions."""
        children = [
            self.expr(c, env) for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr)
        ]
        return derived(children)

    def _constant_expr(self, node: ast.Constant, env: dict[str, Val]) -> Val:
        if node.value is None:
            return lab(NONE)
        if isinstance(node.value, str):
            return lab(STR_PREFIX + node.value, LITERAL)
        return lab(LITERAL)

    def _name_expr(self, node: ast.Name, env: dict[str, Val]) -> Val:
        return self.lookup(node.id, env)

    def _attribute_expr(self, node: ast.Attribute, env: dict[str, Val]) -> Val:
        return self.attribute(self.expr(node.value, env), node.attr)

    def _subscript_expr(self, node: ast.Subscript, env: dict[str, Val]) -> Val:
        if is_namespace(node.value):  # globals()[...], vars()[...]: a name lookup
            picked = self.dispatch(node.slice, env)
            if picked is not None:
                return picked
        base = self.expr(node.value, env)
        key = const_str(node.slice)
        known = field_value(key, self.rt) if key is not None else None
        if known is not None:
            return known
        chosen = base.pick(self.expr(node.slice, env), self.rt)
        if chosen is not None:
            return chosen
        return Val(derived([base]).labels, base.funcs, base.keyed)

    def _bool_op_expr(self, node: ast.BoolOp, env: dict[str, Val]) -> Val:
        values = [self.expr(v, env) for v in node.values]
        if isinstance(node.op, ast.Or):
            if self.rt != CREATE and values[0].labels == {INCOMING_ID}:
                return values[0]  # Update/Delete requests always carry the id
            head = union(Val(v.labels - {NONE}, v.funcs) for v in values[:-1])
            return head | values[-1]
        return union(values)

    def _if_exp_expr(self, node: ast.IfExp, env: dict[str, Val]) -> Val:
        decided = self.cond(node.test, env)
        if decided is None:
            return self.expr(node.body, env) | self.expr(node.orelse, env)
        return self.expr(node.body if decided else node.orelse, env)

    def _compare_expr(self, node: ast.Compare, env: dict[str, Val]) -> Val:
        return truth_value(self.cond(node, env))

    def _unary_op_expr(self, node: ast.UnaryOp, env: dict[str, Val]) -> Val:
        if isinstance(node.op, ast.Not):
            return truth_value(self.cond(node, env))
        return self._derived_expr(node, env)

    def _elements_expr(self, node: ast.List | ast.Tuple | ast.Set, env: dict[str, Val]) -> Val:
        return union(self.expr(e, env) for e in node.elts)

    def _inner_expr(
        self, node: ast.Await | ast.Starred | ast.FormattedValue, env: dict[str, Val]
    ) -> Val:
        return self.expr(node.value, env)

    def _named_expr(self, node: ast.NamedExpr, env: dict[str, Val]) -> Val:
        value = self.expr(node.value, env)
        self.bind(node.target, value, env, node.lineno)
        return value

    def _joined_str_expr(self, node: ast.JoinedStr, env: dict[str, Val]) -> Val:
        return derived(self.expr(v, env) for v in node.values)

    def dispatch(self, name_node: ast.expr, env: dict[str, Val]) -> Val | None:
        """``getattr(obj, <name built from event["RequestType"]>)``: the functions whose
        name mentions this request type (``on_update``, ``Update``...)."""
        value = self.expr(name_node, env)
        if not (value.has(REQUEST_TYPE) or value.has(FROM_REQUEST_TYPE)) and not (
            mentions_request_type(name_node)
        ):
            return None
        found = {f for f in self.functions if self.rt.lower() in f.lower().split(".")[-1]}
        return Val(funcs=frozenset(found)) if found else Val()

    def attribute(self, base: Val, attr: str) -> Val:
        known = field_value(attr, self.rt)
        if known is not None:
            return known
        if base.has(CFN_RESPONSE):
            if attr == "send":
                return lab(CFN_SEND)
            return lab(STR_PREFIX + attr)
        mods = [x for x in base.labels if x.startswith(MOD_PREFIX)]
        local = [f"{m[len(MOD_PREFIX) :]}.{attr}" for m in mods]
        if any(q in self.foreign for q in local):
            return Val(funcs=frozenset(q for q in local if q in self.foreign))
        if attr in self.methods and not mods:
            return Val(derived([base]).labels, frozenset({attr}))  # obj.method / self.method
        if base.has(INSTANCE) and attr in self.attrs:
            return self.attrs[attr]
        if base.keyed:  # self.routes = {"Create": self.create, ...} kept on the instance
            return Val(derived([base]).labels, base.funcs, base.keyed)
        if mods:
            return union(module_val(f"{m[len(MOD_PREFIX) :]}.{attr}") for m in mods)
        if base.has(AWS):
            return lab(AWS, RESPONSE_URL) if base.has(RESPONSE_URL) else lab(AWS)
        if base.has(REQUEST_TYPE) and attr in ("lower", "upper", "strip", "title"):
            return base
        return derived([base])

    def dict_(self, node: ast.Dict, env: dict[str, Val]) -> Val:
        values = [self.expr(v, env) for v in node.values]
        keys = [const_str(k) if k is not None else None for k in node.keys]
        table = frozenset(
            (k, f) for k, v in zip(keys, values, strict=True) if k is not None for f in v.funcs
        )
        if "PhysicalResourceId" in keys:
            status = values[keys.index("Status")] if "Status" in keys else None
            index = keys.index("PhysicalResourceId")
            line = node.values[index].lineno
            self.sink("response_body", line, values[index], status)
        return Val(derived(values).labels, union(values).funcs, table)

    def call_expr(self, node: ast.Call, env: dict[str, Val]) -> Val:
        func, line = node.func, node.lineno
        method = func.attr if isinstance(func, ast.Attribute) else ""
        name = func.id if isinstance(func, ast.Name) else method
        looked_up = self._lookup_call(node, method, name, env)
        if looked_up is not None:
            return looked_up
        callee = self.expr(func, env)
        args = [self.expr(a, env) for a in node.args]
        kwargs = {k.arg or "**": self.expr(k.value, env) for k in node.keywords}
        self.call_line = line
        if callee.has(REQUEST_TYPE) and method in ("lower", "upper", "strip", "title"):
            return callee
        if callee.has(CFN_SEND) and self.stack:  # module level has no event to answer
            pid = args[4] if len(args) > 4 else kwargs.get("physicalResourceId", lab(NONE))
            status = args[2] if len(args) > 2 else kwargs.get("responseStatus")
            self.sink("cfn_response", line, pid, status)
            return Val()
        if name not in LOGGING_CALLS:
            for value in (*args, *kwargs.values()):
                self.rec.use(value, line)
        local = self._call_local(func, callee, args, kwargs, env)
        if local is not None:
            return local
        for value in (*args, *kwargs.values()):  # callbacks handed to code we cannot see
            for f in sorted(value.funcs):
                if f in self.functions and self.rt in name_hint(f):
                    self.call(f, [Val(), Val()], {}, caller=env)
        return self._call_external(func, name, method, callee, args, kwargs, line)

    def _lookup_call(
        self, node: ast.Call, method: str, name: str, env: dict[str, Val]
    ) -> Val | None:
        """``x.get(key[, default])`` of a known event field or a handler table, and
        ``getattr(obj, <name built from the request type>)``; None for any other call."""
        func = node.func
        if method == "get" and node.args:
            key = const_str(node.args[0])
            known = field_value(key, self.rt) if key is not None else None
            if known is not None:
                if known.has(NONE) and len(node.args) > 1:
                    return self.expr(node.args[1], env)
                return known
            assert isinstance(func, ast.Attribute)
            table = self.expr(func.value, env)
            chosen = table.pick(self.expr(node.args[0], env), self.rt)
            if chosen is not None:  # HANDLERS.get(event["RequestType"], fallback)
                if chosen.funcs or len(node.args) < 2:
                    return chosen
                return lab(EXACT) | self.expr(node.args[1], env)
        if name == "getattr" and isinstance(func, ast.Name) and len(node.args) >= 2:
            return self.dispatch(node.args[1], env)
        return None

    def _call_local(
        self,
        func: ast.expr,
        callee: Val,
        args: list[Val],
        kwargs: dict[str, Val],
        env: dict[str, Val],
    ) -> Val | None:
        """A call the module's own code answers (a class, an instance, its functions, a
        crhelper); None when the callee is not the module's."""
        if callee.has(CLASS):  # Provider(...): its __init__ runs, the result is an instance
            if "__init__" in self.functions:
                self.call("__init__", args, kwargs, caller=env)
            return lab(INSTANCE)
        if callee.has(INSTANCE) and not callee.funcs and "__call__" in self.functions:
            return self.call("__call__", args, kwargs, caller=env)
        if callee.funcs:
            direct = callee.has(EXACT) or (isinstance(func, ast.Name) and func.id in self.functions)
            results = [
                self.call(f, args, kwargs, caller=env)
                for f in sorted(callee.funcs)
                if f in self.functions and (direct or self.rt in name_hint(f))
            ]
            return union(results)
        if callee.has(CRHELPER_CLASS):
            self.uses_crhelper = True
            return lab(CRHELPER)
        if callee.has(CRHELPER):
            return Val()  # helper(event, context): the decorated functions run as entries
        return None

    def _call_external(
        self,
        func: ast.expr,
        name: str,
        method: str,
        callee: Val,
        args: list[Val],
        kwargs: dict[str, Val],
        line: int,
    ) -> Val:
        """A call of code we cannot see: what it returns and the actions it records."""
        for label in callee.labels:
            if label.startswith(MOD_PREFIX):
                volatile = volatile_call(label[len(MOD_PREFIX) :])
                if volatile is not None:
                    return lab(volatile) | derived(args)
        answer = to_response_url(callee, *args, *kwargs.values())
        if answer:
            return lab(AWS, RESPONSE_URL) if callee.has(AWS) else derived([callee, *args])
        if callee.has(AWS):
            if (
                method
                and is_aws_action(method)
                and not any(x.startswith(MOD_PREFIX) for x in callee.labels)
            ):
                self.rec.action(line, f"{method}()")
            return lab(AWS)
        if name and is_destructive_name(name):
            self.rec.action(line, f"{name}()")
        if isinstance(func, ast.Name) and func.id == "str" and len(args) == 1:
            return args[0]
        return derived([callee, *args, *kwargs.values()])

    # Statement types with an effect on the abstract state; each handler returns whether
    # control can fall through. Other statements (pass, global...) fall through unchanged.
    _STATEMENTS: ClassVar[dict[type[ast.stmt], Callable[..., bool]]] = {
        ast.Expr: _expr_stmt,
        ast.Assign: _assign_stmt,
        ast.AnnAssign: _ann_assign_stmt,
        ast.AugAssign: _aug_assign_stmt,
        ast.Return: _return_stmt,
        ast.Raise: _raise_stmt,
        ast.If: _if_stmt,
        ast.For: loop,
        ast.AsyncFor: loop,
        ast.While: loop,
        ast.With: _with_stmt,
        ast.AsyncWith: _with_stmt,
        ast.Try: try_,
        ast.TryStar: try_,
        ast.FunctionDef: _def_stmt,
        ast.AsyncFunctionDef: _def_stmt,
        ast.Import: _import_stmt,
        ast.ImportFrom: _import_from_stmt,
        ast.Match: match,
        ast.Assert: _assert_stmt,
    }

    # Expression types with their own abstract value; others derive from their children.
    _EXPRESSIONS: ClassVar[dict[type[ast.expr], Callable[..., Val]]] = {
        ast.Constant: _constant_expr,
        ast.Name: _name_expr,
        ast.Attribute: _attribute_expr,
        ast.Subscript: _subscript_expr,
        ast.Call: call_expr,
        ast.BoolOp: _bool_op_expr,
        ast.IfExp: _if_exp_expr,
        ast.Compare: _compare_expr,
        ast.UnaryOp: _unary_op_expr,
        ast.Dict: dict_,
        ast.List: _elements_expr,
        ast.Tuple: _elements_expr,
        ast.Set: _elements_expr,
        ast.Await: _inner_expr,
        ast.Starred: _inner_expr,
        ast.NamedExpr: _named_expr,
        ast.JoinedStr: _joined_str_expr,
        ast.FormattedValue: _inner_expr,
    }

"""Python handlers: the expression half of the abstract run (see :mod:`cfnops.guard._python`)."""

from __future__ import annotations

import ast
from collections.abc import Callable
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
    RESPONSE_URL,
    STR_PREFIX,
    Recorder,
    Val,
    derived,
    field_value,
    is_aws_action,
    is_destructive_name,
    lab,
    name_hint,
    to_response_url,
    union,
)
from cfnops.guard._flow import (
    LOGGING_CALLS,
    any_true,
    bound_value,
    compare_request_type,
    has_incoming_id,
    truth,
    truth_value,
)
from cfnops.guard._py_statements import _Frame, _Func, _PyStatements
from cfnops.guard._py_values import (
    const_str,
    is_namespace,
    mentions_request_type,
    module_val,
    volatile_call,
)

_MAX_DEPTH = 8  # nested calls followed


class _PyExpressions(_PyStatements):
    """Expression handlers of the Python run: the abstract value of each expression.

    The run (:class:`cfnops.guard._python._Run`) sets the attributes declared here.
    """

    rec: Recorder
    functions: dict[str, _Func]
    methods: set[str]
    classes: set[str]
    globals: dict[str, Val]
    stack: list[str]
    call_line: int
    tree: ast.Module
    site: int | None
    budget: int
    uses_crhelper: bool

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

    def lookup(self, name: str, env: dict[str, Val]) -> Val:
        bound = bound_value(name, env, self.globals, self.functions)
        if bound is not None:
            return bound
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

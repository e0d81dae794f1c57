"""Node.js handlers: the expression half of the abstract run (:mod:`cfnops.guard._javascript`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from cfnops.guard import _facts, _flow
from cfnops.guard._facts import NONE, Val, derived, lab, union
from cfnops.guard._js_statements import _JsStatements
from cfnops.guard._js_syntax import (
    FUNCTIONS,
    Node,
    children,
    key_of,
    line_of,
    module_value,
)

_RANDOM_CALLS = {"randomUUID", "randomBytes", "random", "v1", "v4", "uuid", "uuidv4", "nanoid"}
_READ_COMMANDS = ("Get", "Describe", "List", "Head", "BatchGet", "Query", "Scan")
_CMD_PREFIX = "cmd:"


def _reads_clock(func: Node, name: str, method: str) -> bool:
    """``Date.now()``, ``performance.now()`` or ``Date()``."""
    receiver = (
        func.object.name
        if func.type == "MemberExpression" and (func.object.type == "Identifier")
        else ""
    )
    return (receiver in ("Date", "performance") and method == "now") or name == "Date"


class _JsExpressions(_JsStatements):
    """Expression handlers of the Node.js run: the abstract value of each expression.

    The run (:class:`cfnops.guard._javascript._Run`) supplies ``call``.
    """

    rec: _facts.Recorder
    functions: dict[str, Node]
    foreign_exports: dict[str, str]
    globals: dict[str, Val]
    stack: list[str]
    call_line: int

    def call(self, name: str, args: list[Val], caller: dict[str, Val] | None = None) -> Val:
        raise NotImplementedError

    def function_value(self, node: Node) -> Val:
        name = f"<function@{line_of(node)}:{node.loc.start.column}>"
        self.functions.setdefault(name, node)
        return Val(funcs=frozenset({name}))

    def lookup(self, name: str, env: dict[str, Val]) -> Val:
        bound = _flow.bound_value(name, env, self.globals, self.functions)
        if bound is not None:
            return bound
        return lab(NONE) if name == "undefined" else Val()

    def member(self, base: Val, name: str | None) -> Val:
        if name is None:
            return Val(derived([base]).labels, base.funcs)
        known = _facts.field_value(name, self.rt)
        if known is not None:
            return known
        if base.has(_facts.CFN_RESPONSE):
            return lab(_facts.CFN_SEND) if name == "send" else lab(_facts.STR_PREFIX + name)
        if base.has(_facts.AWS):
            url = {_facts.RESPONSE_URL} & base.labels
            return (
                lab(_facts.AWS, _CMD_PREFIX + name, *url)
                if name.endswith("Command")
                else lab(_facts.AWS, *url)
            )
        mods = [x for x in base.labels if x.startswith(_facts.MOD_PREFIX)]
        local = {self.foreign_exports.get(f"{m[len(_facts.MOD_PREFIX) :]}#{name}") for m in mods}
        local.discard(None)
        if local:
            return Val(funcs=frozenset(str(q) for q in local))
        if mods:
            return union(lab(f"{m}.{name}") for m in mods)
        if base.has(_facts.REQUEST_TYPE) and name in ("toLowerCase", "toUpperCase", "trim"):
            return base
        return derived([base])

    def cond(self, node: Node, env: dict[str, Val]) -> bool | None:
        kind = node.type
        if kind == "LogicalExpression" and node.operator in ("&&", "||"):
            results = [self.cond(node.left, env), self.cond(node.right, env)]
            if node.operator == "&&":
                return False if False in results else (True if all(results) else None)
            return _flow.any_true(results)
        if kind == "UnaryExpression" and node.operator == "!":
            inner = self.cond(node.argument, env)
            return None if inner is None else not inner
        if kind == "BinaryExpression" and node.operator in ("==", "===", "!=", "!=="):
            left, right = self.expr(node.left, env), self.expr(node.right, env)
            self.rec.use(left, line_of(node))
            self.rec.use(right, line_of(node))
            decided = _flow.compare_request_type(self.rt, left, right)
            if decided is None:
                return None
            return decided if node.operator in ("==", "===") else not decided
        if (
            kind == "BinaryExpression"
            and node.operator == "in"
            and key_of(node.left, True) == "PhysicalResourceId"
        ):
            return _flow.has_incoming_id(self.rt)
        if (
            kind == "CallExpression"
            and node.callee.type == "MemberExpression"
            and key_of(node.callee.property, node.callee.computed) == "hasOwnProperty"
            and node.arguments
            and key_of(node.arguments[0], True) == "PhysicalResourceId"
        ):
            return _flow.has_incoming_id(self.rt)
        if (
            kind == "CallExpression"
            and node.callee.type == "MemberExpression"
            and key_of(node.callee.property, node.callee.computed) == "includes"
            and node.arguments
        ):
            receiver = self.expr(node.callee.object, env)
            argument = self.expr(node.arguments[0], env)
            if argument.has(_facts.REQUEST_TYPE):
                return _flow.compare_request_type(self.rt, argument, receiver)
        if kind == "Literal":
            return bool(node.value)
        value = self.expr(node, env)
        self.rec.use(value, line_of(node))
        return _flow.truth(value)

    def expr(self, node: Node, env: dict[str, Val]) -> Val:
        if node is None:
            return Val()
        handler = self._EXPRESSIONS.get(node.type)
        if handler is not None:
            return handler(self, node, env)
        return self._derived_expr(node, env)

    def _derived_expr(self, node: Node, env: dict[str, Val]) -> Val:
        """Any other expression: derived from all its sub-expressions."""
        return derived(self.expr(c, env) for c in children(node))

    def _literal_expr(self, node: Node, env: dict[str, Val]) -> Val:
        if node.value is None and node.regex is None:
            return lab(NONE)
        if isinstance(node.value, str):
            return lab(_facts.STR_PREFIX + node.value, _facts.LITERAL)
        return lab(_facts.LITERAL)

    def _identifier_expr(self, node: Node, env: dict[str, Val]) -> Val:
        return self.lookup(node.name, env)

    def _member_expr(self, node: Node, env: dict[str, Val]) -> Val:
        base = self.expr(node.object, env)
        if node.computed and key_of(node.property, True) is None:
            chosen = base.pick(self.expr(node.property, env), self.rt)
            if chosen is not None:  # handlers[event.RequestType]
                return chosen
        return self.member(base, key_of(node.property, node.computed))

    def _function_expr(self, node: Node, env: dict[str, Val]) -> Val:
        return self.function_value(node)

    def _logical_expr(self, node: Node, env: dict[str, Val]) -> Val:
        left, right = self.expr(node.left, env), self.expr(node.right, env)
        if node.operator == "&&":
            return left | right
        if self.rt != _facts.CREATE and left.labels == {_facts.INCOMING_ID}:
            return left
        return Val(left.labels - {NONE}, left.funcs) | right

    def _conditional_expr(self, node: Node, env: dict[str, Val]) -> Val:
        decided = self.cond(node.test, env)
        if decided is None:
            return self.expr(node.consequent, env) | self.expr(node.alternate, env)
        return self.expr(node.consequent if decided else node.alternate, env)

    def _binary_expr(self, node: Node, env: dict[str, Val]) -> Val:
        if node.operator in ("==", "===", "!=", "!=="):
            return _flow.truth_value(self.cond(node, env))
        return self._derived_expr(node, env)

    def _assignment_expr(self, node: Node, env: dict[str, Val]) -> Val:
        value = self.expr(node.right, env)
        if node.operator != "=":
            value = derived([self.expr(node.left, env), value])
        self.bind(node.left, value, env, line_of(node))
        return value

    def _array_expr(self, node: Node, env: dict[str, Val]) -> Val:
        return union(self.expr(e, env) for e in node.elements if e is not None)

    def _argument_expr(self, node: Node, env: dict[str, Val]) -> Val:
        return self.expr(node.argument, env)

    def _sequence_expr(self, node: Node, env: dict[str, Val]) -> Val:
        values = [self.expr(e, env) for e in node.expressions]
        return values[-1] if values else Val()

    def _unary_expr(self, node: Node, env: dict[str, Val]) -> Val:
        if node.operator == "!":
            return _flow.truth_value(self.cond(node, env))
        return self._derived_expr(node, env)

    def object_(self, node: Node, env: dict[str, Val]) -> Val:
        values: dict[str, Val] = {}
        lines: dict[str, int] = {}
        everything = []
        for prop in node.properties:
            if prop.type == "Property":
                value = self.expr(prop.value, env)
                key = key_of(prop.key, prop.computed)
                if key is not None:
                    values[key] = value
                    lines[key] = line_of(prop)
            else:
                value = self.expr(prop.argument, env)
            everything.append(value)
        if "PhysicalResourceId" in values:
            status = values.get("Status")
            line = lines["PhysicalResourceId"]
            self.sink("response_body", line, values["PhysicalResourceId"], status)
        table = frozenset((k, f) for k, v in values.items() for f in v.funcs)
        return Val(derived(everything).labels, union(everything).funcs, table)

    def new_expr(self, node: Node, env: dict[str, Val]) -> Val:
        callee = self.expr(node.callee, env)
        args = [self.expr(a, env) for a in node.arguments]
        for value in args:
            self.rec.use(value, line_of(node))
        self._callbacks(args, callee, env)
        name = node.callee.name if node.callee.type == "Identifier" else ""
        if name == "Date" and not node.arguments:
            return lab(_facts.TIME)
        if callee.has(_facts.AWS) or name.endswith("Client"):
            url = {_facts.RESPONSE_URL} if _facts.to_response_url(*args) else set()
            return Val(callee.labels | {_facts.AWS} | url)
        return derived([callee, *args])

    def _callbacks(self, args: list[Val], callee: Val, env: dict[str, Val]) -> None:
        """Run function arguments of calls we cannot follow (promise executors, SDK
        callbacks such as ``iam.updateAccountPasswordPolicy(params, done)``): they are
        assumed called, with an unknown error and result so both outcomes are explored."""
        if callee.funcs:
            return
        for value in args:
            for name in sorted(value.funcs):
                if name in self.functions:
                    self.call(name, [Val(), Val(), Val()], env)

    def call_expr(self, node: Node, env: dict[str, Val]) -> Val:
        func, line = node.callee, line_of(node)
        method = (
            key_of(func.property, func.computed) or "" if func.type == "MemberExpression" else ""
        )
        name = func.name if func.type == "Identifier" else method
        if name == "require" and node.arguments and node.arguments[0].type == "Literal":
            return module_value(str(node.arguments[0].value))
        callee = self.expr(func, env)
        args = [self.expr(a, env) for a in node.arguments]
        self.call_line = line
        if callee.has(_facts.REQUEST_TYPE) and method in ("toLowerCase", "toUpperCase", "trim"):
            return callee
        if callee.has(_facts.CFN_SEND) and self.stack:  # module level has no event to answer
            pid = args[4] if len(args) > 4 else lab(NONE)
            self.sink("cfn_response", line, pid, args[2] if len(args) > 2 else None)
            return Val()
        if name not in _flow.LOGGING_CALLS:
            for value in args:
                self.rec.use(value, line)
        if callee.funcs:
            return self._call_local(func, callee, args, env)
        self._callbacks(args, callee, env)
        return self._call_external(func, name, method, callee, args, line)

    def _call_local(self, func: Node, callee: Val, args: list[Val], env: dict[str, Val]) -> Val:
        """A call of the module's own functions: those named exactly, or those whose name
        fits the request type when the callee was picked from a table."""
        direct = callee.has(_facts.EXACT) or (
            func.type == "Identifier" and func.name in self.functions
        )
        results = [
            self.call(f, args, env)
            for f in sorted(callee.funcs)
            if f in self.functions and (direct or self.rt in _facts.name_hint(f))
        ]
        return union(results)

    def _call_external(
        self, func: Node, name: str, method: str, callee: Val, args: list[Val], line: int
    ) -> Val:
        """A call of code we cannot see: what it returns and the actions it records."""
        if name in _RANDOM_CALLS:
            return lab(_facts.RANDOM)
        if _reads_clock(func, name, method):
            return lab(_facts.TIME)
        if _facts.to_response_url(callee, *args):  # answering CloudFormation, not an action
            return (
                lab(_facts.AWS, _facts.RESPONSE_URL)
                if callee.has(_facts.AWS)
                else derived([callee, *args])
            )
        if callee.has(_facts.AWS):
            self._record_aws_call(method, args, line)
            return lab(_facts.AWS)
        if name and _facts.is_destructive_name(name):
            self.rec.action(line, f"{name}()")
        if name == "String" and len(args) == 1:
            return args[0]
        return derived([callee, *args])

    def _record_aws_call(self, method: str, args: list[Val], line: int) -> None:
        """An SDK call that changes something: v3 ``send`` of a non-read command, or a v2
        action method."""
        if method == "send":
            commands = {x for a in args for x in a.labels if x.startswith(_CMD_PREFIX)}
            if any(not c[len(_CMD_PREFIX) :].startswith(_READ_COMMANDS) for c in commands):
                self.rec.action(line, f"send({', '.join(sorted(commands))})")
        elif method and _facts.is_aws_action(method):
            self.rec.action(line, f"{method}()")

    # Expression kinds with their own abstract value; others derive from their children.
    _EXPRESSIONS: ClassVar[dict[str, Callable[..., Val]]] = {
        "Literal": _literal_expr,
        "Identifier": _identifier_expr,
        "MemberExpression": _member_expr,
        "CallExpression": call_expr,
        "NewExpression": new_expr,
        **dict.fromkeys(FUNCTIONS, _function_expr),
        "LogicalExpression": _logical_expr,
        "ConditionalExpression": _conditional_expr,
        "BinaryExpression": _binary_expr,
        "AssignmentExpression": _assignment_expr,
        "ObjectExpression": object_,
        "ArrayExpression": _array_expr,
        "AwaitExpression": _argument_expr,
        "SpreadElement": _argument_expr,
        "SequenceExpression": _sequence_expr,
        "UnaryExpression": _unary_expr,
    }

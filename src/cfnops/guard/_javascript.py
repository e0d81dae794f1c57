"""Node.js handlers: an abstract run of the esprima syntax tree, once per request type."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import ClassVar

from cfnops.guard._facts import (
    AWS,
    CFN_RESPONSE,
    CFN_SEND,
    CREATE,
    EXACT,
    INCOMING_ID,
    LITERAL,
    MOD_PREFIX,
    NONE,
    RANDOM,
    REQUEST_TYPE,
    REQUEST_TYPES,
    RESPONSE_URL,
    STR_PREFIX,
    TIME,
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
from cfnops.guard._js_local import local_js_functions
from cfnops.guard._js_syntax import (
    FUNCTIONS,
    Node,
    children,
    collect_declarations,
    key_of,
    line_of,
    module_value,
    parse_javascript,
)

_NEXT, _BREAK, _EXIT = 0, 1, 2
_MAX_DEPTH = 8
_CALL_BUDGET = 400  # inlined calls per request type: bounds the time on very large modules
_RANDOM_CALLS = {"randomUUID", "randomBytes", "random", "v1", "v4", "uuid", "uuidv4", "nanoid"}
_READ_COMMANDS = ("Get", "Describe", "List", "Head", "BatchGet", "Query", "Scan")
_CMD_PREFIX = "cmd:"


def analyze_javascript(
    source: str, entry: str, local: Mapping[str, str] | None = None
) -> HandlerFacts:
    """Facts about the Node.js handler exported as ``entry`` from ``source``.

    ``local`` maps relative module specifiers to their source (see
    :func:`cfnops.guard._js_local.local_js_modules`); calls into them are followed and
    reported at the handler's call site.
    """
    tree = parse_javascript(source)
    foreign = local_js_functions(dict(local or {}))
    runs = []
    found = False
    for request_type in REQUEST_TYPES:
        run = _Run(tree, Recorder(request_type), foreign)
        found = run.run(entry)
        runs.append(run.rec)
    return merge_runs("nodejs", found, False, runs)


def _reads_clock(func: Node, name: str, method: str) -> bool:
    """``Date.now()``, ``performance.now()`` or ``Date()``."""
    receiver = (
        func.object.name
        if func.type == "MemberExpression" and (func.object.type == "Identifier")
        else ""
    )
    return (receiver in ("Date", "performance") and method == "now") or name == "Date"


class _Run:
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
            if name not in self.called and self.rt in name_hint(name):
                self.call(name, [Val(), Val(), Val()])
        return False

    def call(self, name: str, args: list[Val], caller: dict[str, Val] | None = None) -> Val:
        """Run a function with these arguments; a nested function also sees the caller's
        variables (it is called where it is defined: a callback or a local helper)."""
        fn = self.functions[name]
        if name in self.stack or len(self.stack) >= _MAX_DEPTH or self.budget <= 0:
            return derived(args)
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
        return union(values)

    def sink(self, kind: str, line: int, value: Val, status: Val | None) -> None:
        """Record a sink; inside a project-local module, at the handler's call site."""
        self.rec.sink(kind, self.site if self.site is not None else line, value, status)

    def function_value(self, node: Node) -> Val:
        name = f"<function@{line_of(node)}:{node.loc.start.column}>"
        self.functions.setdefault(name, node)
        return Val(funcs=frozenset({name}))

    # -- statements ------------------------------------------------------------------

    def block(self, body: list[Node], env: dict[str, Val]) -> int:
        for node in body:
            status = self.stmt(node, env)
            if status != _NEXT:
                return status
        return _NEXT

    def stmt(self, node: Node, env: dict[str, Val]) -> int:
        handler = self._STATEMENTS.get(node.type)
        return handler(self, node, env) if handler is not None else _NEXT

    def _expression_stmt(self, node: Node, env: dict[str, Val]) -> int:
        self.expr(node.expression, env)
        return _NEXT

    def _variable_stmt(self, node: Node, env: dict[str, Val]) -> int:
        for decl in node.declarations:
            value = self.expr(decl.init, env) if decl.init is not None else lab(NONE)
            self.bind(decl.id, value, env, line_of(decl))
        return _NEXT

    def _function_stmt(self, node: Node, env: dict[str, Val]) -> int:
        if node.id is not None:
            env[node.id.name] = Val(funcs=frozenset({node.id.name}))
        return _NEXT

    def _block_stmt(self, node: Node, env: dict[str, Val]) -> int:
        return self.block(node.body, env)

    def _if_stmt(self, node: Node, env: dict[str, Val]) -> int:
        alternate = [node.alternate] if node.alternate is not None else []
        return self.branches(self.cond(node.test, env), [node.consequent], alternate, env)

    def _return_stmt(self, node: Node, env: dict[str, Val]) -> int:
        value = self.expr(node.argument, env) if node.argument is not None else lab(NONE)
        self.returns[-1].append(value)
        return _EXIT

    def _throw_stmt(self, node: Node, env: dict[str, Val]) -> int:
        self.expr(node.argument, env)
        return _EXIT

    def _break_stmt(self, node: Node, env: dict[str, Val]) -> int:
        return _BREAK

    def _for_stmt(self, node: Node, env: dict[str, Val]) -> int:
        self.loop(node, env)
        return _NEXT

    def _while_stmt(self, node: Node, env: dict[str, Val]) -> int:
        self.cond(node.test, env)
        self.loop(node, env)
        return _NEXT

    def _labeled_stmt(self, node: Node, env: dict[str, Val]) -> int:
        self.stmt(node.body, env)
        return _NEXT

    def _import_stmt(self, node: Node, env: dict[str, Val]) -> int:
        self.import_(node, env)
        return _NEXT

    def _export_stmt(self, node: Node, env: dict[str, Val]) -> int:
        if not node.declaration:
            return _NEXT
        declaration = node.declaration
        if declaration.type.endswith(("Statement", "Declaration")):
            return self.stmt(declaration, env)
        self.expr(declaration, env)
        return _NEXT

    def branches(
        self, decided: bool | None, body: list[Node], orelse: list[Node], env: dict[str, Val]
    ) -> int:
        if decided is True:
            return self.block(body, env)
        if decided is False:
            return self.block(orelse, env)
        left, right = dict(env), dict(env)
        statuses = (self.block(body, left), self.block(orelse, right))
        return self._join(env, list(zip((left, right), statuses, strict=True)))

    @staticmethod
    def _join(env: dict[str, Val], outcomes: list[tuple[dict[str, Val], int]]) -> int:
        going = [e for e, s in outcomes if s == _NEXT]
        merge_envs(env, going or [e for e, _ in outcomes])
        if going:
            return _NEXT
        return _BREAK if any(s == _BREAK for _, s in outcomes) else _EXIT

    def loop(self, node: Node, env: dict[str, Val]) -> None:
        inner = dict(env)
        if node.type in ("ForInStatement", "ForOfStatement"):
            value = self.expr(node.right, env)
            if node.left.type == "VariableDeclaration":
                for decl in node.left.declarations:
                    self.bind(decl.id, value, inner, line_of(node))
            else:
                self.bind(node.left, value, inner, line_of(node))
        elif node.type == "ForStatement" and node.init is not None:
            if node.init.type == "VariableDeclaration":
                self.stmt(node.init, inner)
            else:
                self.expr(node.init, inner)
        self.stmt(node.body, inner)
        merge_envs(env, [env, inner])

    def try_(self, node: Node, env: dict[str, Val]) -> int:
        outcomes = [(env, self.block(node.block.body, env))]
        if node.handler is not None:
            inner = dict(env)
            if node.handler.param is not None:
                self.bind(node.handler.param, lab(LITERAL), inner, line_of(node.handler))
            outcomes.append((inner, self.block(node.handler.body.body, inner)))
        status = self._join(env, outcomes)
        if node.finalizer is not None:
            final = self.block(node.finalizer.body, env)
            status = final if final != _NEXT else status
        return status

    def switch(self, node: Node, env: dict[str, Val]) -> int:
        subject = self.expr(node.discriminant, env)
        starts: list[int] = []
        default = None
        for index, case in enumerate(node.cases):
            if case.test is None:
                default = index
                continue
            decided = compare_request_type(self.rt, subject, self.expr(case.test, env))
            if decided is not False:
                starts.append(index)
            if decided is True:
                break
        else:
            if default is not None:
                starts.append(default)
            else:
                starts.append(len(node.cases))
        outcomes = []
        for start in starts:
            inner = dict(env)
            status = _NEXT
            for case in node.cases[start:]:
                status = self.block(case.consequent, inner)
                if status != _NEXT:
                    break
            outcomes.append((inner, _NEXT if status == _BREAK else status))
        return self._join(env, outcomes)

    def import_(self, node: Node, env: dict[str, Val]) -> None:
        module = module_value(str(node.source.value))
        for spec in node.specifiers:
            if spec.type == "ImportSpecifier":
                env[spec.local.name] = self.member(module, spec.imported.name)
            else:
                env[spec.local.name] = module

    def bind(self, target: Node, value: Val, env: dict[str, Val], line: int) -> None:
        binder = self._BINDERS.get(target.type)
        if binder is not None:
            binder(self, target, value, env, line)

    def _bind_name(self, target: Node, value: Val, env: dict[str, Val], line: int) -> None:
        env[target.name] = value

    def _bind_object(self, target: Node, value: Val, env: dict[str, Val], line: int) -> None:
        for prop in target.properties:
            if prop.type == "RestElement":
                self.bind(prop.argument, value, env, line)
                continue
            key = key_of(prop.key, prop.computed)
            self.bind(prop.value, self.member(value, key) if key else value, env, line)

    def _bind_array(self, target: Node, value: Val, env: dict[str, Val], line: int) -> None:
        for element in target.elements:
            if element is not None:
                self.bind(element, value, env, line)

    def _bind_rest(self, target: Node, value: Val, env: dict[str, Val], line: int) -> None:
        self.bind(target.argument, value, env, line)

    def _bind_default(self, target: Node, value: Val, env: dict[str, Val], line: int) -> None:
        if value.has(NONE) or not value.labels:
            value = Val(value.labels - {NONE}, value.funcs) | self.expr(target.right, env)
        self.bind(target.left, value, env, line)

    def _bind_member(self, target: Node, value: Val, env: dict[str, Val], line: int) -> None:
        if key_of(target.property, target.computed) == "PhysicalResourceId":
            self.sink("response_body", line, value, None)
        if target.object.type == "Identifier":
            name = target.object.name
            env[name] = self.lookup(name, env) | value

    # -- expressions -----------------------------------------------------------------

    def lookup(self, name: str, env: dict[str, Val]) -> Val:
        if name in env:
            return env[name]
        if name in self.globals:
            return self.globals[name]
        if name in self.functions:
            return Val(funcs=frozenset({name}))
        return lab(NONE) if name == "undefined" else Val()

    def member(self, base: Val, name: str | None) -> Val:
        if name is None:
            return Val(derived([base]).labels, base.funcs)
        known = field_value(name, self.rt)
        if known is not None:
            return known
        if base.has(CFN_RESPONSE):
            return lab(CFN_SEND) if name == "send" else lab(STR_PREFIX + name)
        if base.has(AWS):
            url = {RESPONSE_URL} & base.labels
            return (
                lab(AWS, _CMD_PREFIX + name, *url) if name.endswith("Command") else lab(AWS, *url)
            )
        mods = [x for x in base.labels if x.startswith(MOD_PREFIX)]
        local = {self.foreign_exports.get(f"{m[len(MOD_PREFIX) :]}#{name}") for m in mods}
        local.discard(None)
        if local:
            return Val(funcs=frozenset(str(q) for q in local))
        if mods:
            return union(lab(f"{m}.{name}") for m in mods)
        if base.has(REQUEST_TYPE) and name in ("toLowerCase", "toUpperCase", "trim"):
            return base
        return derived([base])

    def cond(self, node: Node, env: dict[str, Val]) -> bool | None:
        kind = node.type
        if kind == "LogicalExpression" and node.operator in ("&&", "||"):
            results = [self.cond(node.left, env), self.cond(node.right, env)]
            if node.operator == "&&":
                return False if False in results else (True if all(results) else None)
            return any_true(results)
        if kind == "UnaryExpression" and node.operator == "!":
            inner = self.cond(node.argument, env)
            return None if inner is None else not inner
        if kind == "BinaryExpression" and node.operator in ("==", "===", "!=", "!=="):
            left, right = self.expr(node.left, env), self.expr(node.right, env)
            self.rec.use(left, line_of(node))
            self.rec.use(right, line_of(node))
            decided = compare_request_type(self.rt, left, right)
            if decided is None:
                return None
            return decided if node.operator in ("==", "===") else not decided
        if (
            kind == "BinaryExpression"
            and node.operator == "in"
            and key_of(node.left, True) == "PhysicalResourceId"
        ):
            return has_incoming_id(self.rt)
        if (
            kind == "CallExpression"
            and node.callee.type == "MemberExpression"
            and key_of(node.callee.property, node.callee.computed) == "hasOwnProperty"
            and node.arguments
            and key_of(node.arguments[0], True) == "PhysicalResourceId"
        ):
            return has_incoming_id(self.rt)
        if (
            kind == "CallExpression"
            and node.callee.type == "MemberExpression"
            and key_of(node.callee.property, node.callee.computed) == "includes"
            and node.arguments
        ):
            receiver = self.expr(node.callee.object, env)
            argument = self.expr(node.arguments[0], env)
            if argument.has(REQUEST_TYPE):
                return compare_request_type(self.rt, argument, receiver)
        if kind == "Literal":
            return bool(node.value)
        value = self.expr(node, env)
        self.rec.use(value, line_of(node))
        return truth(value)

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
            return lab(STR_PREFIX + node.value, LITERAL)
        return lab(LITERAL)

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
        if self.rt != CREATE and left.labels == {INCOMING_ID}:
            return left
        return Val(left.labels - {NONE}, left.funcs) | right

    def _conditional_expr(self, node: Node, env: dict[str, Val]) -> Val:
        decided = self.cond(node.test, env)
        if decided is None:
            return self.expr(node.consequent, env) | self.expr(node.alternate, env)
        return self.expr(node.consequent if decided else node.alternate, env)

    def _binary_expr(self, node: Node, env: dict[str, Val]) -> Val:
        if node.operator in ("==", "===", "!=", "!=="):
            return truth_value(self.cond(node, env))
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
            return truth_value(self.cond(node, env))
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
            return lab(TIME)
        if callee.has(AWS) or name.endswith("Client"):
            url = {RESPONSE_URL} if to_response_url(*args) else set()
            return Val(callee.labels | {AWS} | url)
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
        if callee.has(REQUEST_TYPE) and method in ("toLowerCase", "toUpperCase", "trim"):
            return callee
        if callee.has(CFN_SEND) and self.stack:  # module level has no event to answer
            pid = args[4] if len(args) > 4 else lab(NONE)
            self.sink("cfn_response", line, pid, args[2] if len(args) > 2 else None)
            return Val()
        if name not in LOGGING_CALLS:
            for value in args:
                self.rec.use(value, line)
        if callee.funcs:
            return self._call_local(func, callee, args, env)
        self._callbacks(args, callee, env)
        return self._call_external(func, name, method, callee, args, line)

    def _call_local(self, func: Node, callee: Val, args: list[Val], env: dict[str, Val]) -> Val:
        """A call of the module's own functions: those named exactly, or those whose name
        fits the request type when the callee was picked from a table."""
        direct = callee.has(EXACT) or (func.type == "Identifier" and func.name in self.functions)
        results = [
            self.call(f, args, env)
            for f in sorted(callee.funcs)
            if f in self.functions and (direct or self.rt in name_hint(f))
        ]
        return union(results)

    def _call_external(
        self, func: Node, name: str, method: str, callee: Val, args: list[Val], line: int
    ) -> Val:
        """A call of code we cannot see: what it returns and the actions it records."""
        if name in _RANDOM_CALLS:
            return lab(RANDOM)
        if _reads_clock(func, name, method):
            return lab(TIME)
        if to_response_url(callee, *args):  # answering CloudFormation, not an action
            return lab(AWS, RESPONSE_URL) if callee.has(AWS) else derived([callee, *args])
        if callee.has(AWS):
            self._record_aws_call(method, args, line)
            return lab(AWS)
        if name and is_destructive_name(name):
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
        elif method and is_aws_action(method):
            self.rec.action(line, f"{method}()")

    # Each statement kind's handler returns _NEXT, _BREAK or _EXIT; other kinds fall through.
    _STATEMENTS: ClassVar[dict[str, Callable[..., int]]] = {
        "ExpressionStatement": _expression_stmt,
        "VariableDeclaration": _variable_stmt,
        "FunctionDeclaration": _function_stmt,
        "BlockStatement": _block_stmt,
        "StaticBlock": _block_stmt,
        "IfStatement": _if_stmt,
        "ReturnStatement": _return_stmt,
        "ThrowStatement": _throw_stmt,
        "BreakStatement": _break_stmt,
        "ContinueStatement": _break_stmt,
        "TryStatement": try_,
        "SwitchStatement": switch,
        "ForStatement": _for_stmt,
        "ForInStatement": _for_stmt,
        "ForOfStatement": _for_stmt,
        "WhileStatement": _while_stmt,
        "DoWhileStatement": _while_stmt,
        "LabeledStatement": _labeled_stmt,
        "ImportDeclaration": _import_stmt,
        "ExportNamedDeclaration": _export_stmt,
        "ExportDefaultDeclaration": _export_stmt,
    }

    # Assignment targets that bind names; any other target binds nothing.
    _BINDERS: ClassVar[dict[str, Callable[..., None]]] = {
        "Identifier": _bind_name,
        "ObjectPattern": _bind_object,
        "ArrayPattern": _bind_array,
        "RestElement": _bind_rest,
        "AssignmentPattern": _bind_default,
        "MemberExpression": _bind_member,
    }

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

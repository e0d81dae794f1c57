"""Node.js handlers: the statement half of the abstract run (:mod:`cfnops.guard._javascript`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from cfnops.guard._facts import (
    LITERAL,
    NONE,
    Val,
    lab,
)
from cfnops.guard._flow import (
    compare_request_type,
    merge_envs,
)
from cfnops.guard._js_syntax import (
    Node,
    key_of,
    line_of,
    module_value,
)

_NEXT, _BREAK, _EXIT = 0, 1, 2


class _JsStatements:
    """Statement handlers of the Node.js run: each returns ``_NEXT``, ``_BREAK`` or ``_EXIT``.

    The expression half (:class:`cfnops.guard._js_expressions._JsExpressions`) and the run
    (:class:`cfnops.guard._javascript._Run`) supply what is declared here and not defined.
    """

    rt: str
    returns: list[list[Val]]

    def expr(self, node: Node, env: dict[str, Val]) -> Val:
        raise NotImplementedError

    def cond(self, node: Node, env: dict[str, Val]) -> bool | None:
        raise NotImplementedError

    def lookup(self, name: str, env: dict[str, Val]) -> Val:
        raise NotImplementedError

    def member(self, base: Val, name: str | None) -> Val:
        raise NotImplementedError

    def sink(self, kind: str, line: int, value: Val, status: Val | None) -> None:
        raise NotImplementedError

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

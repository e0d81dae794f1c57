"""Python handlers: the statement half of the abstract run (see :mod:`cfnops.guard._python`)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

from cfnops.guard._facts import (
    CRHELPER,
    INSTANCE,
    LITERAL,
    NONE,
    STR_PREFIX,
    Val,
    derived,
    lab,
)
from cfnops.guard._flow import any_true, compare_request_type, merge_envs
from cfnops.guard._py_values import const_str, module_val

_Func = ast.FunctionDef | ast.AsyncFunctionDef
_CRHELPER_EVENTS = {"create": "Create", "update": "Update", "delete": "Delete"}


@dataclass
class _Frame:
    returns: list[tuple[int, Val]] = field(default_factory=list)


class _PyStatements:
    """Statement handlers of the Python run: each returns whether control can fall through.

    The expression half (:class:`cfnops.guard._py_expressions._PyExpressions`) and the run
    (:class:`cfnops.guard._python._Run`) supply what is declared here and not defined.
    """

    rt: str
    foreign: dict[str, _Func]
    frames: list[_Frame]
    crhelper: dict[str, set[str]]
    attrs: dict[str, Val]

    def expr(self, node: ast.expr | None, env: dict[str, Val]) -> Val:
        raise NotImplementedError

    def cond(self, node: ast.expr, env: dict[str, Val]) -> bool | None:
        raise NotImplementedError

    def lookup(self, name: str, env: dict[str, Val]) -> Val:
        raise NotImplementedError

    def sink(self, kind: str, line: int, value: Val, status: Val | None) -> None:
        raise NotImplementedError

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

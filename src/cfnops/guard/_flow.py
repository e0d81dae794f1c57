"""Helpers shared by the Python and JavaScript interpreters."""

from __future__ import annotations

from collections.abc import Mapping

from cfnops.guard._facts import (
    CREATE,
    FALSE,
    INCOMING_ID,
    LITERAL,
    NONE,
    REQUEST_TYPE,
    STR_PREFIX,
    TRUE,
    Val,
    lab,
)


class HandlerSyntaxError(ValueError):
    """The handler source does not parse."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


# Calls that only log: passing the physical id to them is not "looking at" it.
LOGGING_CALLS = frozenset(
    {"print", "debug", "info", "warning", "warn", "error", "exception", "critical", "log"}
)


def compare_request_type(request_type: str, left: Val, right: Val) -> bool | None:
    """Whether ``left == right`` (or ``left in right``) holds for this request type.

    None when neither side is the request's RequestType or the other side is not a
    known string constant. Comparison ignores case (handlers often call ``.lower()``).
    """
    for subject, other in ((left, right), (right, left)):
        if subject.has(REQUEST_TYPE):
            strings = {s.lower() for s in other.strings()}
            if strings:
                return request_type.lower() in strings
    # Two known string constants (e.g. a helper called with "CREATE" or "DELETE").
    if _constant(left) and _constant(right) and len(left.strings()) == 1:
        return next(iter(left.strings())) in right.strings()
    return None


def _constant(value: Val) -> bool:
    return bool(value.strings()) and all(
        x == LITERAL or x.startswith(STR_PREFIX) for x in value.labels
    )


def merge_envs(env: dict[str, Val], branches: list[dict[str, Val]]) -> None:
    """Replace ``env`` with the union of the branch environments (in place)."""
    merged: dict[str, Val] = {}
    for branch in branches:
        for name, value in branch.items():
            merged[name] = merged[name] | value if name in merged else value
    env.clear()
    env.update(merged)


def any_true(results: list[bool | None]) -> bool | None:
    """Three-valued ``or``: True if any is True, False if all are False, else unknown."""
    if True in results:
        return True
    return False if all(r is False for r in results) else None


def truth_value(decided: bool | None) -> Val:
    """The value of a comparison, remembering its outcome when it is known."""
    if decided is None:
        return lab(LITERAL)
    return lab(LITERAL, TRUE if decided else FALSE)


def truth(value: Val) -> bool | None:
    """Whether a value is true, when that is known (None otherwise).

    Known: stored outcomes of decided comparisons, the incoming PhysicalResourceId
    (only present, and non-empty, on Update and Delete requests) and None/undefined.
    """
    if value.has(TRUE) != value.has(FALSE):
        return value.has(TRUE)
    if value.labels == {INCOMING_ID}:
        return True
    if value.labels == {NONE}:
        return False
    return None


def has_incoming_id(request_type: str) -> bool:
    """``"PhysicalResourceId" in event``: every request but Create carries one."""
    return request_type != CREATE


def bound_value(
    name: str, env: dict[str, Val], module: dict[str, Val], functions: Mapping[str, object]
) -> Val | None:
    """What ``name`` is bound to, innermost first: the local, the module's global, or a
    reference to a function of the module; ``None`` when none has it (each language then
    has its own fallback)."""
    if name in env:
        return env[name]
    if name in module:
        return module[name]
    if name in functions:
        return Val(funcs=frozenset({name}))
    return None

"""The guard's rules: one module per rule, each with ``RULE`` metadata and ``check``."""

from __future__ import annotations

from collections.abc import Callable

from cfnops.guard._facts import HandlerFacts
from cfnops.guard._model import Finding, RuleInfo
from cfnops.guard.rules import crhelper_update, default_id, delete_ignores_id, volatile_id
from cfnops.guard.rules._context import RuleContext

Check = Callable[[HandlerFacts, RuleContext], list[Finding]]

ALL_RULES: tuple[tuple[RuleInfo, Check], ...] = tuple(
    (module.RULE, module.check)
    for module in (default_id, volatile_id, crhelper_update, delete_ignores_id)
)
RULES: tuple[RuleInfo, ...] = tuple(rule for rule, _ in ALL_RULES)

__all__ = ["ALL_RULES", "RULES", "RuleContext"]

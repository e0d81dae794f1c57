"""Make a stack update fail and roll back, with per-resource status reasons.

moto applies every ``UpdateStack`` it can. To exercise what callers do when an
update fails, a rule makes the next update of a stack fail on one resource, the
way CloudFormation reports it (User Guide, "Stack status codes" and
"Troubleshooting: update rollback"): stack ``UPDATE_IN_PROGRESS``; resource
``UPDATE_IN_PROGRESS`` then ``UPDATE_FAILED`` with the rule's reason; stack
``UPDATE_ROLLBACK_IN_PROGRESS`` ("The following resource(s) failed to update:
[X]."); resource ``UPDATE_COMPLETE``; stack
``UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS`` then ``UPDATE_ROLLBACK_COMPLETE``.
Nothing is changed: the stack keeps its previous template, parameters and
resources (a complete rollback). The rollback settles after the
``change_set_execute`` delay.

```python
from cfnops.sandbox.extensions import cfn_update_failures
cfn_update_failures.fail_next_update("web", "LaunchTemplate", "AMI ami-123 is not available")
```

Control route ``POST /_cfnops/cfn-update-failures``: ``{"add": [{"stack": .., "resource": ..,
"reason": .., "count": 1}], "clear": true}`` answers the remaining rules.
"""

from __future__ import annotations

import functools
import threading
from dataclasses import asdict, dataclass
from typing import Any

from cfnops.sandbox._control import register_control
from cfnops.sandbox._state import current_state
from cfnops.sandbox.extensions._cfn_apply import add_resource_event
from cfnops.sandbox.extensions._moto import moto_module

__all__ = ["FailureRule", "clear", "fail_next_update", "install", "rules"]

_lock = threading.Lock()
_rules: list[FailureRule] = []
_installed = False


@dataclass
class FailureRule:
    stack: str
    resource: str
    reason: str
    count: int = 1


def fail_next_update(stack: str, resource: str, reason: str, count: int = 1) -> FailureRule:
    """The next ``count`` updates of ``stack`` fail on ``resource`` with ``reason``."""
    rule = FailureRule(stack, resource, reason, count)
    with _lock:
        _rules.append(rule)
    return rule


def clear() -> None:
    with _lock:
        _rules.clear()


def rules() -> list[FailureRule]:
    with _lock:
        return [FailureRule(**asdict(r)) for r in _rules]


def _take(stack: Any) -> FailureRule | None:
    with _lock:
        for rule in _rules:
            if rule.stack in (stack.name, stack.stack_id) and rule.count > 0:
                rule.count -= 1
                if rule.count == 0:
                    _rules.remove(rule)
                return rule
    return None


def _event(stack: Any, logical: str, kind: str, status: str, reason: str | None) -> None:
    physical = stack.stack_id
    if logical != stack.name:
        for res in stack.stack_resources:
            if getattr(res, "logical_resource_id", None) == logical:
                physical = getattr(res, "physical_resource_id", "") or ""
    add_resource_event(stack, logical, physical, kind, status, reason)


def _resource_type(stack: Any, logical: str) -> str:
    resources = (stack.template_dict or {}).get("Resources", {})
    return str((resources.get(logical) or {}).get("Type", "AWS::CloudFormation::CustomResource"))


def _fail(stack: Any, rule: FailureRule) -> Any:
    stack_type = "AWS::CloudFormation::Stack"
    kind = _resource_type(stack, rule.resource)
    stack.status = "UPDATE_IN_PROGRESS"
    _event(stack, stack.name, stack_type, "UPDATE_IN_PROGRESS", "User Initiated")
    _event(stack, rule.resource, kind, "UPDATE_IN_PROGRESS", None)

    def settle() -> None:
        _event(stack, rule.resource, kind, "UPDATE_FAILED", rule.reason)
        _event(
            stack,
            stack.name,
            stack_type,
            "UPDATE_ROLLBACK_IN_PROGRESS",
            f"The following resource(s) failed to update: [{rule.resource}].",
        )
        _event(stack, rule.resource, kind, "UPDATE_COMPLETE", None)
        _event(stack, stack.name, stack_type, "UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS", None)
        _event(stack, stack.name, stack_type, "UPDATE_ROLLBACK_COMPLETE", None)
        stack.status = "UPDATE_ROLLBACK_COMPLETE"

    current_state().schedule(current_state().delay("change_set_execute"), settle)
    return stack


def _wrap_update_stack(original: Any) -> Any:
    @functools.wraps(original)
    def update_stack(self: Any, name: str, *args: Any, **kwargs: Any) -> Any:
        stack = self.get_stack(name)
        rule = _take(stack)
        if rule is None:
            return original(self, name, *args, **kwargs)
        return _fail(stack, rule)

    return update_stack


def _control(request: dict[str, Any]) -> dict[str, Any]:
    if request.get("clear"):
        clear()
    for item in request.get("add", []) or []:
        count = int(item.get("count", 1))
        fail_next_update(str(item["stack"]), str(item["resource"]), str(item["reason"]), count)
    return {"rules": [asdict(r) for r in rules()]}


def install() -> None:
    """Wrap moto's UpdateStack (after :mod:`cfn_fixes`; idempotent)."""
    global _installed
    with _lock:
        if _installed:
            return
        backend = moto_module("moto.cloudformation.models").CloudFormationBackend
        backend.update_stack = _wrap_update_stack(backend.update_stack)
        _installed = True
    register_control("cfn-update-failures", _control)

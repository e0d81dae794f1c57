"""Phantom changes: make a drift-aware change set propose changes that are not drift.

AWS's trackers show REVERT_DRIFT change sets carrying changes detection never
found (cloudformation-coverage-roadmap #2559: ``{{changeSet:KNOWN_AFTER_APPLY}}``
values and a ``Replacement: True`` on an in-sync stack; #2505: a ``Ref`` resolved
differently only in REVERT_DRIFT mode; #2546: ``UNSUPPORTED`` resource types).
These switches reproduce each one so cfnops's gate can be tested against it.
They rewrite the ``DescribeChangeSet`` answer (the point where the change set
is described), never the change set itself, so execution is unaffected::

    curl -XPOST $AWS_ENDPOINT_URL/_cfnops/phantoms \\
      -d '{"add": [{"kind": "undrifted_path", "stack": "web-*"}]}'

Kinds (``stack`` is a glob on the stack name; ``logical_id`` picks the change,
default the first ``Modify``):

- ``known_after_apply``: the change's detail values become
  ``{{changeSet:KNOWN_AFTER_APPLY}}``;
- ``undrifted_path``: the change gains a detail at ``path`` (default
  ``/Properties/Description``) that did not drift (no ``Drift`` object);
- ``in_sync_change``: a ``Modify`` of ``logical_id`` (a resource of the stack the
  change set leaves alone) with ``ResourceDriftStatus`` ``IN_SYNC``;
- ``replacement``: ``Replacement`` ``True`` / ``RequiresRecreation`` ``Always`` /
  ``PolicyAction`` ``ReplaceAndDelete`` on the change;
- ``drift_unsupported`` / ``drift_unknown``: ``ResourceDriftStatus`` of the change;
- ``sync_with_actual``: a ``SyncWithActual`` change of ``logical_id`` next to the
  real changes;
- ``ignored_attribute``: ``ResourceDriftIgnoredAttributes`` names the change's
  first path (``WRITE_ONLY_PROPERTY``).

Shapes follow botocore's model of ``ResourceChange`` / ``ResourceTargetDefinition``.
"""

from __future__ import annotations

import copy
import fnmatch
import functools
from dataclasses import asdict, dataclass
from typing import Any

from cfnops.sandbox._control import register_control
from cfnops.sandbox._state import current_state
from cfnops.sandbox.extensions._moto import moto_module

__all__ = ["KINDS", "Phantom", "clear", "inject", "install", "phantoms"]

KINDS = (
    "known_after_apply",
    "undrifted_path",
    "in_sync_change",
    "replacement",
    "drift_unsupported",
    "drift_unknown",
    "sync_with_actual",
    "ignored_attribute",
)
KNOWN_AFTER_APPLY = "{{changeSet:KNOWN_AFTER_APPLY}}"
_KEY = "phantoms"
_NEEDS_LOGICAL_ID = ("in_sync_change", "sync_with_actual")


@dataclass(frozen=True)
class Phantom:
    kind: str
    stack: str = "*"
    logical_id: str | None = None
    path: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"phantom kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        if self.kind in _NEEDS_LOGICAL_ID and not self.logical_id:
            raise ValueError(f"phantom {self.kind} needs logical_id (a resource of the stack)")


def _store() -> list[Phantom]:
    found: list[Phantom] = current_state().faults.setdefault(_KEY, [])
    return found


def inject(
    kind: str, stack: str = "*", logical_id: str | None = None, path: str | None = None
) -> Phantom:
    """Make matching REVERT_DRIFT change sets carry the phantom ``kind`` (see module doc)."""
    phantom = Phantom(kind, stack, logical_id, path)
    with current_state().lock:
        _store().append(phantom)
    return phantom


def clear() -> None:
    with current_state().lock:
        current_state().faults.pop(_KEY, None)


def phantoms() -> list[Phantom]:
    with current_state().lock:
        return list(_store())


# -- rewriting a described change set ------------------------------------------------


def _target(change: dict[str, Any], logical_id: str | None) -> dict[str, Any] | None:
    for c in change_list(change):
        if logical_id in (None, c.get("LogicalResourceId")) and (
            logical_id is not None or c.get("Action") == "Modify"
        ):
            return c
    return None


def change_list(described: dict[str, Any]) -> list[dict[str, Any]]:
    return [c.get("ResourceChange", c) for c in described.get("Changes", [])]


def _resource_type(stack: Any, logical_id: str) -> str:
    resources = (getattr(stack, "template_dict", None) or {}).get("Resources", {})
    return str((resources.get(logical_id) or {}).get("Type", "AWS::SSM::Parameter"))


def _extra_change(stack: Any, logical_id: str, action: str, status: str) -> dict[str, Any]:
    path = "/Properties/Description"
    detail = {
        "Target": {
            "Attribute": "Properties",
            "Name": "Description",
            "Path": path,
            "RequiresRecreation": "Never",
            "BeforeValueFrom": "ACTUAL_STATE",
            "AfterValueFrom": "TEMPLATE",
            "AttributeChangeType": "SyncWithActual" if action == "SyncWithActual" else "Modify",
        },
        "Evaluation": "Static",
        "ChangeSource": "DirectModification",
    }
    return {
        "Action": action,
        "LogicalResourceId": logical_id,
        "ResourceType": _resource_type(stack, logical_id),
        "Replacement": "False",
        "Scope": ["Properties"],
        "ResourceDriftStatus": status,
        "Details": [detail],
    }


def _apply(phantom: Phantom, out: dict[str, Any], stack: Any) -> None:
    kind = phantom.kind
    if kind == "in_sync_change":
        out["Changes"].append(_extra_change(stack, str(phantom.logical_id), "Modify", "IN_SYNC"))
        return
    if kind == "sync_with_actual":
        extra = _extra_change(stack, str(phantom.logical_id), "SyncWithActual", "MODIFIED")
        out["Changes"].append(extra)
        return
    change = _target(out, phantom.logical_id)
    if change is None:
        return
    details = change.setdefault("Details", [])
    if kind == "known_after_apply":
        for d in details:
            d["Target"]["AfterValue"] = KNOWN_AFTER_APPLY
        change["AfterContext"] = '{"Properties": "' + KNOWN_AFTER_APPLY + '"}'
    elif kind == "undrifted_path":
        path = phantom.path or "/Properties/Description"
        name = path.split("/")[2] if path.startswith("/Properties/") else path.strip("/")
        details.append(
            {
                "Target": {
                    "Attribute": "Properties",
                    "Name": name,
                    "Path": path,
                    "RequiresRecreation": "Never",
                    "BeforeValue": "resolved-in-revert-mode",
                    "AfterValue": "resolved-from-template",
                    "BeforeValueFrom": "ACTUAL_STATE",
                    "AfterValueFrom": "TEMPLATE",
                    "AttributeChangeType": "Modify",
                },
                "Evaluation": "Static",
                "ChangeSource": "DirectModification",
            }
        )
    elif kind == "replacement":
        change["Replacement"] = "True"
        change["PolicyAction"] = "ReplaceAndDelete"
        for d in details:
            d["Target"]["RequiresRecreation"] = "Always"
    elif kind in ("drift_unsupported", "drift_unknown"):
        change["ResourceDriftStatus"] = kind.split("_", 1)[1].upper()
    elif kind == "ignored_attribute" and details:
        path = phantom.path or details[0]["Target"].get("Path", "/Properties")
        change["ResourceDriftIgnoredAttributes"] = [{"Path": path, "Reason": "WRITE_ONLY_PROPERTY"}]


def rewrite(described: dict[str, Any], stack: Any) -> dict[str, Any]:
    """The described change set with every matching phantom applied (a copy)."""
    if described.get("DeploymentMode") != "REVERT_DRIFT":
        return described
    if described.get("Status") != "CREATE_COMPLETE":
        return described
    with current_state().lock:
        active = [
            p for p in _store() if fnmatch.fnmatchcase(str(described.get("StackName", "")), p.stack)
        ]
    if not active:
        return described
    out = copy.deepcopy(described)
    out["Changes"] = change_list(out)
    for phantom in active:
        _apply(phantom, out, stack)
    return out


def _wrap_describe(original: Any) -> Any:
    @functools.wraps(original)
    def describe_change_set(self: Any) -> Any:
        ActionResult = moto_module("moto.core.responses").ActionResult
        answer = original(self)
        result = getattr(answer, "result", None)
        if not isinstance(answer, ActionResult) or not isinstance(result, dict):
            return answer
        if "Changes" not in result or not current_state().faults.get(_KEY):
            return answer
        try:
            stack = self.cloudformation_backend.get_stack(str(result.get("StackId")))
        except Exception:
            stack = None
        return ActionResult(rewrite(result, stack))

    return describe_change_set


def _control(request: dict[str, Any]) -> dict[str, Any]:
    """``{"clear": true, "add": [{"kind": ..., "stack": ..., "logical_id": ..., "path": ...}]}``."""
    if request.get("clear"):
        clear()
    for spec in request.get("add", []):
        if not isinstance(spec, dict):
            raise ValueError("each entry of 'add' must be an object")
        try:
            inject(**spec)
        except TypeError as exc:
            raise ValueError(f"bad phantom {spec}: {exc}") from exc
    return {"phantoms": [asdict(p) for p in phantoms()]}


_installed = False


def install() -> None:
    """Wrap DescribeChangeSet (after :mod:`cfn_changesets`) and register the control route."""
    global _installed
    register_control("phantoms", _control)
    if _installed:
        return
    cls = moto_module("moto.cloudformation.responses").CloudFormationResponse
    cls.describe_change_set = _wrap_describe(cls.describe_change_set)
    _installed = True

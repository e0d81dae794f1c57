"""Compare expected (template) and actual resource properties the way drift detection does.

Rules from the AWS CloudFormation User Guide, "Detect unmanaged configuration
changes to stacks and resources with drift detection"
(https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/using-cfn-stack-drift.html)
and the API reference for ``PropertyDifference``
(https://docs.aws.amazon.com/AWSCloudFormation/latest/APIReference/API_PropertyDifference.html):

- only properties explicitly set in the template are compared;
- ``PropertyPath`` is a JSON pointer into the resource's properties;
- ``NOT_EQUAL``: the value differs; ``ADD``: a value was added to an array
  property; ``REMOVE``: the property (or an array item) was removed;
- arrays whose order does not matter to the service (security group rules,
  managed policy ARNs, tags, subnets) are compared as sets;
- tags given as a map (``AWS::SSM::Parameter``'s ``Tags`` is a JSON object)
  compare key by key, an added key included (``aws:`` keys are AWS's own).

Scalars compare by their canonical text (``20`` equals ``"20"``, ``true``
equals ``"true"``): templates often quote numbers the service returns as numbers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = [
    "UNORDERED",
    "PropertyDifference",
    "canonical",
    "diff_properties",
    "json_text",
]

# Top-level array properties compared as sets, per resource type (plus Tags everywhere).
UNORDERED: dict[str, frozenset[str]] = {
    "AWS::EC2::SecurityGroup": frozenset({"SecurityGroupIngress", "SecurityGroupEgress"}),
    "AWS::IAM::Role": frozenset({"ManagedPolicyArns", "Policies"}),
    "AWS::AutoScaling::AutoScalingGroup": frozenset(
        {"VPCZoneIdentifier", "AvailabilityZones", "TargetGroupARNs", "LoadBalancerNames"}
    ),
    "AWS::SNS::Topic": frozenset({"Subscription"}),
}

_PROTOCOLS = {"6": "tcp", "17": "udp", "1": "icmp", "58": "icmpv6", "all": "-1"}


@dataclass(frozen=True)
class PropertyDifference:
    """One entry of ``StackResourceDrift.PropertyDifferences``."""

    path: str
    expected: Any
    actual: Any
    kind: str  # ADD | REMOVE | NOT_EQUAL

    def to_api(self) -> dict[str, str]:
        return {
            "PropertyPath": self.path,
            "ExpectedValue": json_text(self.expected),
            "ActualValue": json_text(self.actual),
            "DifferenceType": self.kind,
        }


def json_text(value: Any) -> str:
    """How AWS renders a value in ``ExpectedValue`` / ``ActualValue``."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return canonical(value)
    return json.dumps(value, separators=(",", ":"), sort_keys=True, default=str)


def canonical(value: Any) -> str:
    """Canonical text of a scalar (numbers and booleans as the service prints them)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _pointer(path: str, key: str | int) -> str:
    text = str(key).replace("~", "~0").replace("/", "~1")
    return f"{path}/{text}"


def _norm_scalar(key: str, value: Any) -> str:
    text = canonical(value)
    if key == "IpProtocol":
        return _PROTOCOLS.get(text.lower(), text.lower())
    return text


def _covers(expected: Any, actual: Any, key: str = "") -> bool:
    """True when ``actual`` has every value ``expected`` sets (extra actual keys ignored)."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            k in actual and _covers(v, actual[k], k) for k, v in expected.items()
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(expected) == len(actual)
            and all(_covers(e, a, key) for e, a in zip(expected, actual, strict=True))
        )
    if isinstance(actual, dict | list):
        return False
    return _norm_scalar(key, expected) == _norm_scalar(key, actual)


def _diff_set(
    path: str, expected: list[Any], actual: list[Any], out: list[PropertyDifference]
) -> None:
    unmatched = list(range(len(actual)))
    missing: list[int] = []
    for i, item in enumerate(expected):
        hit = next((j for j in unmatched if _covers(item, actual[j])), None)
        if hit is None:
            missing.append(i)
        else:
            unmatched.remove(hit)
    for i in missing:
        out.append(PropertyDifference(_pointer(path, i), expected[i], None, "REMOVE"))
    for j in unmatched:
        out.append(PropertyDifference(_pointer(path, j), None, actual[j], "ADD"))


def _diff(
    path: str, key: str, expected: Any, actual: Any, unordered: bool, out: list[PropertyDifference]
) -> None:
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            out.append(PropertyDifference(path, expected, actual, "NOT_EQUAL"))
            return
        for k, v in expected.items():
            sub = _pointer(path, k)
            if k not in actual or actual[k] is None:
                out.append(PropertyDifference(sub, v, None, "REMOVE"))
            else:
                _diff(sub, k, v, actual[k], False, out)
    elif isinstance(expected, list):
        if not isinstance(actual, list):
            out.append(PropertyDifference(path, expected, actual, "NOT_EQUAL"))
        elif unordered:
            _diff_set(path, expected, actual, out)
        else:
            for i, (e, a) in enumerate(zip(expected, actual, strict=False)):
                _diff(_pointer(path, i), key, e, a, False, out)
            for i in range(len(actual), len(expected)):
                out.append(PropertyDifference(_pointer(path, i), expected[i], None, "REMOVE"))
            for j in range(len(expected), len(actual)):
                out.append(PropertyDifference(_pointer(path, j), None, actual[j], "ADD"))
    elif isinstance(actual, dict | list) or _norm_scalar(key, expected) != _norm_scalar(
        key, actual
    ):
        out.append(PropertyDifference(path, expected, actual, "NOT_EQUAL"))


def _diff_tag_map(
    expected: dict[str, Any], actual: dict[str, Any], out: list[PropertyDifference]
) -> None:
    """Map-form ``Tags`` (``AWS::SSM::Parameter``): every key counts, added ones too."""
    for k, v in expected.items():
        sub = _pointer("/Tags", k)
        if k not in actual:
            out.append(PropertyDifference(sub, v, None, "REMOVE"))
        elif canonical(v) != canonical(actual[k]):
            out.append(PropertyDifference(sub, v, actual[k], "NOT_EQUAL"))
    for k in actual:
        if k not in expected and not str(k).startswith("aws:"):
            out.append(PropertyDifference(_pointer("/Tags", k), None, actual[k], "ADD"))


def diff_properties(
    resource_type: str, expected: dict[str, Any], actual: dict[str, Any]
) -> list[PropertyDifference]:
    """Differences for the properties ``expected`` sets (the template's), in template order."""
    unordered = UNORDERED.get(resource_type, frozenset()) | {"Tags"}
    out: list[PropertyDifference] = []
    for key, value in expected.items():
        path = _pointer("", key)
        if key not in actual or actual[key] is None:
            out.append(PropertyDifference(path, value, None, "REMOVE"))
            continue
        exp, act = value, actual[key]
        if key.endswith("PolicyDocument") and isinstance(exp, str):
            exp = json.loads(exp)
        if key == "Tags" and isinstance(exp, dict) and isinstance(act, dict):
            _diff_tag_map(exp, act, out)
            continue
        _diff(path, key, exp, act, key in unordered, out)
    return out

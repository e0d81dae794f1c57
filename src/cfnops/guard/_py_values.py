"""Python handler values: what an imported name is, volatile calls, constants."""

from __future__ import annotations

import ast

from cfnops.guard._facts import (
    AWS,
    CFN_RESPONSE,
    CFN_SEND,
    CRHELPER_CLASS,
    MOD_PREFIX,
    RANDOM,
    TIME,
    Val,
)


def module_val(dotted: str) -> Val:
    labels = {MOD_PREFIX + dotted}
    root = dotted.split(".")[0]
    if dotted.split(".")[-1] in ("cfnresponse", "cfn_response"):
        labels.add(CFN_RESPONSE)
    if dotted.endswith(("cfnresponse.send", "cfn_response.send")):
        labels.add(CFN_SEND)
    if root in ("boto3", "botocore", "aioboto3", "aiobotocore"):
        labels.add(AWS)
    if root == "crhelper" and dotted.endswith("CfnResource"):
        labels.add(CRHELPER_CLASS)
    return Val(frozenset(labels))


def volatile_call(dotted: str) -> str | None:
    parts = dotted.split(".")
    root, last = parts[0], parts[-1]
    if (root == "uuid" and last in ("uuid1", "uuid4")) or root in ("random", "secrets"):
        return RANDOM
    if dotted == "os.urandom":
        return RANDOM
    if root == "time" and last != "sleep" and len(parts) > 1:
        return TIME
    if root == "datetime" and last in ("now", "utcnow", "today"):
        return TIME
    return None


def mentions_request_type(node: ast.expr) -> bool:
    return any(
        (isinstance(sub, ast.Constant) and sub.value == "RequestType")
        or (isinstance(sub, ast.Attribute) and sub.attr == "RequestType")
        for sub in ast.walk(node)
    )


def const_str(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


_NAMESPACES = frozenset({"globals", "vars", "locals"})


def is_namespace(node: ast.expr) -> bool:
    """``globals()``, ``vars()``, ``locals()`` or ``sys.modules[__name__].__dict__``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id in _NAMESPACES
    return isinstance(node, ast.Attribute) and node.attr == "__dict__"

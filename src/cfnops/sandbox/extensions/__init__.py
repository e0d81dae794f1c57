"""cfnops extensions to moto: each module patches moto once per process.

Every module named in :data:`EXTENSIONS` defines ``install() -> None``, which
must be idempotent and must read settings at call time through
:func:`cfnops.sandbox.current_state` (never capture them at install time).
Add a module by appending its name here.
"""

from __future__ import annotations

import importlib
import threading

__all__ = ["EXTENSIONS", "install_all", "installed"]

EXTENSIONS: tuple[str, ...] = (
    "cfn_fixes",
    "cfn_tag_shapes",
    "cfn_dynamic_refs",
    "cfn_drift",
    "cfn_changesets",
    "events",
    "transitions",
    "ssm_commands",
    "backup",
    "faults",
    "ec2_image_params",
    "cfn_update_failures",
    "cfn_outcomes",
    "sns_subscriptions",
    "asg_instance_refresh",
    "cfn_phantoms",
    "cloudtrail_events",
    "sts_roles",
    "cfn_nested_ids",
    "lambda_durable",
    "sfn_test_state",
)

_lock = threading.Lock()
_installed: list[str] = []


def install_all() -> tuple[str, ...]:
    """Install every extension once per process; return the installed names."""
    with _lock:
        for name in EXTENSIONS:
            if name in _installed:
                continue
            module = importlib.import_module(f"{__name__}.{name}")
            module.install()
            _installed.append(name)
        return tuple(_installed)


def installed() -> tuple[str, ...]:
    with _lock:
        return tuple(_installed)

"""What a run records of where it works, and the runtime another process continues it on.

A run started in one process may be continued by another (a worker after a crash, a
worker after ``cfnops heal`` exited holding it for approval, ``cfnops approve``): that
process must heal the same stack in the same region and account endpoint, whatever its
own settings say. So every run records, as the third argument of ``cfnops.run``, the
AWS region, endpoint and profile its runtime worked with (and the modules its process
had), and the continuing process aims its own runtime there. Credentials are never
recorded: they come from the continuing process's environment.
"""

from __future__ import annotations

from typing import Any

from cfnops.runtime import Runtime

__all__ = ["run_context", "runtime_in_context"]


def run_context(runtime: Runtime) -> dict[str, Any]:
    """What a run records of the runtime it was started with: where it works (AWS
    region, endpoint, profile) and the modules its process had imported."""
    return {
        "aws": runtime.aws.context(),
        "modules": list(runtime.settings.worker.workflow_modules),
    }


def runtime_in_context(base: Runtime, context: dict[str, Any]) -> Runtime:
    """``base`` aimed at a run's recorded ``context``: a recorded AWS region, endpoint or
    profile wins over ``base``'s (credentials still come from ``base``'s environment);
    one not recorded keeps ``base``'s. (The recorded modules are information: a job
    run imports the modules it needs itself, and a workflow this process lacks is
    handed over by name.)"""
    recorded = context.get("aws") or {}
    changes = {
        key: recorded[key]
        for key in ("region", "endpoint_url", "profile")
        if isinstance(recorded.get(key), str) and recorded[key]
    }
    current = base.settings.aws
    if all(getattr(current, key) == value for key, value in changes.items()):
        return base
    return base.with_settings(base.settings.replace(aws=current.replace(**changes)))

"""The workflows every cfnops process that starts a durable engine can run and recover.

The engine (:mod:`cfnops.durable`) knows no workflow: each capability registers
its own when its package is imported. This module is the one place that says
which capabilities a cfnops process brings, and it sits above them, next to the
CLI: the places that start engines (CLI commands, the worker, benchmarks) call
:func:`register_all` first, so a worker recovering a heal run finds heal's
workflow. Demo workflows are not here: only demo commands register them (a
worker resumes a killed demo run with ``--import cfnops.demo.workflows``).

They are registered by name (:func:`cfnops.durable.register_lazily`): a workflow's
package is imported when a run of it starts or is recovered, not by every command
that starts an engine (heal's and ami's bring boto3 and the Durable Execution SDK:
~0.2 s of a ``cfnops job run``). ``tests/test_builtin_workflows.py`` checks that each
name below is the one its capability's public API gives.
"""

from __future__ import annotations

__all__ = ["BUILTIN", "register_all"]

# workflow name → (public module, attribute holding that name; importing registers it)
BUILTIN: dict[str, tuple[str, str]] = {
    "cfnops.heal": ("cfnops.heal", "HEAL_WORKFLOW"),
    "cfnops.drift-scan": ("cfnops.heal", "DRIFT_SCAN_WORKFLOW"),
    "cfnops.ami.rotate-stack": ("cfnops.ami", "ROTATE_STACK_WORKFLOW"),
    "cfnops.jobs.execution": ("cfnops.jobs", "WORKFLOW"),
    # Lambda durable functions run by the local backend (cfnops.durable.LocalLambda)
    "cfnops.lambda": ("cfnops.durable", "LAMBDA_WORKFLOW"),
}


def register_all() -> list[str]:
    """Register heal's (heal, drift scan), ami's and jobs' workflows by name; return them."""
    from cfnops.durable import register_lazily

    for name, (module, attribute) in BUILTIN.items():
        register_lazily(name, module, attribute)
    return list(BUILTIN)

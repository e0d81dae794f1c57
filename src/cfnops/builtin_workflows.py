"""The workflows every cfnops process that starts a durable engine can run and recover.

The engine (:mod:`cfnops.durable`) knows no workflow: each capability registers
its own when its package is imported. This module is the one place that says
which capabilities a cfnops process brings, and it sits above them, next to the
CLI: the places that start engines (CLI commands, the worker, benchmarks) call
:func:`register_all` first, so a worker recovering a heal run finds heal's
workflow. Demo workflows are not here: only demo commands register them (a
worker resumes a killed demo run with ``--import cfnops.demo.workflows``).
"""

from __future__ import annotations

__all__ = ["register_all"]


def register_all() -> list[str]:
    """Register heal's (heal, drift scan), ami's and jobs' workflows; return their names.

    Each name is read from its capability's public API: loading the module that
    defines it registers the workflow (the packages load their modules lazily).
    """
    from cfnops.ami import ROTATE_STACK_WORKFLOW
    from cfnops.heal import DRIFT_SCAN_WORKFLOW, HEAL_WORKFLOW
    from cfnops.jobs import WORKFLOW as JOB_WORKFLOW

    return [HEAL_WORKFLOW, DRIFT_SCAN_WORKFLOW, ROTATE_STACK_WORKFLOW, JOB_WORKFLOW]

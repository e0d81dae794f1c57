"""The runtime of a Lambda execution environment: built on the first invocation.

An entry point (like the CLI): it may keep the runtime for the environment's
lifetime, so warm invocations reuse the clients and their connections.
"""

from __future__ import annotations

from cfnops.runtime import Runtime

__all__ = ["lambda_runtime"]

_built: list[Runtime] = []  # entry point state: one runtime per execution environment


def lambda_runtime() -> Runtime:
    """``Runtime.from_environment()`` (``CFNOPS_*`` variables), once per environment."""
    if not _built:
        _built.append(Runtime.from_environment())
    return _built[0]

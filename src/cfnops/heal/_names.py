"""Names and idempotency tokens derived from the run id (pure, deterministic)."""

from __future__ import annotations

import hashlib
import re

CHANGE_SET_PREFIX = "healing-changeset-"
# ChangeSetName: [a-zA-Z][-a-zA-Z0-9]*, at most 128 characters.
_NAME_MAX = 128
# ClientRequestToken: [a-zA-Z0-9][-a-zA-Z0-9]*, at most 128 characters.


def _digest(run_id: str, purpose: str) -> str:
    return hashlib.sha256(f"{purpose}:{run_id}".encode()).hexdigest()


def change_set_name(stack: str, run_id: str) -> str:
    """``healing-changeset-<stack>-<12 hex of the run id>``, within CloudFormation's limits."""
    suffix = _digest(run_id, "change-set")[:12]
    clean = re.sub(r"[^-a-zA-Z0-9]", "-", stack)
    room = _NAME_MAX - len(CHANGE_SET_PREFIX) - len(suffix) - 1
    return f"{CHANGE_SET_PREFIX}{clean[:room]}-{suffix}"


def request_token(run_id: str, purpose: str) -> str:
    """A ``ClientRequestToken`` for one call of the run (``create``, ``execute``)."""
    return f"cfnops-{purpose}-{_digest(run_id, purpose)[:40]}"

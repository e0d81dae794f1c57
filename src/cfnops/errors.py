"""The root of every cfnops exception, and the exit codes the CLI maps them to.

Exception tree (each package adds its own ``errors.py`` under these)::

    CfnopsError                      exit 1 unless a subclass says otherwise
    ├── UsageError                   exit 2: bad input, bad config, bad flags
    │   ├── ConfigError              (cfnops.config) file, key and reason
    │   └── AwsSetupError            (cfnops.aws) credentials, region, endpoint, access
    ├── OperationFailed              exit 1: the operation ran and failed
    └── HeldForReview                exit 3: policy held the change; someone must approve

Findings (diff impacts, guard findings, ASL runtime errors) are data, not
exceptions: only ``cfnops.cli`` turns errors into exit codes.
"""

from __future__ import annotations

from enum import IntEnum

# Set by cfnops.durable on every exception a database engine raises (naming the database):
# a fault of the host's storage, never of the workflow or state that was running.
HOST_FAULT_TAG = "_cfnops_database"


class ExitCode(IntEnum):
    """Documented process exit codes, usable in CI."""

    OK = 0
    FAILED = 1
    USAGE = 2
    HELD = 3


class CfnopsError(Exception):
    """Base class of every error cfnops raises on purpose.

    ``message`` says what was wrong and where; ``hint`` says what to do.
    """

    exit_code: ExitCode = ExitCode.FAILED
    # True: the process ends without waiting for its other threads (e.g. an execution
    # stopped by a storage fault, which only waits for an outcome another process records).
    abandons_threads: bool = False

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        self.message = message
        self.hint = hint
        super().__init__(message if hint is None else f"{message} ({hint})")


class UsageError(CfnopsError):
    """The caller gave input cfnops cannot use: fix the input and try again."""

    exit_code = ExitCode.USAGE


class OperationFailed(CfnopsError):
    """The operation ran and did not succeed."""

    exit_code = ExitCode.FAILED


class HeldForReview(CfnopsError):
    """A safety policy held the change: it waits for ``cfnops approve``."""

    exit_code = ExitCode.HELD


def is_host_fault(exc: BaseException) -> bool:
    """``exc`` (or what it wraps) is a fault of the database under cfnops, not of a workflow.

    Workflows and ASL states never catch such faults as their own failure: the run stops
    where it is and continues from its last checkpoint once the database works again.
    """
    seen: set[int] = set()
    item: BaseException | None = exc
    while item is not None and id(item) not in seen:
        seen.add(id(item))
        if getattr(item, HOST_FAULT_TAG, None):
            return True
        item = item.__cause__ or item.__context__
    return False

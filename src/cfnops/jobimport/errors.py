"""Errors of the job-manager importer.

Exception tree::

    CfnopsError
    └── JobImportError           root of every importer error; each is also one of:
    └── UsageError
        └── ImportInputError     the export cannot be imported as it is (exit 2):
                                 not an export, truncated, unknown product version,
                                 a dependency cycle, a reference to a job that does not
                                 exist. ``where`` is a line (``line 12``), an XML path
                                 (``/DEFTABLE/FOLDER[2]/JOB[@JOBNAME='A']``) or a JSON path
                                 (``$.FIN.JobA.Rerun``).

What could not be mapped is data (:class:`cfnops.jobimport.Unmapped` in the report),
never an exception.
"""

from __future__ import annotations

from cfnops.errors import CfnopsError, UsageError

__all__ = ["ImportInputError", "JobImportError"]


class JobImportError(CfnopsError):
    """Root of the importer's errors."""


class ImportInputError(JobImportError, UsageError):
    """The export cannot be imported; nothing was written."""

    def __init__(self, source: str, where: str, problem: str, fix: str) -> None:
        self.source = source
        self.where = where
        self.problem = problem
        super().__init__(f"{source}: {where}: {problem}", hint=fix)

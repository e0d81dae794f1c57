"""DBOS's own log lines about a run carry the run's id.

DBOS logs a failed run as "Exception encountered in background workflow" on its
``dbos`` logger, outside the block where the engine binds ``run_id``
(:mod:`cfnops.logcontext`): the run function has already returned by then. DBOS's
workflow context is still current on that thread, so a filter on the ``dbos`` logger
sets the record's ``run_id`` from it; JSON lines carry it as a field, text lines as
``[run ID]``.
"""

from __future__ import annotations

import logging

from dbos import DBOS

from cfnops import logcontext

__all__ = ["RunIdFromDbos", "install"]


class RunIdFromDbos(logging.Filter):
    """Sets ``record.run_id`` to the DBOS workflow being executed (when there is one)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "run_id", None) is None and "run_id" not in logcontext.current():
            try:
                run_id = DBOS.workflow_id
            except Exception:  # no DBOS context of any kind: nothing to add
                run_id = None
            if run_id:
                record.run_id = run_id
        return True


def install() -> None:
    """Add the filter to DBOS's logger (once per process)."""
    logger = logging.getLogger("dbos")
    if not any(isinstance(f, RunIdFromDbos) for f in logger.filters):
        logger.addFilter(RunIdFromDbos())

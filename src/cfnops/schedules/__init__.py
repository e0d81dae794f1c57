"""Schedule expressions as EventBridge Scheduler reads them: ``cron(…)`` and ``rate(…)``.

Shared by job-net schedules (:mod:`cfnops.jobs`) and drift-scan schedules
(:mod:`cfnops.heal`), below both::

    from cfnops.schedules import parse_schedule

    parse_schedule("cron(0 9 ? * MON-FRI *)", "Europe/Paris").next_after(now)
"""

from typing import TYPE_CHECKING

from cfnops._lazy import lazy_exports
from cfnops.schedules.errors import InvalidSchedule, SchedulesError

if TYPE_CHECKING:
    from cfnops.schedules._expressions import Schedule, parse_schedule

__all__ = ["InvalidSchedule", "Schedule", "SchedulesError", "parse_schedule"]


# The expressions are loaded when first used: cfnops.jobs.errors re-exports
# InvalidSchedule, and a job run that has no schedule does not parse one.
__getattr__, __dir__ = lazy_exports(
    __name__, dict.fromkeys(("Schedule", "parse_schedule"), "_expressions"), globals()
)

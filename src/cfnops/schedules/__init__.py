"""Schedule expressions as EventBridge Scheduler reads them: ``cron(…)`` and ``rate(…)``.

Shared by job-net schedules (:mod:`cfnops.jobs`) and drift-scan schedules
(:mod:`cfnops.heal`), below both::

    from cfnops.schedules import parse_schedule

    parse_schedule("cron(0 9 ? * MON-FRI *)", "Europe/Paris").next_after(now)
"""

from cfnops.schedules._expressions import Schedule, parse_schedule
from cfnops.schedules.errors import InvalidSchedule, SchedulesError

__all__ = ["InvalidSchedule", "Schedule", "SchedulesError", "parse_schedule"]

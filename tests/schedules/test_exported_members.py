"""The public names of cfnops.schedules (a change here is an API change).

The CLI, the console, Lambda handlers and other packages use these names only:
tests/test_import_direction.py fails on any import of a private module of cfnops.schedules.
"""

from __future__ import annotations

import cfnops.schedules


def test_schedules_exports() -> None:
    assert sorted(cfnops.schedules.__all__) == [
        "InvalidSchedule",
        "Schedule",
        "SchedulesError",
        "parse_schedule",
    ]
    for name in cfnops.schedules.__all__:
        assert getattr(cfnops.schedules, name) is not None

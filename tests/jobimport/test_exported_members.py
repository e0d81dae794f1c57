"""The public names of cfnops.jobimport (a change here is an API change)."""

from __future__ import annotations

import cfnops.jobimport


def test_jobimport_exports() -> None:
    assert sorted(cfnops.jobimport.__all__) == [
        "CalendarSpec",
        "HostTarget",
        "ImportInputError",
        "ImportModel",
        "ImportPlan",
        "Job",
        "JobImportError",
        "JobNet",
        "Layout",
        "NotifyRule",
        "Par",
        "Reference",
        "Rerun",
        "ScheduleSpec",
        "Seq",
        "Unmapped",
        "apply_plan",
        "compare_reference",
        "dependency_problems",
        "ended_before",
        "forecast",
        "forecast_files",
        "layout",
        "load_hosts",
        "plan_import",
        "read_export",
        "read_reference",
        "render_forecast",
        "render_markdown",
        "render_reference",
        "render_text",
        "write_plan",
    ]
    for name in cfnops.jobimport.__all__:
        assert getattr(cfnops.jobimport, name) is not None

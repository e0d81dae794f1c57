"""Import Control-M and JP1/AJS3 job definitions as cfnops job-nets.

>>> from cfnops.jobimport import read_export, plan_import, write_plan   # doctest: +SKIP
>>> model = read_export(Path("folder.json").read_bytes(), "folder.json", "controlm")
>>> plan = plan_import(model, "folder.json", hosts)
>>> write_plan(plan, "imported/")          # ASL files, calendars/*.toml, report.json/.md

``cfnops job import FILE --from controlm|jp1`` is the command (docs/migrate.md).
"""

from cfnops.jobimport._apply import apply_plan
from cfnops.jobimport._asl import HostTarget
from cfnops.jobimport._forecast import (
    compare_reference,
    forecast,
    render_forecast,
    render_reference,
)
from cfnops.jobimport._forecast_files import forecast_files
from cfnops.jobimport._forecast_reference import Reference, read_reference
from cfnops.jobimport._graph import Layout, Par, Seq, layout
from cfnops.jobimport._hosts import load_hosts
from cfnops.jobimport._model import (
    CalendarSpec,
    ImportModel,
    Job,
    JobNet,
    NotifyRule,
    Rerun,
    ScheduleSpec,
    Unmapped,
)
from cfnops.jobimport._pipeline import ImportPlan, plan_import, read_export, write_plan
from cfnops.jobimport._report import render_markdown, render_text
from cfnops.jobimport._verify import dependency_problems, ended_before
from cfnops.jobimport.errors import ImportInputError, JobImportError

__all__ = [
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

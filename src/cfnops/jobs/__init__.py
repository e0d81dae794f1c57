"""Job-nets: Amazon States Language executions on the durable engine.

>>> from cfnops.jobs import JobService                      # doctest: +SKIP
>>> jobs = JobService(load_settings())
>>> run_id = jobs.start(definition, {"instances": ["i-1"]}, machine_name="webapp-stop")
>>> jobs.wait(run_id).status
'SUCCEEDED'

The names below are imported when first used: ``cfnops job validate`` and
``cfnops job check`` (definition and data-flow checks) then start without the durable
engine (DBOS, SQLAlchemy), boto3 or the Durable Execution SDK.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cfnops.asl import CheckFinding, CheckReport
    from cfnops.jobs._calendar import Calendar, CalendarSchedule, load_calendar, parse_day_rule
    from cfnops.jobs._check_samples import check_dataflow
    from cfnops.jobs._definition import machine_name
    from cfnops.jobs._dependencies import add_dependency
    from cfnops.jobs._deploy import strict_problems
    from cfnops.jobs._http import (
        CapturingTransport,
        HttpRequest,
        HttpResponse,
        set_http_transport,
    )
    from cfnops.jobs._integrations import register_function, register_state_machine
    from cfnops.jobs._pools import PoolStore
    from cfnops.jobs._rerun import RerunRequest
    from cfnops.jobs._runner import JobResult
    from cfnops.jobs._schedules import Schedule, parse_schedule
    from cfnops.jobs._service import WORKFLOW, JobService
    from cfnops.jobs._starts import monitor_options
    from cfnops.jobs._status import IterationRun, RunStatus, StateRun, derive_status
    from cfnops.jobs._store import JobStore, RunRow
    from cfnops.jobs._triggers import TriggerService
    from cfnops.jobs._worker import start_worker_services

_WHERE = {
    "WORKFLOW": "_service",
    "Calendar": "_calendar",
    "CalendarSchedule": "_calendar",
    "PoolStore": "_pools",
    "add_dependency": "_dependencies",
    "load_calendar": "_calendar",
    "machine_name": "_definition",
    "monitor_options": "_starts",
    "parse_day_rule": "_calendar",
    "CapturingTransport": "_http",
    "CheckFinding": "_check_samples",  # defined in cfnops.asl
    "CheckReport": "_check_samples",
    "HttpRequest": "_http",
    "HttpResponse": "_http",
    "JobResult": "_runner",
    "JobService": "_service",
    "JobStore": "_store",
    "RerunRequest": "_rerun",
    "IterationRun": "_status",
    "RunStatus": "_status",
    "StateRun": "_status",
    "derive_status": "_status",
    "RunRow": "_store",
    "Schedule": "_schedules",
    "TriggerService": "_triggers",
    "check_dataflow": "_check_samples",
    "parse_schedule": "_schedules",
    "register_function": "_integrations",
    "register_state_machine": "_integrations",
    "set_http_transport": "_http",
    "start_worker_services": "_worker",
    "strict_problems": "_deploy",
}

__all__ = [
    "WORKFLOW",
    "Calendar",
    "CalendarSchedule",
    "CapturingTransport",
    "CheckFinding",
    "CheckReport",
    "HttpRequest",
    "HttpResponse",
    "IterationRun",
    "JobResult",
    "JobService",
    "JobStore",
    "PoolStore",
    "RerunRequest",
    "RunRow",
    "RunStatus",
    "Schedule",
    "StateRun",
    "TriggerService",
    "add_dependency",
    "check_dataflow",
    "derive_status",
    "load_calendar",
    "machine_name",
    "monitor_options",
    "parse_day_rule",
    "parse_schedule",
    "register_function",
    "register_state_machine",
    "set_http_transport",
    "start_worker_services",
    "strict_problems",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'cfnops.jobs' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"cfnops.jobs.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])

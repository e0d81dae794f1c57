"""Job-nets: Amazon States Language executions on the durable engine.

>>> from cfnops.jobs import JobService                      # doctest: +SKIP
>>> jobs = JobService(Runtime.from_settings(load_settings()))
>>> run_id = jobs.start(definition, {"instances": ["i-1"]}, machine_name="webapp-stop")
>>> jobs.wait(run_id).status
'SUCCEEDED'

The names below are imported when first used: ``cfnops job validate`` and
``cfnops job check`` (definition and data-flow checks) then start without the durable
engine (DBOS, SQLAlchemy), boto3 or the Durable Execution SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cfnops._lazy import lazy_exports

if TYPE_CHECKING:
    from cfnops.jobs._batch import (
        BATCH_ACTIONS,
        BatchResult,
        batch_consequence,
        parse_run_filter,
        plan_batch,
        run_batch,
        select_runs,
    )
    from cfnops.jobs._calendar import Calendar, CalendarSchedule, load_calendar, parse_day_rule
    from cfnops.jobs._check_samples import check_dataflow, read_task_results
    from cfnops.jobs._definition import load_definition, machine_name, parse_input
    from cfnops.jobs._delays import list_alerts
    from cfnops.jobs._dependencies import add_dependency
    from cfnops.jobs._deploy import deploy, strict_problems
    from cfnops.jobs._functions import import_modules
    from cfnops.jobs._http import CapturingTransport
    from cfnops.jobs._integrations import register_function, register_state_machine
    from cfnops.jobs._jobtest import CaseResult, JobNetTest, load_job_test
    from cfnops.jobs._jobtest_starter import starter_mocks
    from cfnops.jobs._mockconfig import MockConfig, parse_mock_config
    from cfnops.jobs._pools import Pool, PoolStore
    from cfnops.jobs._rerun import RerunRequest
    from cfnops.jobs._run_job import Progress, follow_job, run_job
    from cfnops.jobs._runner import JobResult, iter_states
    from cfnops.jobs._service import WORKFLOW, JobService
    from cfnops.jobs._starts import duration_seconds, monitor_options
    from cfnops.jobs._status import (
        IterationRun,
        RunStatus,
        StateRun,
        decode_payload,
        derive_status,
    )
    from cfnops.jobs._store import JobStore, RunRow
    from cfnops.jobs._triggers import TriggerService
    from cfnops.jobs._views import StateView, state_views
    from cfnops.jobs._worker import start_worker_services
    from cfnops.schedules import Schedule, parse_schedule

_WHERE = {
    "CaseResult": "_jobtest",
    "JobNetTest": "_jobtest",
    "load_job_test": "_jobtest",
    "starter_mocks": "_jobtest_starter",
    "MockConfig": "_mockconfig",
    "parse_mock_config": "_mockconfig",
    "BATCH_ACTIONS": "_batch",
    "BatchResult": "_batch",
    "batch_consequence": "_batch",
    "parse_run_filter": "_batch",
    "plan_batch": "_batch",
    "run_batch": "_batch",
    "select_runs": "_batch",
    "CalendarSchedule": "_calendar",
    "load_calendar": "_calendar",
    "parse_day_rule": "_calendar",
    "read_task_results": "_check_samples",
    "load_definition": "_definition",
    "machine_name": "_definition",
    "parse_input": "_definition",
    "list_alerts": "_delays",
    "add_dependency": "_dependencies",
    "deploy": "_deploy",
    "strict_problems": "_deploy",
    "import_modules": "_functions",
    "Pool": "_pools",
    "PoolStore": "_pools",
    "iter_states": "_runner",
    "Progress": "_run_job",
    "follow_job": "_run_job",
    "run_job": "_run_job",
    "duration_seconds": "_starts",
    "monitor_options": "_starts",
    "StateView": "_views",
    "state_views": "_views",
    "WORKFLOW": "_service",
    "Calendar": "_calendar",
    "CapturingTransport": "_http",
    "JobResult": "_runner",
    "JobService": "_service",
    "JobStore": "_store",
    "RerunRequest": "_rerun",
    "IterationRun": "_status",
    "RunStatus": "_status",
    "StateRun": "_status",
    "decode_payload": "_status",
    "derive_status": "_status",
    "RunRow": "_store",
    "TriggerService": "_triggers",
    "check_dataflow": "_check_samples",
    "register_function": "_integrations",
    "register_state_machine": "_integrations",
    "start_worker_services": "_worker",
    # re-exported: cfnops.schedules is below both
    "Schedule": "cfnops.schedules",
    "parse_schedule": "cfnops.schedules",
}

__all__ = [
    "BATCH_ACTIONS",
    "WORKFLOW",
    "BatchResult",
    "Calendar",
    "CalendarSchedule",
    "CapturingTransport",
    "CaseResult",
    "IterationRun",
    "JobNetTest",
    "JobResult",
    "JobService",
    "JobStore",
    "MockConfig",
    "Pool",
    "PoolStore",
    "Progress",
    "RerunRequest",
    "RunRow",
    "RunStatus",
    "Schedule",
    "StateRun",
    "StateView",
    "TriggerService",
    "add_dependency",
    "batch_consequence",
    "check_dataflow",
    "decode_payload",
    "deploy",
    "derive_status",
    "duration_seconds",
    "follow_job",
    "import_modules",
    "iter_states",
    "list_alerts",
    "load_calendar",
    "load_definition",
    "load_job_test",
    "machine_name",
    "monitor_options",
    "parse_day_rule",
    "parse_input",
    "parse_mock_config",
    "parse_run_filter",
    "parse_schedule",
    "plan_batch",
    "read_task_results",
    "register_function",
    "register_state_machine",
    "run_batch",
    "run_job",
    "select_runs",
    "start_worker_services",
    "starter_mocks",
    "state_views",
    "strict_problems",
]

__getattr__, __dir__ = lazy_exports(__name__, _WHERE, globals())

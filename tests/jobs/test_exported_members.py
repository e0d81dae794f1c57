"""The public names of cfnops.jobs (a change here is an API change).

The CLI, the console, Lambda handlers and other packages use these names only:
tests/test_import_direction.py fails on any import of a private module of cfnops.jobs.
"""

from __future__ import annotations

import cfnops.jobs


def test_jobs_exports() -> None:
    assert sorted(cfnops.jobs.__all__) == [
        "BATCH_ACTIONS",
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
        "WORKFLOW",
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
    for name in cfnops.jobs.__all__:
        assert getattr(cfnops.jobs, name) is not None

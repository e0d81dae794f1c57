"""Services that ``cfnops worker`` runs next to the durable engine (schedules, triggers)."""

from __future__ import annotations

import threading

from cfnops.runtime import Runtime

__all__ = ["start_worker_services"]


def start_worker_services(runtime: Runtime, stop: threading.Event) -> list[threading.Thread]:
    """Start the job-net schedule and event-trigger loop; it ends when ``stop`` is set."""
    from cfnops.jobs._service import JobService
    from cfnops.jobs._triggers import TriggerService, run_services

    jobs = JobService(runtime)
    TriggerService(jobs).preflight()
    thread = threading.Thread(
        target=run_services,
        args=(jobs, stop),
        name="cfnops-job-triggers",
        daemon=True,
    )
    thread.start()
    return [thread]

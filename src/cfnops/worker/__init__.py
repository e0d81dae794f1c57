"""The worker service: what ``cfnops worker`` runs, for any process to embed::

    import threading
    from cfnops.runtime import Runtime
    from cfnops.worker import Worker, WorkerOptions

    stop = threading.Event()  # set it from a SIGTERM handler
    Worker(Runtime.from_environment(), WorkerOptions(grace=5), say=print).run(stop)

It composes the durable engine (recovering and executing runs), the job-net schedules
and event triggers, the drift-scan schedules, the run lines and the metrics endpoint.
The CLI adds only its options, signals, printing and exit codes.
"""

from cfnops.worker._service import Worker, WorkerOptions
from cfnops.worker.errors import MetricsPortUnavailable, WorkerError

__all__ = ["MetricsPortUnavailable", "Worker", "WorkerError", "WorkerOptions"]

"""Job-nets: Amazon States Language executions on the durable engine.

>>> from cfnops.jobs import JobService                      # doctest: +SKIP
>>> jobs = JobService(load_settings())
>>> run_id = jobs.start(definition, {"instances": ["i-1"]}, machine_name="webapp-stop")
>>> jobs.wait(run_id).status
'SUCCEEDED'
"""

from cfnops.jobs._check import check_dataflow
from cfnops.jobs._check_model import CheckFinding, CheckReport
from cfnops.jobs._http import CapturingTransport, HttpRequest, HttpResponse, set_http_transport
from cfnops.jobs._integrations import register_function, register_state_machine
from cfnops.jobs._rerun import RerunRequest
from cfnops.jobs._runner import JobResult
from cfnops.jobs._service import WORKFLOW, JobService
from cfnops.jobs._store import JobStore, RunRow
from cfnops.jobs._triggers import TriggerService
from cfnops.jobs._worker import start_worker_services

__all__ = [
    "WORKFLOW",
    "CapturingTransport",
    "CheckFinding",
    "CheckReport",
    "HttpRequest",
    "HttpResponse",
    "JobResult",
    "JobService",
    "JobStore",
    "RerunRequest",
    "RunRow",
    "TriggerService",
    "check_dataflow",
    "register_function",
    "register_state_machine",
    "set_http_transport",
    "start_worker_services",
]

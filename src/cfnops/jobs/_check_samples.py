"""Task results for the data-flow check: declared in a file, or sampled from AWS models.

The ``--task-results`` file (JSON or YAML) maps a state name to a sample result::

    DescribeInstance:                 # the result the Task would return
      Reservations: [{Instances: [{State: {Code: 80, Name: stopped}}]}]
    StopInstances/GetStopApache:      # a state inside a Map or Parallel, by its path
      cfnops:samples:                 # several results: each is walked
        - {Status: InProgress}
        - {Status: Success, ResponseCode: 0, StandardErrorContent: ""}

An undeclared ``aws-sdk`` Task gets a result sampled from the botocore model of the API's
output (every member present, placeholder values); any other undeclared Task's result is
unknown, and references into it are reported as not checked.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

import botocore.session
import yaml
from botocore.exceptions import UnknownServiceError
from botocore.utils import ArgumentGenerator

from cfnops.asl import CheckFinding, CheckReport, DeclaredResults
from cfnops.asl import check_dataflow as asl_check
from cfnops.jobs._aws_sdk import SERVICE_ALIASES
from cfnops.jobs.errors import JobInputError

__all__ = ["CheckFinding", "CheckReport", "TaskResults", "check_dataflow", "read_task_results"]


@lru_cache(maxsize=1)
def _session() -> Any:
    return botocore.session.get_session()


@lru_cache(maxsize=1)
def _services() -> dict[str, str]:
    return {s.replace("-", ""): s for s in _session().get_available_services()}


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, bytes):
        return ""
    return value


@lru_cache(maxsize=256)
def _skeleton(service: str, action: str) -> tuple[str, Any] | None:
    name = SERVICE_ALIASES.get(service.lower()) or _services().get(service.lower())
    if name is None:
        return None
    try:
        model = _session().get_service_model(name)
    except UnknownServiceError:
        return None
    op = next((o for o in model.operation_names if o.lower() == action.lower()), None)
    if op is None:
        return None
    shape = model.operation_model(op).output_shape
    result = (
        {} if shape is None else ArgumentGenerator(use_member_names=True).generate_skeleton(shape)
    )
    return f"sampled from the {name} {op} output model (placeholder values)", _plain(result)


class TaskResults(DeclaredResults):
    """Declared results, else (``aws-sdk`` Tasks) a result sampled from the API's model."""

    def sample(self, resource: Any) -> tuple[str, Any] | None:
        prefix = "arn:aws:states:::aws-sdk:"
        if isinstance(resource, str) and resource.startswith(prefix):
            service, _, action = resource[len(prefix) :].partition(":")
            return _skeleton(service, action.split(".")[0])
        return None


def read_task_results(path: str | Path) -> dict[str, Any]:
    """The ``--task-results`` file: a JSON or YAML object of state name → sample result."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise JobInputError("the task results", str(p), exc.strerror or str(exc)) from None
    try:
        found = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise JobInputError("the task results", str(p), str(exc).replace("\n", " ")) from None
    if not isinstance(found, dict):
        raise JobInputError(
            "the task results", str(p), "the top level must be an object of state name → result"
        )
    return {str(k): v for k, v in found.items()}


def check_dataflow(
    definition: Mapping[str, Any], sample_input: Any, task_results: Mapping[str, Any] | None = None
) -> CheckReport:
    """:func:`cfnops.asl.check_dataflow` with ``aws-sdk`` results sampled from AWS models."""
    return asl_check(definition, sample_input, TaskResults(task_results))

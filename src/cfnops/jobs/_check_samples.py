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

from cfnops.jobs._check_model import Unknown
from cfnops.jobs.errors import JobInputError

__all__ = ["SAMPLES_KEY", "TaskResults", "read_task_results"]

SAMPLES_KEY = "cfnops:samples"
_ALIASES = {
    "sfn": "stepfunctions",
    "eventbridge": "events",
    "cloudwatchlogs": "logs",
    "elasticloadbalancingv2": "elbv2",
    "elasticloadbalancing": "elb",
    "cloudwatchevents": "events",
}


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
    name = _ALIASES.get(service.lower()) or _services().get(service.lower())
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


class TaskResults:
    """Sample results per state, from a ``--task-results`` mapping and the AWS models."""

    def __init__(self, declared: Mapping[str, Any] | None = None) -> None:
        self.declared = dict(declared or {})
        self.used: set[str] = set()

    def results(self, path: str, name: str, resource: Any) -> tuple[str, list[Any]]:
        """(where the results come from, the sample results) for the Task at ``path``."""
        for key in (path, name):
            if key in self.declared:
                self.used.add(key)
                value = self.declared[key]
                if isinstance(value, Mapping) and set(value) == {SAMPLES_KEY}:
                    samples = value[SAMPLES_KEY]
                    return "declared", list(samples) if isinstance(samples, list) else [samples]
                return "declared", [value]
        prefix = "arn:aws:states:::aws-sdk:"
        if isinstance(resource, str) and resource.startswith(prefix):
            service, _, action = resource[len(prefix) :].partition(":")
            sampled = _skeleton(service, action.split(".")[0])
            if sampled is not None:
                return sampled[0], [sampled[1]]
        origin = f"the result of Task {path}, which is not declared"
        return "unknown (declare it with --task-results)", [Unknown(origin)]

    def unused(self) -> list[str]:
        return sorted(set(self.declared) - self.used)


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

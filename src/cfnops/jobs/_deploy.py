"""``cfnops job deploy`` and ``validate --strict``: the same definition on AWS Step Functions."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from cfnops.asl import validate
from cfnops.aws import AwsClients
from cfnops.jobs._http import SLACK_ALIAS
from cfnops.jobs._integrations import local_function_names
from cfnops.jobs._runner import iter_states

__all__ = ["deploy", "strict_problems"]


def strict_problems(definition: Mapping[str, Any]) -> list[str]:
    """Everything that would make the definition fail or behave differently on AWS."""
    problems = [str(f) for f in validate(definition, strict=True)]
    local = local_function_names()
    for name, state in iter_states(definition):
        resource = str(state.get("Resource", ""))
        params = state.get("Parameters") or state.get("Arguments") or {}
        where = f"/States/{name}"
        if resource.startswith("arn:aws:states:::http:invoke"):
            endpoint = params.get("ApiEndpoint") if isinstance(params, Mapping) else None
            if endpoint == SLACK_ALIAS or str(endpoint).startswith("cfnops:"):
                problems.append(f"{where}: ApiEndpoint {endpoint!r} is a cfnops alias")
            if isinstance(params, Mapping) and "Authentication" not in params:
                problems.append(f"{where}: http:invoke needs Authentication.ConnectionArn on AWS")
        if resource.startswith("arn:aws:states:::lambda:invoke") and isinstance(params, Mapping):
            fn = str(params.get("FunctionName", ""))
            if fn in local or fn.startswith("cfnops:"):
                problems.append(f"{where}: function {fn!r} is a local Python callable")
        if resource.startswith("arn:") and ":function:" in resource:
            fn = resource.split(":")[6] if len(resource.split(":")) > 6 else ""
            if fn in local:
                problems.append(f"{where}: function {fn!r} is a local Python callable")
    return problems


def deploy(
    clients: AwsClients, definition: Mapping[str, Any], name: str, role_arn: str
) -> dict[str, Any]:
    """Create the state machine, or update it when one with that name exists."""
    sfn = clients.client("stepfunctions")
    body = json.dumps(definition)
    existing = None
    for page in sfn.get_paginator("list_state_machines").paginate():
        for machine in page.get("stateMachines", []):
            if machine["name"] == name:
                existing = machine["stateMachineArn"]
    if existing is None:
        made = sfn.create_state_machine(name=name, definition=body, roleArn=role_arn)
        return {"action": "created", "stateMachineArn": made["stateMachineArn"]}
    sfn.update_state_machine(stateMachineArn=existing, definition=body, roleArn=role_arn)
    return {"action": "updated", "stateMachineArn": existing}

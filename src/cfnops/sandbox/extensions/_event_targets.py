"""Rule targets of the sandbox's EventBridge bus: input transformation and delivery.

Targets moto can reach are delivered: SQS queues, CloudWatch Logs groups, SNS
topics, and other event buses (handed back to the bus). ``Input``, ``InputPath``
and ``InputTransformer`` follow "Transforming target input" in the EventBridge
User Guide (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-transform-target-input.html).
Lambda, Step Functions and other targets are recorded by the bus, not invoked.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping
from typing import Any

__all__ = ["deliver"]


def _json_path(event: Any, path: str) -> Any:
    """The value at a simple JSONPath (``$.detail.items[0].id``); ``None`` if absent."""
    node = event
    for part in path.lstrip("$").replace("[", ".[").split("."):
        if not part:
            continue
        if part.startswith("[") and part.endswith("]") and isinstance(node, list):
            index = int(part[1:-1])
            node = node[index] if -len(node) <= index < len(node) else None
        elif isinstance(node, dict):
            node = node.get(part)
        else:
            return None
    return node


def _render_template(template: str, values: Mapping[str, Any]) -> Any:
    """An ``InputTemplate`` with ``<name>`` replaced (quoted strings stay strings).

    As in "Transforming target input" (EventBridge User Guide): inside quotes a value
    is inserted as text, elsewhere as JSON; a template that is not JSON stays text.
    """
    text = template
    for name, value in values.items():
        as_text = value if isinstance(value, str) else json.dumps(value)
        text = text.replace(f'"<{name}>"', json.dumps(as_text))
        text = text.replace(f"<{name}>", json.dumps(value) if value is not None else "null")
    try:
        return json.loads(text)
    except ValueError:
        return text


def _transform(target: Mapping[str, Any], event: dict[str, Any], rule_name: str) -> Any:
    if "Input" in target:
        return json.loads(target["Input"])
    if "InputPath" in target:
        return _json_path(event, str(target["InputPath"]))
    transformer = target.get("InputTransformer")
    if transformer:
        values = {
            name: _json_path(event, str(path))
            for name, path in (transformer.get("InputPathsMap") or {}).items()
        }
        values["aws.events.event.json"] = event
        values["aws.events.rule-name"] = rule_name
        values["aws.events.event.ingestion-time"] = event["time"]
        return _render_template(str(transformer.get("InputTemplate", "")), values)
    return json.loads(json.dumps(event))


def _to_log_group(account: str, region: str, group: str, payload: Any) -> None:
    from moto.logs.models import logs_backends

    backend = logs_backends[account][region]
    stream = str(uuid.uuid4())
    backend.create_log_stream(group, stream)
    message = {"timestamp": int(time.time() * 1000), "message": json.dumps(payload)}
    backend.put_log_events(group, stream, [message])


def deliver(
    target: Mapping[str, Any], event: dict[str, Any], rule_name: str
) -> tuple[str, dict[str, Any]] | None:
    """Deliver ``event`` to ``target``; return ``(bus, event)`` for an event-bus target."""
    from moto.utilities.arns import parse_arn

    arn_text = str(target.get("Arn", ""))
    arn = parse_arn(arn_text)
    payload = _transform(target, event, rule_name)
    if arn.service == "sqs":
        from moto.sqs.models import sqs_backends

        sqs_backends[arn.account][arn.region].send_message(
            queue_name=arn.resource_id,
            message_body=json.dumps(payload),
            group_id=target.get("SqsParameters", {}).get("MessageGroupId"),
        )
    elif arn.service == "logs" and arn.resource_type == "log-group":
        _to_log_group(arn.account, arn.region, arn.resource_id, payload)
    elif arn.service == "sns":
        from moto.sns.models import sns_backends

        sns_backends[arn.account][arn.region].publish(message=json.dumps(payload), arn=arn_text)
    elif arn.service == "events" and arn.resource_type == "event-bus":
        return arn.resource_id, dict(event, account=arn.account, region=arn.region)
    return None

"""``cfnops events put``: publish an event to an EventBridge bus (the sandbox's or AWS's)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from cfnops.cli._state import state
from cfnops.errors import OperationFailed
from cfnops.jobs import parse_input

if TYPE_CHECKING:
    from mypy_boto3_events.type_defs import PutEventsRequestEntryTypeDef

events_app = typer.Typer(help="EventBridge events.", no_args_is_help=True)


@events_app.command("put")
def put(
    ctx: typer.Context,
    source: Annotated[str, typer.Option(help="The event's source, e.g. my.app.")],
    detail_type: Annotated[str, typer.Option(help="The event's detail-type.")],
    detail: Annotated[str, typer.Option(help="The detail object: JSON or @FILE.")] = "{}",
    bus: Annotated[str, typer.Option(help="Event bus name.")] = "default",
    resources: Annotated[list[str] | None, typer.Option("--resource", help="Repeatable.")] = None,
) -> None:
    """Put one event on the bus (rules, event triggers and targets see it)."""
    st = state(ctx)
    entry: PutEventsRequestEntryTypeDef = {
        "Source": source,
        "DetailType": detail_type,
        "Detail": json.dumps(parse_input(detail)),
        "EventBusName": bus,
        "Resources": list(resources or []),
    }
    answer = st.clients.client("events").put_events(Entries=[entry])
    result = answer["Entries"][0]
    if answer.get("FailedEntryCount"):
        raise OperationFailed(
            f"the bus refused the event: {result.get('ErrorCode')}: {result.get('ErrorMessage')}"
        )
    if st.output_format == "json":
        st.emit_json({"eventId": result.get("EventId")})
    else:
        st.console.print(f"event {result.get('EventId')} put on {bus}")


def register(app: typer.Typer) -> None:
    app.add_typer(events_app, name="events")

"""The heal workflow's input (a trust boundary: validated with pydantic)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from cfnops.config import HealSettings, InvalidSettings, validated
from cfnops.heal.errors import InvalidHealEvent

# A stack name, or a stack ARN (arn:...:stack/NAME/ID).
_STACK = (
    r"^([a-zA-Z][-a-zA-Z0-9]{0,127}|arn:aws[a-zA-Z-]*:cloudformation:[a-z0-9-]+:\d{12}:stack/.+)$"
)


class HealEvent(BaseModel):
    """``{"StackName": "<name>", "CreateChangeSetOnly": false}`` plus cfnops's optional keys.

    ``Region``: heal a stack outside the default region (fleets across regions).
    ``Settings``: the ``[heal]`` settings this run uses (the CLI records them so a
    resumed run behaves as it started, whatever the resuming process's settings).
    ``Account`` and ``RoleName``: heal a stack of another account, entered with STS
    AssumeRole of ``arn:aws:iam::<Account>:role/<RoleName>`` (fleets across accounts).
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    StackName: str = Field(pattern=_STACK)
    CreateChangeSetOnly: bool = False
    Region: str | None = Field(default=None, pattern=r"^[a-z]{2}(-[a-z]+)+-\d+$")
    Settings: dict[str, Any] | None = None
    Account: str | None = Field(default=None, pattern=r"^\d{12}$")
    RoleName: str | None = Field(default=None, pattern=r"^[A-Za-z0-9+=,.@_-]{1,64}$")


def parse_event(event: Any) -> tuple[HealEvent, HealSettings | None]:
    """Validate ``event``; :class:`InvalidHealEvent` names the first problem."""
    if isinstance(event, str):
        raise InvalidHealEvent("the event must be a JSON object, not a string")
    if not isinstance(event, dict):
        raise InvalidHealEvent(f"the event must be a JSON object, got {type(event).__name__}")
    try:
        parsed = HealEvent.model_validate(event)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(event)"
        raise InvalidHealEvent(f"{where}: {first['msg']}") from None
    if parsed.Settings is None:
        return parsed, None
    try:
        return parsed, validated(HealSettings, parsed.Settings)
    except InvalidSettings as exc:
        raise InvalidHealEvent(f"Settings.{exc.key}: {exc.reason}") from None

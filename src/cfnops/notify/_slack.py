"""Slack incoming webhooks with a Block Kit message.

The webhook URL is a secret: it is held in a ``SecretStr``-like wrapper, sent
only to the transport, and never formatted into logs or errors.
"""

from __future__ import annotations

import json
from typing import Any

from cfnops.config import SlackSettings
from cfnops.notify._model import Notification
from cfnops.notify._slack_text import (
    FIELD_LIMIT,
    HEADER_LIMIT,
    MAX_BLOCKS,
    MAX_FIELDS,
    SECTION_LIMIT,
    truncate_for_slack,
    truncate_plain,
)
from cfnops.notify._transport import HttpTransport, UrllibTransport
from cfnops.notify.errors import NotifyError

_EMOJI = {"info": ":white_check_mark:", "warning": ":warning:", "error": ":x:"}


def drift_table(notification: Notification) -> str:
    """The drifted resources as a fixed-width table inside a code fence."""
    rows = [("RESOURCE", "TYPE", "STATUS", "PROPERTIES")]
    rows += [
        (r.logical_id, r.resource_type, r.status, ", ".join(r.properties) or "-")
        for r in notification.drifted
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = [
        "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:3])) + "  " + row[3]
        for row in rows
    ]
    return "```\n" + "\n".join(lines) + "\n```"


def mention_text(notification: Notification, options: SlackSettings) -> str:
    """The mentions that open the message ("" when none apply to its outcome).

    Slack's syntax ("Formatting text for app surfaces", Mentioning users / groups,
    https://api.slack.com/reference/surfaces/formatting#mentioning-users):
    ``<@U123>`` for a member, ``<!subteam^S123>`` for a user group, ``<!here>``,
    ``<!channel>``. ``mention_on`` entries: ``failure`` (severity error),
    ``warning``, ``always``, or an outcome name.
    """
    wanted = {w.lower() for w in options.mention_on}
    applies = (
        "always" in wanted
        or (notification.severity == "error" and "failure" in wanted)
        or (notification.severity == "warning" and "warning" in wanted)
        or (bool(notification.outcome) and notification.outcome.lower() in wanted)
    )
    if not options.mention or not applies:
        return ""
    tags = []
    for item in options.mention:
        if item in ("here", "channel"):
            tags.append(f"<!{item}>")
        elif item.startswith("S"):
            tags.append(f"<!subteam^{item}>")
        else:
            tags.append(f"<@{item}>")
    return " ".join(tags) + " "


def slack_payload(
    notification: Notification, options: SlackSettings | None = None
) -> dict[str, Any]:
    """The webhook body: a fallback ``text`` and Block Kit ``blocks`` within Slack's limits.

    The message is cut at ``options.max_chars`` (fences balanced) in the blocks and
    in the fallback ``text`` alike; mentions (``options.mention``) open both.
    """
    options = options or SlackSettings()
    mention = mention_text(notification, options)
    message = truncate_for_slack(notification.message, options.max_chars)
    emoji = _EMOJI.get(notification.severity, "")
    title = truncate_plain(
        f"{notification.outcome or 'cfnops'}: {notification.stack or ''}", HEADER_LIMIT
    )
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": title.rstrip(": ")}},
        {
            "type": "section",
            "text": {
                "type": "mrkdwn",
                "text": truncate_for_slack(f"{mention}{emoji} {message}".strip(), SECTION_LIMIT),
            },
        },
    ]
    fields = [
        (label, value)
        for label, value in (
            ("Stack", notification.stack_id or notification.stack),
            ("Outcome", notification.outcome),
            ("Change set", notification.change_set_id),
            ("Run id", notification.run_id),
            *notification.details,
        )
        if value
    ][:MAX_FIELDS]
    if fields:
        blocks.append(
            {
                "type": "section",
                "fields": [
                    {"type": "mrkdwn", "text": truncate_plain(f"*{k}*\n{v}", FIELD_LIMIT)}
                    for k, v in fields
                ],
            }
        )
    if notification.drifted:
        blocks.append(
            {
                "type": "section",
                "text": {
                    "type": "mrkdwn",
                    "text": truncate_for_slack(
                        "*Drifted resources*\n" + drift_table(notification), SECTION_LIMIT
                    ),
                },
            }
        )
    if notification.console_url:
        blocks.append(
            {
                "type": "section",
                "text": {
                    "type": "mrkdwn",
                    "text": truncate_plain(
                        f"<{notification.console_url}|Open in the CloudFormation console>",
                        SECTION_LIMIT,
                    ),
                },
            }
        )
    return {
        "text": truncate_for_slack(f"{mention}{notification.subject}: {message}", SECTION_LIMIT),
        "blocks": blocks[:MAX_BLOCKS],
    }


class SlackNotifier:
    """Posts :func:`slack_payload` to an incoming webhook."""

    name = "slack"

    def __init__(
        self,
        webhook_url: str,
        transport: HttpTransport | None = None,
        options: SlackSettings | None = None,
    ) -> None:
        self._url = webhook_url
        self._transport = transport or UrllibTransport()
        self.options = options or SlackSettings()

    def __repr__(self) -> str:  # never show the URL
        return "SlackNotifier(webhook=***)"

    def send(self, notification: Notification) -> None:
        body = json.dumps(slack_payload(notification, self.options)).encode()
        try:
            response = self._transport.post(
                self._url, body, {"Content-Type": "application/json; charset=utf-8"}
            )
        except (OSError, ValueError) as exc:
            # The exception text may carry the URL: keep only its type.
            raise NotifyError("slack", f"request failed ({type(exc).__name__})") from None
        if response.status != 200:
            raise NotifyError("slack", f"HTTP {response.status}: {response.body[:200]}")

"""Errors of :mod:`cfnops.notify`. Webhook URLs never appear in messages."""

from __future__ import annotations

from cfnops.errors import CfnopsError, UsageError


class NotifyError(CfnopsError):
    """A notification could not be delivered (the fan-out logs it; callers never see it)."""

    def __init__(self, channel: str, reason: str) -> None:
        self.channel = channel
        self.reason = reason
        super().__init__(
            f"{channel} notification failed: {reason}",
            hint="check the channel's settings in the [notify] section",
        )


class WebhookReferenceError(NotifyError, UsageError):
    """``notify.slack_webhook_ref`` could not be resolved (the reference, never the URL)."""

    def __init__(self, ref: str, reason: str) -> None:
        self.ref, self.channel, self.reason = ref, "slack", reason
        # A configuration problem, not a delivery: skip NotifyError's delivery message.
        UsageError.__init__(
            self,
            f"cannot read the Slack webhook from {ref}: {reason}",
            hint="store the URL as an SSM SecureString (ssm:/path) or a Secrets Manager "
            "secret (secretsmanager:NAME) the caller may read",
        )

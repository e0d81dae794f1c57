"""The Slack webhook URL: from settings, or from an SSM SecureString / Secrets Manager."""

from __future__ import annotations

import json

import botocore.exceptions

from cfnops.aws import AwsClients, error_code
from cfnops.config import NotifySettings
from cfnops.notify.errors import WebhookReferenceError


def resolve_webhook(settings: NotifySettings, clients: AwsClients | None) -> str | None:
    """The webhook URL, or ``None`` when Slack is not configured.

    ``slack_webhook_url`` wins; otherwise ``slack_webhook_ref`` is read:
    ``ssm:/path`` (``GetParameter`` with decryption) or ``secretsmanager:NAME``
    (``GetSecretValue``; a JSON secret may hold the URL under ``url`` or
    ``webhook_url``).
    """
    if settings.slack_webhook_url is not None:
        return settings.slack_webhook_url.get_secret_value()
    ref = settings.slack_webhook_ref
    if ref is None:
        return None
    if clients is None:
        raise WebhookReferenceError(ref, "no AWS clients to read it with")
    kind, _, name = ref.partition(":")
    try:
        if kind == "ssm":
            found = clients.client("ssm").get_parameter(Name=name, WithDecryption=True)
            return str(found["Parameter"]["Value"])
        secret = clients.client("secretsmanager").get_secret_value(SecretId=name)
    except botocore.exceptions.ClientError as exc:
        raise WebhookReferenceError(ref, error_code(exc, "error")) from None
    text = str(secret.get("SecretString", ""))
    if text.startswith("{"):
        data = json.loads(text)
        for key in ("url", "webhook_url"):
            if isinstance(data.get(key), str):
                return str(data[key])
        raise WebhookReferenceError(ref, "the JSON secret has no 'url' or 'webhook_url' key")
    return text

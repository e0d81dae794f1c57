"""``[notify.slack]``: max_chars and mention, in the blocks and the plain-text fallback."""

from __future__ import annotations

import json

import pytest

from cfnops.config import InvalidSettings, SlackSettings, load_settings, validated
from cfnops.notify import (
    Notification,
    RecordingTransport,
    fences_balanced,
    notify_all,
    slack_payload,
)

URL = "https://hooks.slack.example/services/T000/B000/SECRETSECRET"
FENCE = "`" * 3


def _note(message: str, *, severity: str = "error", outcome: str = "FAILED") -> Notification:
    return Notification(
        subject="cfnops job nightly: FAILED",
        message=message,
        outcome=outcome,
        severity=severity,  # type: ignore[arg-type]
        run_id="nightly-1",
    )


def _long_result() -> str:
    rows = "\n".join(f'  "key{i}": "value {i}",' for i in range(400))
    return f"Job-net nightly run nightly-1 ended SUCCEEDED.\n{FENCE}\n{{\n{rows}\n}}\n{FENCE}"


def _message_block(payload: dict[str, object]) -> str:
    return str(payload["blocks"][1]["text"]["text"])  # type: ignore[index]


def test_the_message_is_cut_at_max_chars_with_fences_balanced_everywhere() -> None:
    payload = slack_payload(_note(_long_result(), severity="info", outcome="SUCCEEDED"))
    section, fallback = _message_block(payload), str(payload["text"])
    assert SlackSettings().max_chars == 2000
    assert 1900 < len(section) <= 2000 + 20  # the emoji prefix
    assert "the rest is omitted" in section and "the rest is omitted" in fallback
    for text in (section, fallback):
        assert fences_balanced(text), text[-200:]

    shorter = slack_payload(_note(_long_result()), SlackSettings(max_chars=500))
    assert len(_message_block(shorter)) < 600
    assert fences_balanced(str(shorter["text"]))


def test_the_fallback_closes_a_fence_the_message_left_open() -> None:
    payload = slack_payload(_note(f"ended FAILED.\n{FENCE}\nstate Stop failed"))
    assert fences_balanced(str(payload["text"]))
    assert fences_balanced(_message_block(payload))


@pytest.mark.parametrize(
    ("options", "severity", "outcome", "expected"),
    [
        (SlackSettings(mention=("U024BE7LH",)), "error", "FAILED", "<@U024BE7LH> "),
        (SlackSettings(mention=("U024BE7LH",)), "info", "SUCCEEDED", ""),
        (
            SlackSettings(mention=("SAZ94GDB8", "W123ABC"), mention_on=("succeeded",)),
            "info",
            "SUCCEEDED",
            "<!subteam^SAZ94GDB8> <@W123ABC> ",
        ),
        (SlackSettings(mention=("here",), mention_on=("always",)), "info", "HEALED", "<!here> "),
        (SlackSettings(mention=("U1AB",), mention_on=("warning",)), "error", "FAILED", ""),
        (SlackSettings(), "error", "FAILED", ""),
    ],
    ids=["failure-default", "success-not", "per-outcome", "always", "only-warning", "nobody"],
)
def test_mentions_follow_the_outcome(
    options: SlackSettings, severity: str, outcome: str, expected: str
) -> None:
    payload = slack_payload(_note("boom", severity=severity, outcome=outcome), options)
    assert str(payload["text"]).startswith(expected + "cfnops job")
    assert _message_block(payload).startswith(expected)
    if not expected:
        assert "<@" not in json.dumps(payload) and "<!" not in json.dumps(payload)


def test_mention_ids_are_checked() -> None:
    with pytest.raises(InvalidSettings, match="mention: '@alice' is not a Slack member id"):
        validated(SlackSettings, {"mention": ["@alice"]})
    with pytest.raises(InvalidSettings, match="max_chars: must be a whole number greater than"):
        validated(SlackSettings, {"max_chars": 10})


def test_settings_from_the_environment_reach_the_webhook(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CFNOPS_NOTIFY__SLACK__MAX_CHARS", "300")
    monkeypatch.setenv("CFNOPS_NOTIFY__SLACK__MENTION", '["U024BE7LH"]')
    monkeypatch.setenv("CFNOPS_NOTIFY__SLACK_WEBHOOK_URL", URL)
    monkeypatch.setenv("CFNOPS_NOTIFY__CONSOLE", "false")
    settings = load_settings()
    transport = RecordingTransport()
    notify_all(_note(_long_result()), settings, transport=transport, sleep=lambda s: None)
    ((_url, raw, _headers),) = transport.requests
    body = json.loads(raw)
    assert body["text"].startswith("<@U024BE7LH> ")
    assert len(_message_block(body)) < 400


def test_heal_notifications_get_the_same_cut_and_mentions() -> None:
    from cfnops.heal._messages import change_set_failed, healed, note

    options = SlackSettings(mention=("U024BE7LH",), max_chars=300)
    failed = note(
        "CHANGE_SET_FAILED",
        change_set_failed("arn:stack/web", "arn:cs/1", "x" * 2000),
        severity="error",
        stack="web",
        stack_id="arn:stack/web",
        run_id="heal-web-1",
    )
    payload = slack_payload(failed, options)
    assert str(payload["text"]).startswith("<@U024BE7LH> ")
    assert len(_message_block(payload)) < 400
    ok = note(
        "HEALED", healed("arn:stack/web", "arn:cs/1"), severity="info", stack="web",
        stack_id="arn:stack/web", run_id="heal-web-2",
    )  # fmt: skip
    assert "<@" not in json.dumps(slack_payload(ok, options))

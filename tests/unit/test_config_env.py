"""CFNOPS_* environment variables: the rules cfnops._config_env applies."""

from __future__ import annotations

import pytest

from cfnops._config_env import env_settings
from cfnops.config import ConfigError, Settings, load_settings


@pytest.fixture(autouse=True)
def _clean(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> None:
    import os

    for key in list(os.environ):
        if key.upper().startswith("CFNOPS_"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(str(tmp_path))  # no cfnops.toml around


def test_nested_names_any_case_json_for_lists_and_sections() -> None:
    found = env_settings(
        Settings,
        {
            "cfnops_heal__drift_poll_seconds": "7",
            "CFNOPS_WORKER__WORKFLOW_MODULES": '["a", "b"]',
            "CFNOPS_NOTIFY__SLACK__MENTION": '["here"]',
            "CFNOPS_AWS": '{"region": "eu-west-1", "max_attempts": 3}',
            "CFNOPS_AWS__MAX_ATTEMPTS": "9",
            "CFNOPS_NOT_A_SETTING": "ignored",
            "OTHER": "ignored",
        },
    )
    assert found == {
        "heal": {"drift_poll_seconds": "7"},
        "worker": {"workflow_modules": ["a", "b"]},
        "notify": {"slack": {"mention": ["here"]}},
        "aws": {"region": "eu-west-1", "max_attempts": "9"},
    }


def test_arguments_beat_the_environment_section_by_section(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CFNOPS_AWS__REGION", "eu-west-1")
    monkeypatch.setenv("CFNOPS_AWS__MAX_ATTEMPTS", "9")
    settings = load_settings(aws={"region": "us-west-2"})
    assert (settings.aws.region, settings.aws.max_attempts) == ("us-west-2", 9)


def test_unknown_key_of_a_section_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CFNOPS_AWS__REGIONN", "eu-west-1")
    with pytest.raises(ConfigError, match=r"CFNOPS_AWS__REGIONN.*aws\.regionn: unknown setting"):
        load_settings()


def test_a_list_that_is_not_json_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CFNOPS_WORKER__WORKFLOW_MODULES", "my_module")
    with pytest.raises(ConfigError) as caught:
        load_settings()
    text = str(caught.value)
    assert "CFNOPS_WORKER__WORKFLOW_MODULES" in text and "not valid JSON" in text
    assert '["my_module"]' in text

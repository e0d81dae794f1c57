"""The quick region read agrees with the full settings model wherever it answers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cfnops._config_file import Unsure, peek_setting
from cfnops.config import load_settings


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for key in list(os.environ):
        if key.upper().startswith("CFNOPS_"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize(
    ("env", "toml"),
    [
        ({}, None),
        ({}, '[aws]\nregion = "eu-west-1"\n'),
        ({"CFNOPS_AWS__REGION": "ap-south-1"}, '[aws]\nregion = "eu-west-1"\n'),
        ({"cfnops_aws__region": "sa-east-1"}, None),
        ({}, '[aws]\nprofile = "p"\n'),
        ({}, "output = 'json'\n"),
    ],
    ids=["nothing", "file", "env-over-file", "env-lower-case", "other-key", "no-aws-table"],
)
def test_peek_equals_the_model(
    env: dict[str, str], toml: str | None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    if toml is not None:
        (tmp_path / "cfnops.toml").write_text(toml, encoding="utf-8")
    assert peek_setting(None, "aws", "region") == load_settings().aws.region


def test_json_section_variable_defers_to_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CFNOPS_AWS", '{"region": "us-west-2"}')
    with pytest.raises(Unsure):
        peek_setting(None, "aws", "region")


def test_cli_diff_uses_the_region_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from cfnops.cli.main import run

    template = tmp_path / "t.yaml"
    template.write_text("Resources:\n  B:\n    Type: AWS::S3::Bucket\n", encoding="utf-8")
    monkeypatch.setenv("CFNOPS_AWS__REGION", "eu-central-1")
    assert run(["diff", str(template), str(template), "--output", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["schema"]["region"] == "eu-central-1"

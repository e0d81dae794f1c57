"""``--exercise`` as a pre-deploy gate: the pre-commit hook and the Action pass it on."""

from __future__ import annotations

import os
import subprocess
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


def test_the_exercise_hook_runs_guard_with_the_sandbox_extra() -> None:
    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    hook = hooks["cfnops-guard-exercise"]
    assert hook["entry"] == "python -m cfnops.cli.hooks guard --exercise"
    assert hook["files"] == hooks["cfnops-guard"]["files"]
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert hook["additional_dependencies"] == extras["optional-dependencies"]["sandbox"]


def test_the_hook_entry_passes_exercise_to_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    from cfnops.cli import hooks

    seen: list[list[str]] = []

    def guard_files(files: list[str], extra: list[str]) -> int:
        seen.append([*files, *extra])
        return 0

    monkeypatch.setattr(hooks, "guard_files", guard_files)
    assert hooks.main(["guard", "--exercise", "stack.yaml"]) == 0
    assert seen == [["stack.yaml", "--exercise"]]


def _check(tmp_path: Path, exercise: str) -> list[str]:
    """Run action/check.sh in guard mode with a stand-in ``cfnops`` that logs its args."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(parents=True)
    log = tmp_path / "calls.log"
    fake = bin_dir / "cfnops"
    fake.write_text(f'#!/usr/bin/env bash\necho "$*" >> {log}\nexit 0\n')
    fake.chmod(0o755)
    (tmp_path / "t.yaml").write_text("Resources: {}\n")
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "RUNNER_TEMP": str(tmp_path / "runner"),
        "GITHUB_OUTPUT": str(tmp_path / "out"),
        "INPUT_MODE": "guard",
        "INPUT_TEMPLATES": "t.yaml",
        "INPUT_GUARD_EXERCISE": exercise,
    }
    subprocess.run(
        ["bash", str(ROOT / "action" / "check.sh")],
        cwd=tmp_path,
        env=env,
        check=True,
        capture_output=True,
    )
    return log.read_text().splitlines()


def test_the_action_passes_exercise_only_when_asked(tmp_path: Path) -> None:
    assert _check(tmp_path / "on", "true") == ["guard t.yaml --exercise -o sarif"]
    assert _check(tmp_path / "off", "false") == ["guard t.yaml -o sarif"]
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["inputs"]["guard-exercise"]["default"] == "false"
    steps = {s.get("name"): s for s in action["runs"]["steps"]}
    for name in ("Install cfnops", "Check templates"):
        assert steps[name]["env"]["INPUT_GUARD_EXERCISE"] == "${{ inputs.guard-exercise }}"

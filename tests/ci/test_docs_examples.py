"""docs/ci.md's configuration examples are what the hooks and the action accept."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
BLOCKS = re.findall(r"```yaml\n(.*?)```", (ROOT / "docs" / "ci.md").read_text(), re.S)


def test_precommit_config_example_uses_the_hooks_as_defined(tmp_path: Path) -> None:
    from pre_commit.clientlib import load_config

    example = next(b for b in BLOCKS if "pre-commit-config" in b)
    config_file = tmp_path / ".pre-commit-config.yaml"
    config_file.write_text(example)
    config = load_config(str(config_file))  # pre-commit's own schema check
    defined = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    used = [h["id"] for repo in config["repos"] for h in repo["hooks"]]
    assert used == ["cfnops-guard", "cfnops-diff"]
    assert set(used) <= set(defined)
    assert defined["cfnops-diff"]["args"] == ["--git-ref", "HEAD", "--fail-on", "replace"]


def test_workflow_example_passes_inputs_the_action_declares() -> None:
    example = yaml.safe_load(next(b for b in BLOCKS if "workflows" in b))
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    steps = example["jobs"]["cfnops"]["steps"]
    ours = next(s for s in steps if s["uses"].startswith("cfnops/cfnops@"))
    assert set(ours["with"]) <= set(action["inputs"])
    assert ours["with"]["mode"] in ("diff", "guard", "both")
    assert example["permissions"]["security-events"] == "write"
    assert steps[0]["with"]["fetch-depth"] == 0


def test_hooks_bring_the_sam_translator_of_the_sam_extra() -> None:
    """pre-commit installs the hooks' own environment: SAM templates need no extra setup."""
    import tomllib

    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    for hook in hooks:
        if hook["id"] in ("cfnops-diff", "cfnops-guard"):
            assert hook["additional_dependencies"] == extra["sam"], hook["id"]

"""The hooks of ``.pre-commit-hooks.yaml`` run by ``pre-commit try-repo`` on a temporary
git repository: a replacing edit fails ``cfnops-diff``, a safe edit passes; an unstable
handler fails ``cfnops-guard`` when only its code changed.

pre-commit installs this repository into its own virtualenv (about 90 s the first
time): the hooks repository is a clean commit of the working tree, so the second and
later runs reuse that environment.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run([*GIT, *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout


@pytest.fixture(scope="module")
def hooks_repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """A one-commit copy of this working tree (tracked and new files) and a pre-commit home."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    base = tmp_path_factory.mktemp("hooks")
    repo = base / "cfnops"
    listed = _git(ROOT, "ls-files", "-z", "-co", "--exclude-standard").split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, repo / name)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "hooks under test")
    yield repo, base / "pre-commit-home"


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    _git(project, "init", "-q", "-b", "main")
    return project


def _try(hooks: tuple[Path, Path], project: Path, hook: str, *files: str) -> tuple[int, str]:
    repo, home = hooks
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CFNOPS_", "VIRTUAL_ENV"))}
    env.update(PRE_COMMIT_HOME=str(home), NO_COLOR="1", COLUMNS="200")
    bindir = str(Path(sys.executable).parent)  # pre-commit of this venv
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(repo), hook, "--files", *files],
        cwd=project,
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
        check=False,
    )
    return done.returncode, done.stdout + done.stderr


TEMPLATE = """\
Resources:
  Bucket:
    Type: AWS::S3::Bucket
    Properties: {BucketName: reports-one}
  Queue:
    Type: AWS::SQS::Queue
    Properties: {VisibilityTimeout: 30}
"""


def test_cfnops_diff_fails_a_replacing_edit_and_passes_a_safe_one(
    hooks_repo: tuple[Path, Path], tmp_path: Path
) -> None:
    project = _project(tmp_path)
    (project / "stack.yaml").write_text(TEMPLATE)
    _git(project, "add", ".")
    _git(project, "commit", "-q", "-m", "base")

    (project / "stack.yaml").write_text(TEMPLATE.replace("reports-one", "reports-two"))
    _git(project, "add", ".")
    code, out = _try(hooks_repo, project, "cfnops-diff", "stack.yaml")
    assert code == 1, out
    assert "Failed" in out and "--fail-on replace tripped: Bucket (WILL_REPLACE)" in out

    (project / "stack.yaml").write_text(TEMPLATE.replace("30", "60"))
    _git(project, "add", ".")
    code, out = _try(hooks_repo, project, "cfnops-diff", "stack.yaml")
    assert code == 0, out
    assert "Passed" in out


GUARDED = """\
Transform: AWS::Serverless-2016-10-31
Resources:
  Thing:
    Type: Custom::Thing
    Properties:
      ServiceToken: !GetAtt Handler.Arn
  Handler:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: python3.12
      Handler: index.handler
      CodeUri: handler/
"""
STABLE = 'def handler(event, context):\n    return {"PhysicalResourceId": "fixed"}\n'
UNSTABLE = (
    "import uuid\n\n\ndef handler(event, context):\n"
    '    return {"PhysicalResourceId": str(uuid.uuid4())}\n'
)


def test_cfnops_guard_checks_templates_and_handler_code(
    hooks_repo: tuple[Path, Path], tmp_path: Path
) -> None:
    project = _project(tmp_path)
    (project / "handler").mkdir()
    (project / "handler" / "index.py").write_text(STABLE)
    (project / "custom.yaml").write_text(GUARDED)
    (project / "README.md").write_text("not a template\n")
    _git(project, "add", ".")
    code, out = _try(hooks_repo, project, "cfnops-guard", "custom.yaml")
    assert code == 0, out
    assert "Passed" in out

    # only the handler's code changes: the hook guards the template that uses it
    (project / "handler" / "index.py").write_text(UNSTABLE)
    _git(project, "add", ".")
    code, out = _try(hooks_repo, project, "cfnops-guard", "handler/index.py")
    assert code == 1, out
    assert "CR002 Thing handler/index.py:5" in out


SAM_APP = """\
AWSTemplateFormatVersion: "2010-09-09"
Transform: AWS::Serverless-2016-10-31
Resources:
  Api:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: python3.13
      Handler: index.handler
      InlineCode: "def handler(event, context):\\n    return {'ok': True}\\n"
      MemorySize: 128
  Sessions:
    Type: AWS::Serverless::SimpleTable
"""


def _docs_config(hooks_repo: tuple[Path, Path]) -> str:
    """docs/ci.md's ``.pre-commit-config.yaml``, aimed at this repository's commit: the
    documented ``repo:`` is where cfnops will be published, and ``rev:`` names a commit
    SHA, as the page says to until a release is tagged (no network: a local clone)."""
    from tests.ci.test_docs_examples import BLOCKS

    repo, _home = hooks_repo
    example = next(b for b in BLOCKS if "pre-commit-config" in b)
    sha = _git(repo, "rev-parse", "HEAD").strip()
    lines = []
    for line in example.splitlines():
        key = line.strip().removeprefix("- ").split(":", 1)[0]
        indent = line[: len(line) - len(line.lstrip())]
        if key == "repo":
            line = f"{indent}- repo: {repo}"
        elif key == "rev":
            line = f"{indent}rev: {sha}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def test_pre_commit_run_with_the_docs_config_on_a_sam_repository(
    hooks_repo: tuple[Path, Path], tmp_path: Path
) -> None:
    """``pre-commit run`` as a project runs it: docs/ci.md's config, a SAM template."""
    _repo, home = hooks_repo
    project = _project(tmp_path)
    (project / ".pre-commit-config.yaml").write_text(_docs_config(hooks_repo))
    (project / "template.yaml").write_text(SAM_APP)
    _git(project, "add", ".")
    _git(project, "commit", "-q", "-m", "base")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CFNOPS_", "VIRTUAL_ENV"))}
    env.update(PRE_COMMIT_HOME=str(home), NO_COLOR="1", COLUMNS="200")
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")

    def run() -> tuple[int, str]:
        done = subprocess.run(
            [sys.executable, "-m", "pre_commit", "run"],  # the staged files, as on commit
            cwd=project, capture_output=True, text=True, env=env, timeout=900, check=False,
        )  # fmt: skip
        return done.returncode, done.stdout + done.stderr

    (project / "template.yaml").write_text(SAM_APP.replace("128", "256"))  # in place
    _git(project, "add", ".")
    code, out = run()
    assert code == 0, out
    assert "cfnops guard" in out and "cfnops diff" in out
    assert out.count("Passed") == 2, out
    assert "SAM translator is not installed" not in out and "skipped" not in out.lower()

    # the docs' gate is --fail-on destroy: removing the SAM table deletes a DynamoDB table
    removed = SAM_APP.split("  Sessions:")[0].replace("128", "256")
    (project / "template.yaml").write_text(removed)
    _git(project, "add", ".")
    code, out = run()
    assert code == 1, out
    assert "--fail-on destroy tripped" in out and "Sessions" in out, out

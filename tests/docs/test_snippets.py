"""Every ```python block of docs/*.md runs, as written, in a fresh interpreter.

A block that needs AWS, a running sandbox or a previous block's state is marked
with ``<!-- snippet: skip (reason) -->`` on the line right before its fence; it
is reported as skipped with that reason (``pytest -rs`` lists them). Blocks run
offline in a temporary directory holding the files the docs name (``old.yaml``,
``new.yaml``, ``template.yaml``, ``stack.yaml``, the repository's ``examples/``), with a
temporary database.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
SKIP = re.compile(r"<!--\s*snippet:\s*skip\s*\((?P<reason>[^)]*)\)\s*-->")

OLD = """\
Resources:
  Bucket:
    Type: AWS::S3::Bucket
    Properties:
      BucketName: logs-old
"""
NEW = OLD.replace("logs-old", "logs-new")
CUSTOM = """\
Resources:
  MyCustomResource:
    Type: Custom::Thing
    Properties:
      ServiceToken: !GetAtt Handler.Arn
  Handler:
    Type: AWS::Lambda::Function
    Properties:
      Runtime: python3.12
      Handler: index.handler
      Code: build
"""


@dataclass(frozen=True)
class Snippet:
    page: str
    line: int
    code: str
    skip: str | None


def snippets() -> list[Snippet]:
    found: list[Snippet] = []
    for page in sorted(DOCS.glob("*.md")):
        lines = page.read_text(encoding="utf-8").splitlines()
        i = 0
        while i < len(lines):
            if lines[i].strip() == "```python":
                start = i
                end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
                before = next((lines[k] for k in range(start - 1, -1, -1) if lines[k].strip()), "")
                mark = SKIP.search(before)
                code = "\n".join(lines[start + 1 : end]) + "\n"
                found.append(
                    Snippet(page.name, start + 1, code, mark.group("reason") if mark else None)
                )
                i = end
            i += 1
    return found


ALL = snippets()


def test_the_docs_have_python_snippets() -> None:
    assert len(ALL) >= 10


@pytest.mark.parametrize("snippet", ALL, ids=[f"{s.page}:{s.line}" for s in ALL])
def test_snippet_runs(snippet: Snippet, tmp_path: Path) -> None:
    if snippet.skip is not None:
        pytest.skip(f"{snippet.page}:{snippet.line}: {snippet.skip}")
    (tmp_path / "old.yaml").write_text(OLD)
    (tmp_path / "new.yaml").write_text(NEW)
    (tmp_path / "stack.yaml").write_text(OLD.replace("Bucket:", "Bucket:", 1))
    (tmp_path / "template.yaml").write_text(CUSTOM)
    (tmp_path / "build").mkdir()
    (tmp_path / "examples").symlink_to(DOCS.parent / "examples")  # job-nets and their mocks
    (tmp_path / "build" / "index.py").write_text(
        "def handler(event, context):\n    return {'PhysicalResourceId': 'fixed'}\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CFNOPS_", "AWS_"))}
    env.update(
        CFNOPS_DATABASE_URL=f"sqlite:///{tmp_path / 'cfnops.sqlite'}",
        XDG_STATE_HOME=str(tmp_path / "state"),
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_DEFAULT_REGION="us-east-1",
        CFNOPS_AWS__MAX_ATTEMPTS="1",
        CFNOPS_AWS__CONNECT_TIMEOUT="1",
    )
    done = subprocess.run(
        [sys.executable, "-c", snippet.code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, f"{snippet.page}:{snippet.line} failed:\n{done.stderr[-3000:]}"

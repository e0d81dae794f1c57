"""action.yml's steps run locally as the runner would run them, in order: each ``run:``
step through bash with its ``env:`` (``${{ … }}`` filled from the inputs, the step
outputs so far and a pull-request event), against a loopback GitHub API that records the
comment calls. ``uses:`` steps (setup-python, the SARIF upload) are GitHub's own; the
SARIF they would upload is validated against the SARIF 2.1.0 schema instead.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from tests.ci.github_sarif import problems

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "tests" / "diff" / "data" / "sarif-2.1.0-rtm.5.json").read_text())
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


class FakeGitHub:
    """Issue comments of one pull request, as the REST API serves them."""

    def __init__(self) -> None:
        self.comments: list[dict[str, Any]] = []
        self.calls: list[tuple[str, str, str | None]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, body: Any) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _body(self) -> dict[str, Any]:
                return json.loads(self.rfile.read(int(self.headers["Content-Length"])))

            def do_GET(self) -> None:
                outer.calls.append(("GET", self.path, self.headers.get("Authorization")))
                page = int(re.search(r"[?&]page=(\d+)", self.path).group(1))  # type: ignore[union-attr]
                self._send(200, outer.comments[(page - 1) * 100 : page * 100])

            def do_POST(self) -> None:
                outer.calls.append(("POST", self.path, self.headers.get("Authorization")))
                comment = {"id": 1000 + len(outer.comments), "body": self._body()["body"]}
                outer.comments.append(comment)
                self._send(201, comment)

            def do_PATCH(self) -> None:
                outer.calls.append(("PATCH", self.path, self.headers.get("Authorization")))
                cid = int(self.path.rsplit("/", 1)[1])
                comment = next(c for c in outer.comments if c["id"] == cid)
                comment["body"] = self._body()["body"]
                self._send(200, comment)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    fake = FakeGitHub()
    thread = threading.Thread(target=fake.server.serve_forever, daemon=True)
    thread.start()
    yield fake
    fake.server.shutdown()
    fake.server.server_close()


def _git(cwd: Path, *args: str) -> None:
    subprocess.run([*GIT, *args], cwd=cwd, check=True, capture_output=True)


def _evaluate(expr: str, ctx: dict[str, Any]) -> Any:
    """The few expression forms action.yml uses: names, ==, !=, &&, always()."""
    parts = [p.strip() for p in expr.split("&&")]
    values = []
    for part in parts:
        if part == "always()":
            values.append(True)
        elif "!=" in part:
            left, right = (s.strip() for s in part.split("!="))
            values.append(str(ctx.get(left, "")) != right.strip("'"))
        elif "==" in part:
            left, right = (s.strip() for s in part.split("=="))
            values.append(str(ctx.get(left, "")) == right.strip("'"))
        else:
            values.append(ctx.get(part, ""))
    if len(values) == 1:
        return values[0]
    return all(bool(v) for v in values)


def run_action(
    workspace: Path, inputs: dict[str, str], github: FakeGitHub, tmp: Path
) -> tuple[int, dict[str, str], list[str]]:
    """Run action.yml's steps; return the last step's exit code, the check outputs and
    the ``uses:`` steps skipped."""
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    values: dict[str, Any] = {"github.token": "ghs_secret-test-token"}
    for name, spec in action["inputs"].items():  # a default may be an expression
        default = str(spec.get("default", ""))
        values[f"inputs.{name}"] = EXPR.sub(lambda m: str(values.get(m.group(1), "")), default)
    values.update({f"inputs.{k}": v for k, v in inputs.items()})
    values["github.event.pull_request.number"] = "7"
    event = tmp / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 7}}))
    out_file = tmp / "github_output"
    out_file.write_text("")
    runner_temp = tmp / "runner"
    runner_temp.mkdir(exist_ok=True)
    base_env = {k: v for k, v in os.environ.items() if not k.startswith(("CFNOPS_", "GITHUB_"))}
    base_env.update(
        PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"],
        GITHUB_ACTION_PATH=str(ROOT),
        GITHUB_OUTPUT=str(out_file),
        GITHUB_EVENT_PATH=str(event),
        GITHUB_REPOSITORY="acme/infra",
        GITHUB_API_URL=github.url,
        GITHUB_BASE_REF="main",
        RUNNER_TEMP=str(runner_temp),
        NO_COLOR="1",
    )
    skipped: list[str] = []
    code = 0
    for step in action["runs"]["steps"]:
        for line in out_file.read_text().splitlines():
            key, _, value = line.partition("=")
            values[f"steps.check.outputs.{key}"] = value
        condition = step.get("if")
        if condition and not _evaluate(EXPR.sub(r"\1", condition), values):
            continue
        if "uses" in step:
            skipped.append(step["uses"])
            continue
        env = dict(base_env)
        for key, value in (step.get("env") or {}).items():
            env[key] = EXPR.sub(lambda m: str(_evaluate(m.group(1), values)), str(value))
        done = subprocess.run(
            ["bash", "-c", step["run"]],
            cwd=workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert "ghs_secret-test-token" not in done.stdout + done.stderr
        code = done.returncode
        if step.get("name") != "Result":
            assert code == 0, f"{step.get('name')}: {done.stdout}\n{done.stderr}"
    outputs = dict(line.partition("=")[::2] for line in out_file.read_text().splitlines())
    return code, outputs, skipped


TEMPLATE = """\
Resources:
  Bucket:
    Type: AWS::S3::Bucket
    Properties: {BucketName: reports-one}
  Queue:
    Type: AWS::SQS::Queue
    Properties: {VisibilityTimeout: 30}
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A pull-request checkout: origin/main has the template, HEAD changes it."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    upstream = tmp_path / "upstream"
    (upstream / "infra").mkdir(parents=True)
    _git(upstream, "init", "-q", "-b", "main")
    (upstream / "infra" / "stack.yaml").write_text(TEMPLATE)
    (upstream / "README.md").write_text("infra\n")
    _git(upstream, "add", ".")
    _git(upstream, "commit", "-q", "-m", "base")
    checkout = tmp_path / "checkout"
    _git(tmp_path, "clone", "-q", str(upstream), str(checkout))
    _git(checkout, "checkout", "-q", "-b", "pr")
    return checkout


def test_action_steps_report_gate_sarif_and_one_comment(
    workspace: Path, github: FakeGitHub, tmp_path: Path
) -> None:
    stack = workspace / "infra" / "stack.yaml"
    stack.write_text(TEMPLATE.replace("reports-one", "reports-two"))
    (workspace / "README.md").write_text("changed, not a template\n")
    # a second changed template: guard checks two files, GitHub still gets one guard run
    shutil.copy(
        ROOT / "tests" / "guard" / "fixtures" / "cr001_node_inline" / "template.yaml",
        workspace / "infra" / "settings.yaml",
    )
    _git(workspace, "add", ".")
    _git(workspace, "commit", "-qam", "rename the bucket")

    code, outputs, skipped = run_action(
        workspace, {"install": "none", "mode": "both"}, github, tmp_path
    )
    assert code == 1  # the replacement trips --fail-on replace: the job fails, last
    assert outputs["exit-code"] == "1"
    assert [s.split("@")[0] for s in skipped] == [
        "actions/setup-python",
        "actions/cache",
        "github/codeql-action/upload-sarif",
    ]
    # what the upload step sends: one run per tool, each with its own category
    folder = Path(outputs["sarif"])
    assert sorted(p.name for p in folder.iterdir()) == ["diff.sarif", "guard.sarif"]
    logs = [json.loads((folder / name).read_text()) for name in ("diff.sarif", "guard.sarif")]
    for log in logs:
        jsonschema.validate(log, SCHEMA)
    assert [len(log["runs"]) for log in logs] == [1, 1]
    ids = [log["runs"][0]["automationDetails"]["id"] for log in logs]
    assert ids == ["cfnops/diff/", "cfnops/guard/"]
    assert problems(logs) == []  # GitHub's rules, tests/ci/github_sarif.py
    guard_results = logs[1]["runs"][0]["results"]
    assert {r["ruleId"] for r in guard_results} == {"CR001"}
    assert {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in guard_results
    } == {"infra/settings.yaml"}
    sarif = logs[0]
    [result] = [r for r in sarif["runs"][0]["results"] if "stack.yaml" in json.dumps(r)]
    assert result["ruleId"] == "CFNOPS-D001"
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "infra/stack.yaml"
    assert location["region"]["startLine"] == 2

    [comment] = github.comments
    assert comment["body"].startswith("<!-- cfnops-report -->")
    assert "| `Bucket` | `AWS::S3::Bucket` | 🔴 requires replacement |" in comment["body"]
    assert all(auth == "Bearer ghs_secret-test-token" for _, _, auth in github.calls)

    # a second push makes the change safe: the same comment is updated, the job passes
    stack.write_text(TEMPLATE.replace("30", "60"))
    _git(workspace, "commit", "-qam", "keep the name, tune the queue")
    code, outputs, _ = run_action(workspace, {"install": "none"}, github, tmp_path)
    assert code == 0 and outputs["exit-code"] == "0"
    [comment] = github.comments
    assert "requires replacement" not in comment["body"]
    assert "`Queue`" in comment["body"]
    assert [c[0] for c in github.calls if c[0] != "GET"] == ["POST", "PATCH"]


def test_action_on_two_cloud_assemblies(
    workspace: Path, github: FakeGitHub, tmp_path: Path
) -> None:
    cdk = ROOT / "examples" / "cdk"
    inputs = {
        "install": "none",
        "assembly": str(cdk / "v2" / "cdk.out"),
        "base-assembly": str(cdk / "v1" / "cdk.out"),
        "fail-on": "destroy",
        "comment": "false",
    }
    code, outputs, _ = run_action(workspace, inputs, github, tmp_path)
    assert code == 1  # LegacyStack's topic is destroyed
    report = Path(outputs["report"]).read_text()
    assert "| `AppStack/DbNested` | changed | 1 |" in report
    assert github.calls == []  # comment: false
    jsonschema.validate(json.loads((Path(outputs["sarif"]) / "diff.sarif").read_text()), SCHEMA)


def test_action_runs_job_net_tests_with_junit_reports(
    workspace: Path, github: FakeGitHub, tmp_path: Path
) -> None:
    jobnets = workspace / "jobnets"
    jobnets.mkdir()
    for name in ("webapp-stop.asl.json", "webapp-stop.mocks.json"):
        shutil.copy(ROOT / "examples" / "jobnets" / name, jobnets / name)
    inputs = {"install": "none", "job-tests": "jobnets/*.mocks.json", "comment": "false"}
    code, outputs, _ = run_action(workspace, inputs, github, tmp_path)
    assert code == 0, Path(outputs["report"]).read_text()
    suite = Path(outputs["junit"]) / "webapp-stop.xml"
    assert 'tests="3" failures="0" errors="0"' in suite.read_text()
    assert "3 cases: 3 passed, 0 failed" in Path(outputs["report"]).read_text()
    mocks = json.loads((jobnets / "webapp-stop.mocks.json").read_text())
    mocks["cfnops"]["StateMachines"]["webapp-stop"]["TestCases"]["HappyPath"]["status"] = "FAILED"
    (jobnets / "webapp-stop.mocks.json").write_text(json.dumps(mocks))
    code, outputs, _ = run_action(workspace, inputs, github, tmp_path)
    assert code == 1 and outputs["exit-code"] == "1"
    assert 'failures="1"' in (Path(outputs["junit"]) / "webapp-stop.xml").read_text()


def test_third_party_actions_are_pinned_by_commit_with_their_version() -> None:
    lines = [ln for ln in (ROOT / "action.yml").read_text().splitlines() if "uses:" in ln]
    assert len(lines) == 3
    for line in lines:
        found = re.search(r"uses:\s*([\w./-]+)@([0-9a-f]{40}) # v\d+\.\d+\.\d+$", line)
        assert found, line
    assert any("github/codeql-action/upload-sarif@" in ln and "# v4." in ln for ln in lines)

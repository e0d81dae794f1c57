"""The job-net designer in a real Chromium: build, check, save, validate and run a job-net.

From an empty canvas, with the palette and the forms only (no JSON typed into the
definition): RunCommand on two instances with its polling loop → Choice on the command
status → Parallel (deregister the targets | stop the database) → Succeed, with Retry and a
Catch to a Fail. The saved file passes ``cfnops job validate --strict`` and ``cfnops job
run`` succeeds on the sandbox. Once with the mouse (the first part dragged onto the
canvas), once with the keyboard only. Screenshots go to ``$CFNOPS_TEST_ARTIFACTS``.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.console._browser import (
    TOKEN,
    UNNAMED_CONTROLS,
    ConsoleProcess,
    shot,
    wait_until,
)
from tests.heal._proc import SandboxProcess, env_for

pytestmark = pytest.mark.slow
playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / ".." / "shared" / "conformance" / "asl" / "cases"
TYPO = "$.Execution.Input.Input.TargetAlb.TargetGroup."
SAMPLE = {
    "instanceIds": ["i-0123456789abcdef0", "i-0fedcba9876543210"],
    "targetGroupArn": "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/web/0123",
    "targets": [{"Id": "i-0123456789abcdef0"}, {"Id": "i-0fedcba9876543210"}],
    "clusterId": "web-db",
}


@pytest.fixture(scope="module")
def sandbox() -> Iterator[SandboxProcess]:
    box = SandboxProcess()
    yield box
    box.stop()


@pytest.fixture
def console(
    tmp_path: Path, sandbox: SandboxProcess, monkeypatch: pytest.MonkeyPatch
) -> Iterator[ConsoleProcess]:
    monkeypatch.chdir(tmp_path)
    env = env_for(sandbox, tmp_path / "runs.sqlite")
    # The definition roots: the test's folder (saves) and the examples it reopens.
    env["CFNOPS_CONSOLE__DEFINITION_ROOTS"] = json.dumps([str(tmp_path), str(ROOT / "examples")])
    process = ConsoleProcess(env)
    yield process
    process.stop()


@pytest.fixture
def page(browser: Any, console: ConsoleProcess) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1500, "height": 1100})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{console.url}/login?token={TOKEN}")
    yield page
    context.close()
    assert errors == [], errors


class Mouse:
    """Clicks, fills and picks like a user with a mouse."""

    def __init__(self, page: Any) -> None:
        self.page = page

    def press(self, target: Any) -> None:
        target.click()

    def fill(self, target: Any, text: str) -> None:
        target.fill(text)

    def pick(self, target: Any, value: str) -> None:
        target.select_option(value)

    def tick(self, target: Any) -> None:
        target.check()

    def commit(self, target: Any) -> None:
        target.dispatch_event("change")


class Keyboard(Mouse):
    """The same steps with the keyboard only: focus, keys and typing."""

    def press(self, target: Any) -> None:
        target.focus()
        self.page.keyboard.press("Enter")

    def fill(self, target: Any, text: str) -> None:
        target.focus()
        self.page.keyboard.press("Control+A")
        self.page.keyboard.press("Delete")
        self.page.keyboard.type(text)

    def pick(self, target: Any, value: str) -> None:
        target.focus()
        self.page.keyboard.type(value)  # type-ahead on a focused <select>
        assert target.input_value() == value

    def tick(self, target: Any) -> None:
        target.focus()
        self.page.keyboard.press("Space")

    def commit(self, target: Any) -> None:
        target.focus()
        self.page.keyboard.press("Tab")


def _state(page: Any, name: str) -> Any:
    return page.locator(f'#d-states button[data-state="{name}"]')


def _part(page: Any, kind: str) -> Any:
    return page.locator(f'#d-parts button[data-part="{kind}"]')


def _form(page: Any) -> Any:
    return page.locator("#d-form")


def _checked(page: Any) -> None:
    """Wait for the data-flow check that follows the last edit."""
    wait_until(
        page,
        "() => { const g = document.getElementById('d-graph').dataset;"
        " return g.checked && !g.pending; }",
    )


def _sdk(page: Any, ui: Mouse, service: str, action: str, params: dict[str, str]) -> None:
    form = _form(page)
    ui.fill(form.get_by_label("Service", exact=True), service)
    ui.commit(form.get_by_label("Service", exact=True))
    wait_until(
        page,
        "(a) => [...document.querySelectorAll('#d-form select option')].some(o => o.value === a)",
        arg=action,
    )
    ui.pick(form.get_by_label("Action", exact=True), action)
    for name, path in params.items():
        label = f"{name} comes from a path"
        form.get_by_label(label).wait_for()
        ui.tick(form.get_by_label(label))
        ui.fill(form.get_by_label(f"{name} (required)", exact=False).first, path)


def _select(page: Any, ui: Mouse, name: str) -> None:
    """Select a state in the list once the last edit has been laid out and checked (the
    list is drawn again after each edit: a click on the old drawing selects nothing),
    and see it selected."""
    _checked(page)
    ui.press(_state(page, name))
    wait_until(
        page,
        '(n) => document.querySelector(`#d-states button[data-state="${n}"]`)'
        "?.getAttribute('aria-pressed') === 'true'",
        arg=name,
    )


def _build(page: Any, ui: Mouse, drag: bool) -> None:
    """The Done-when job-net, from an empty canvas, palette and forms only."""
    form = _form(page)
    if drag:
        _part(page, "runCommand").drag_to(page.locator("#d-graph"))
    else:
        ui.press(_part(page, "runCommand"))
    _state(page, "RunCommand").wait_for()
    ui.fill(form.get_by_label("Commands (one per line)"), "systemctl stop httpd")
    ui.fill(form.get_by_label("Poll every (seconds)"), "1")
    ui.press(_part(page, "choice"))  # after the loop: the command's status is known here
    ui.press(_part(page, "parallel"))
    _select(page, ui, "Parallel")
    ui.press(_part(page, "succeed"))
    ui.press(_part(page, "fail"))  # after Succeed: placed, not connected
    _select(page, ui, "Branch1Step")
    ui.press(_part(page, "sdk"))
    _sdk(page, ui, "elasticloadbalancingv2", "deregisterTargets",
         {"TargetGroupArn": "$.targetGroupArn", "Targets": "$.targets"})  # fmt: skip
    _select(page, ui, "Branch2Step")
    ui.press(_part(page, "sdk"))
    _sdk(page, ui, "rds", "stopDBCluster", {"DBClusterIdentifier": "$.clusterId"})
    _select(page, ui, "Choice")
    ui.press(form.get_by_role("button", name="Add rule"))
    ui.fill(form.get_by_label("Variable (path)"), "$.command.Status")
    ui.fill(form.get_by_label("Value", exact=True), "Success")
    ui.pick(form.get_by_label("Rule 1: go to"), "Parallel")
    ui.pick(form.get_by_label("Otherwise go to (Default)"), "Fail")
    _select(page, ui, "Parallel")
    ui.press(form.get_by_role("button", name="Add retry rule"))
    ui.press(form.get_by_role("button", name="Add catch rule"))
    assert form.get_by_label("Catch rule 1: go to").input_value() == "Fail"
    ui.fill(page.get_by_label("Sample input (JSON)"), json.dumps(SAMPLE))
    _checked(page)


def _run_on_sandbox(sandbox: SandboxProcess, db: Path, path: Path) -> dict[str, Any]:
    from cfnops.aws import AwsClients
    from cfnops.config import load_settings
    from cfnops.demo.websystem import build_web_system

    os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
    settings = load_settings(aws={"endpoint_url": sandbox.url, "region": "us-east-1"})
    value = build_web_system(AwsClients(settings.aws), wait_seconds=1)
    value["targets"] = [{"Id": i} for i in value["instanceIds"]]
    env = env_for(sandbox, db)
    run = [sys.executable, "-m", "cfnops", "job", "run", str(path), "--output", "json"]
    done = subprocess.run(
        [*run, "--input", json.dumps(value)], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _validate_strict(path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cfnops", "job", "validate", "--strict", str(path)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "valid" in done.stdout


@pytest.mark.parametrize(
    ("ui_kind", "name"), [(Mouse, "mouse"), (Keyboard, "keyboard")], ids=["mouse", "keyboard"]
)
def test_build_save_validate_and_run_from_an_empty_canvas(
    page: Any,
    console: ConsoleProcess,
    sandbox: SandboxProcess,
    tmp_path: Path,
    ui_kind: Callable[[Any], Mouse],
    name: str,
) -> None:
    ui = ui_kind(page)
    page.goto(f"{console.url}/designer")
    page.locator("#d-parts button").first.wait_for()
    assert page.evaluate("Object.keys(cfnopsDesigner.state.data.States).length") == 0
    _build(page, ui, drag=name == "mouse")
    check = page.evaluate("cfnopsDesigner.state.check")
    assert check["ok"], check["findings"]
    assert not [f for f in check["findings"] if f["severity"] == "error"]
    page.locator("#d-flow").check() if name == "mouse" else ui.tick(page.locator("#d-flow"))
    labels = page.evaluate("cfnopsDesignerGraph.edges().map(e => e.data('label'))")
    assert any(str(x).startswith("{instanceIds: [string]") for x in labels), labels
    poll = "/States/RunCommandPoll/Next->/States/RunCommandDone"
    shape = page.evaluate(f"cfnopsDesigner.state.check.edgesById['{poll}'].shape[0]")
    assert "command: {CommandId: string, Status: string}" in shape
    assert shape in page.locator("#d-arrows").text_content()
    ui.press(page.get_by_role("button", name="Validate strict"))
    page.locator("#d-strict-result").wait_for()
    assert "Strict validation passed" in page.locator("#d-strict-result").text_content()
    assert page.evaluate(UNNAMED_CONTROLS) == []
    ui.press(page.get_by_role("button", name="Auto-layout"))
    shot(page, f"designer-built-{name}")
    ui.fill(page.get_by_label("Save as", exact=False), f"stop-web-{name}.asl.json")
    ui.press(page.get_by_role("button", name="Save"))
    wait_until(page, "() => document.getElementById('d-status').dataset.saved")
    saved = tmp_path / f"stop-web-{name}.asl.json"
    definition = json.loads(saved.read_text())
    assert definition == page.evaluate("cfnopsDesigner.state.data")
    loop = ["RunCommand", "RunCommandWait", "RunCommandPoll", "RunCommandDone"]
    assert list(definition["States"])[:4] == loop
    assert definition["States"]["RunCommandDone"]["Default"] == "Choice"
    assert definition["States"]["Parallel"]["Catch"][0]["Next"] == "Fail"
    _validate_strict(saved)
    result = _run_on_sandbox(sandbox, tmp_path / "cli.sqlite", saved)
    assert result["status"] == "SUCCEEDED", result


def test_a_trailing_dot_is_flagged_in_the_form_and_on_the_arrow(
    page: Any, console: ConsoleProcess
) -> None:
    ui = Mouse(page)
    page.goto(f"{console.url}/designer")
    ui.press(_part(page, "pass"))
    form = _form(page)
    ui.fill(form.get_by_label("New parameter name"), "targetGroupArn")
    ui.press(form.get_by_role("button", name="Add parameter"))
    ui.tick(form.get_by_label("targetGroupArn comes from a path"))
    ui.fill(form.get_by_label("targetGroupArn", exact=True), TYPO)
    pointer = "/States/Pass/Parameters/targetGroupArn.$"
    error = form.locator(".field-error")
    error.wait_for()
    assert pointer in error.text_content() and "remove the trailing dot" in error.text_content()
    field = form.get_by_label("targetGroupArn", exact=True)
    assert field.get_attribute("aria-invalid") == "true"
    arrow = page.locator("#d-arrows li.bad")
    assert pointer in arrow.text_content()
    assert page.evaluate("cfnopsDesignerGraph.edges('.bad').map(e => e.data('label'))") == [
        f"✘ {pointer}"
    ]
    shot(page, "designer-typo")
    ui.fill(field, TYPO.rstrip("."))  # valid now, but the sample input lacks it
    wait_until(
        page,
        "() => /selects nothing/.test(document.querySelector('#d-form .field-error').textContent)",
    )
    sample = {"Execution": {"Input": {"Input": {"TargetAlb": {"TargetGroup": "arn:tg"}}}}}
    ui.fill(page.get_by_label("Sample input (JSON)"), json.dumps(sample))
    wait_until(page, "() => !document.querySelector('#d-arrows li.bad')")
    assert form.locator(".field-error").count() == 0
    assert "parent" not in page.locator("#d-arrows").text_content()
    assert "Execution: {Input:" in page.locator("#d-arrows").text_content()


BOXES_HOLD_MEMBERS = """() => cfnopsDesignerGraph.nodes().every((n) => {
    if (!n.data('in')) return true;
    const only = {includeLabels: false}, m = n.boundingBox(only);
    const box = cfnopsDesignerGraph.getElementById(n.data('in')).boundingBox(only);
    return box.x1 <= m.x1 && m.x2 <= box.x2 && box.y1 <= m.y1 && m.y2 <= box.y2;
})"""


def test_open_and_save_without_edits_and_the_drawing_of_every_definition(
    page: Any, console: ConsoleProcess, tmp_path: Path
) -> None:
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    for source in sorted((ROOT / "examples").glob("**/*.asl.json")):
        asked.clear()
        page.goto(f"{console.url}/designer?path={source}")
        wait_until(page, "() => document.getElementById('d-graph').dataset.shown")
        # Drawn from the page alone: its first check came with it, no request asked for one.
        assert not [u for u in asked if "/designer/api/" in u]
        assert page.evaluate("cfnopsDesignerGraph.nodes().filter((n) => !n.visible()).length") == 0
        # Each group box (RunCommand part, Map, Parallel branch) encloses its members.
        assert page.evaluate(BOXES_HOLD_MEMBERS), source.name
        page.get_by_label("Save as", exact=False).fill(f"copy-{source.name}")
        page.get_by_role("button", name="Save").click()
        wait_until(page, "() => document.getElementById('d-status').dataset.saved")
        assert (tmp_path / f"copy-{source.name}").read_bytes() == source.read_bytes()
    shot(page, "designer-open")
    if not CASES.is_dir():
        return
    definitions = [json.loads(p.read_text())["definition"] for p in sorted(CASES.glob("*/*.json"))]
    drawn = page.evaluate(
        """(defs) => defs.map((d) => {
            const before = JSON.stringify(d);
            const nodes = cfnopsDesignModel.elements(d).filter((e) => e.data.name !== undefined);
            return [nodes.length, cfnopsDesignModel.states(d).length, JSON.stringify(d) === before];
        })""",
        definitions,
    )
    assert all(n == m and same for n, m, same in drawn)


def test_a_box_dragged_carries_its_states(page: Any, console: ConsoleProcess) -> None:
    """Boxes are plain nodes drawn behind their states: dragging one moves its states too."""
    source = ROOT / "examples" / "jobnets" / "webapp-stop.asl.json"
    page.goto(f"{console.url}/designer?path={source}")
    wait_until(page, "() => document.getElementById('d-graph').dataset.shown")
    box = page.evaluate(
        """() => { const cy = cfnopsDesignerGraph, box = cy.nodes('.part').first();
            cy.zoom(1); cy.center(box);
            const r = box.renderedBoundingBox({includeLabels: false});
            const g = document.getElementById('d-graph').getBoundingClientRect();
            return {id: box.id(), x: g.left + r.x1 + 4, y: g.top + r.y1 + 4}; }"""
    )
    members = "(id) => cfnopsDesignerGraph.nodes().filter((n) => n.data('in') === id)"
    before = page.evaluate(f"(id) => ({members})(id).map((n) => n.position())", box["id"])
    page.mouse.move(box["x"], box["y"])
    page.mouse.down()
    for step in range(1, 7):
        page.mouse.move(box["x"] + 10 * step, box["y"] + 5 * step)
    page.mouse.up()
    after = page.evaluate(f"(id) => ({members})(id).map((n) => n.position())", box["id"])
    assert len(after) == len(before) == 4  # sendCommand, Wait, poll, Choice
    for was, now in zip(before, after, strict=True):
        assert (round(now["x"] - was["x"]), round(now["y"] - was["y"])) == (60, 30)
    assert page.evaluate(BOXES_HOLD_MEMBERS)
    moved = page.evaluate(
        f"(id) => ({members})(id).map((n) => cfnopsDesigner.state.positions[n.id()])", box["id"]
    )
    assert moved == after  # kept for the next redraw


def test_code_view_undo_redo_connect_delete_and_yaml(
    page: Any, console: ConsoleProcess, tmp_path: Path
) -> None:
    ui = Mouse(page)
    page.goto(f"{console.url}/designer")
    for kind in ("pass", "wait", "succeed"):
        ui.press(_part(page, kind))
    states = "Object.keys(cfnopsDesigner.state.data.States)"
    assert page.evaluate(states) == ["Pass", "Wait", "Succeed"]
    assert page.evaluate("cfnopsDesigner.state.data.States.Wait.Next") == "Succeed"
    # Delete: Pass's successor goes on to Wait's next state; undo, redo.
    ui.press(_state(page, "Wait"))
    page.keyboard.press("Delete")
    assert page.evaluate(states) == ["Pass", "Succeed"]
    assert page.evaluate("cfnopsDesigner.state.data.States.Pass.Next") == "Succeed"
    page.keyboard.press("Control+Z")
    assert page.evaluate(states) == ["Pass", "Wait", "Succeed"]
    page.keyboard.press("Control+Y")
    assert page.evaluate(states) == ["Pass", "Succeed"]
    page.keyboard.press("Control+Z")
    # Connect: Pass straight to Succeed (C, then the target in the state list).
    ui.press(_state(page, "Pass"))
    page.keyboard.press("c")
    ui.press(_state(page, "Succeed"))
    assert page.evaluate("cfnopsDesigner.state.data.States.Pass.Next") == "Succeed"
    # Rename: every reference follows (StartAt, Next), the order of the states is kept.
    ui.fill(_form(page).get_by_label("Name", exact=True), "Prepare")
    ui.commit(_form(page).get_by_label("Name", exact=True))
    assert page.evaluate(states) == ["Prepare", "Wait", "Succeed"]
    assert page.evaluate("cfnopsDesigner.state.data.StartAt") == "Prepare"
    ui.press(_state(page, "Prepare"))
    assert page.evaluate("cfnopsDesigner.state.data.States.Prepare.Next") == "Succeed"
    # Code view: invalid text is reported at its line and the drawing stays.
    code = page.locator("#d-code")
    wait_until(page, "() => document.getElementById('d-code').value.includes('Succeed')")
    good = code.input_value()
    broken = good.replace('"Type": "Wait"', '"Type": "Wait",,', 1)
    code.fill(broken)
    line = broken[: broken.index(",,")].count("\n") + 1
    wait_until(page, "() => document.getElementById('d-code-error').textContent")
    assert f"line {line}" in page.locator("#d-code-error").text_content()
    assert page.locator(f'#d-gutter .bad[data-line="{line}"]').count() == 1
    assert page.evaluate(states) == ["Prepare", "Wait", "Succeed"]
    assert page.evaluate("cfnopsDesignerGraph.nodes('[name]').length") == 3
    code.fill(good.replace('"Seconds": 10', '"Seconds": 42'))
    wait_until(page, "() => cfnopsDesigner.state.data.States.Wait.Seconds === 42")
    assert page.locator("#d-code-error").text_content() == ""
    # YAML: the code view converts, and Save writes YAML.
    page.locator("#d-format").select_option("yaml")
    wait_until(page, "() => document.getElementById('d-code').value.startsWith('Comment:')")
    page.get_by_label("Save as", exact=False).fill("small.asl.yaml")
    page.get_by_role("button", name="Save").click()
    wait_until(page, "() => document.getElementById('d-status').dataset.saved")
    text = (tmp_path / "small.asl.yaml").read_text()
    assert yaml.safe_load(text)["States"]["Wait"]["Seconds"] == 42
    assert not text.lstrip().startswith("{")
    shot(page, "designer-code")


COMMENTED_YAML = """\
# Stop the web tier (hand-written; owner: ops)
Comment: 'cfnops:pool=web'
StartAt: Stop
States:
  Stop:  # RunCommand on the web tier
    Type: Task
    Comment: "stop httpd"
    Resource: arn:aws:states:::aws-sdk:ssm:sendCommand
    Parameters:
      DocumentName: AWS-RunShellScript
      InstanceIds.$: $.instanceIds
      Parameters: {commands: ['systemctl stop httpd']}
    Next: Done
  Done: {Type: Succeed}   # nothing after this
"""


def _git(folder: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=folder, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout


@pytest.mark.parametrize(
    ("name", "state", "removed"),
    [("webapp-stop.asl.json", "PutMaintenancePage", "0"), ("stop-web.asl.yaml", "Stop", "1")],
    ids=["json", "commented-yaml"],
)
def test_one_comment_edited_in_the_form_is_a_one_line_git_diff(
    page: Any, console: ConsoleProcess, tmp_path: Path, name: str, state: str, removed: str
) -> None:
    """The JSON state had no Comment (one line added, after ``Type``); the YAML one had one
    (one line changed). Everything else, comments and quoting included, stays."""
    repo = tmp_path / "repo"
    repo.mkdir()
    target = repo / name
    if name.endswith(".json"):
        target.write_bytes((ROOT / "examples" / "jobnets" / name).read_bytes())
    else:
        target.write_text(COMMENTED_YAML)
    target.chmod(0o640)
    _git(repo, "init", "-q")
    _git(repo, "add", name)
    _git(repo, "commit", "-q", "-m", "as written by hand")
    ui = Mouse(page)
    page.goto(f"{console.url}/designer?path={target}")
    wait_until(page, "() => document.getElementById('d-graph').dataset.shown")
    ui.press(_state(page, state))
    comment = _form(page).get_by_label("Comment", exact=True)
    ui.fill(comment, "stop the web tier for maintenance")
    ui.commit(comment)
    assert page.locator("#d-path").input_value() == str(target)
    ui.press(page.get_by_role("button", name="Save"))
    wait_until(page, "() => document.getElementById('d-status').dataset.saved")
    assert _git(repo, "diff", "--numstat").split() == ["1", removed, name]
    diff = _git(repo, "diff", "-U1")
    added = [line for line in diff.splitlines() if line.startswith("+") and "+++" not in line]
    assert "stop the web tier for maintenance" in added[0]
    if removed == "0":
        assert ' "Type": "Task",\n+' in diff  # placed after Type, as Workflow Studio does
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def _thirty_states() -> dict[str, Any]:
    """A 30-state job-net: a chain, a Choice with three rules and a Map of four steps."""
    states: dict[str, Any] = {}
    chain = [f"Step{i:02d}" for i in range(21)]
    for i, name in enumerate(chain):
        states[name] = {"Type": "Pass", "Next": chain[i + 1] if i + 1 < len(chain) else "Route"}
    states["Route"] = {
        "Type": "Choice",
        "Choices": [
            {"Variable": "$.mode", "StringEquals": m, "Next": n}
            for m, n in (("all", "EachItem"), ("none", "Skipped"), ("fail", "Broken"))
        ],
        "Default": "Done",
    }
    inner = [f"Item{i}" for i in range(4)]
    states["EachItem"] = {
        "Type": "Map", "ItemsPath": "$.items", "Next": "Done",
        "ItemProcessor": {"ProcessorConfig": {"Mode": "INLINE"}, "StartAt": inner[0], "States": {
            n: {"Type": "Pass", **({"Next": inner[i + 1]} if i + 1 < len(inner) else {"End": True})}
            for i, n in enumerate(inner)
        }},
    }  # fmt: skip
    states["Skipped"] = {"Type": "Pass", "Next": "Done"}
    states["Broken"] = {"Type": "Fail", "Error": "Bad.Mode", "Cause": "unknown mode"}
    states["Done"] = {"Type": "Succeed"}
    return {"StartAt": chain[0], "States": states}


LABEL_SIZES = """() => { const cy = cfnopsDesignerGraph, z = cy.zoom();
    return cy.elements().filter((e) => e.style('label')).map((e) =>
        parseFloat(e.style('font-size')) * z); }"""


def test_a_thirty_state_job_net_opens_readable_with_zoom_and_fit(
    page: Any, console: ConsoleProcess, tmp_path: Path
) -> None:
    path = tmp_path / "thirty.asl.json"
    path.write_text(json.dumps(_thirty_states(), indent=2))
    page.goto(f"{console.url}/designer?path={path}")
    wait_until(page, "() => document.getElementById('d-graph').dataset.shown")
    assert page.evaluate("cfnopsDesignerGraph.nodes('[name]').length") == 30
    assert min(page.evaluate(LABEL_SIZES)) >= 11  # every label drawn at 11 px or more
    start = page.evaluate(
        """() => { const cy = cfnopsDesignerGraph, b = cy.nodes('[name]')[0].renderedBoundingBox();
             return {x1: b.x1, x2: b.x2, y1: b.y1, w: cy.width()}; }"""
    )
    assert start["x1"] >= 0 and start["x2"] <= start["w"] and start["y1"] >= 0  # the start shows
    zoom = page.evaluate("cfnopsDesignerGraph.zoom()")
    page.get_by_role("button", name="Zoom out").click()
    assert page.evaluate("cfnopsDesignerGraph.zoom()") < zoom
    page.get_by_role("button", name="Zoom in").click()
    page.get_by_role("button", name="Zoom in").click()
    assert page.evaluate("cfnopsDesignerGraph.zoom()") > zoom
    page.get_by_role("button", name="Fit the job-net in the canvas").click()
    assert abs(page.evaluate("cfnopsDesignerGraph.zoom()") - zoom) < 1e-6
    shot(page, "designer-thirty-states")
    page.set_viewport_size({"width": 390, "height": 844})
    for url in ("/designer", f"/designer?path={path}", "/runs", "/audit"):
        page.goto(f"{console.url}{url}")
        page.wait_for_load_state("load")
        wide = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert wide <= 0, (url, wide)
    shot(page, "designer-390")

"""The status table of ``tests/jobs/test_status_shapes.py`` read where an operator reads it.

Each case's history (Parallel / Map / nested shapes, each with one of success, caught, failed,
aborted, retried, redriven, rerun, forced, skipped) is stored as a run in a run
database; then ``cfnops -o json job show`` (the CLI, in this process) and the
console's JSON for the Job run page (``/jobs/{id}/data``, whole run and each
branch or iteration) and its state panel must say what the table says Step
Functions' history semantics give: every state's status, retries and error,
every branch's and iteration's status, retries and error, the forced/skipped
marks, and Force offered only on a Task it applies to (never on an aborted one).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from tests._runtime import database_for
from tests.console.conftest import TOKEN
from tests.jobs.test_status_shapes import CASES
from typer.testing import CliRunner

from cfnops.cli.main import app as cli_app
from cfnops.config import Settings, load_settings
from cfnops.console import Auth, create_app
from cfnops.jobs import JobStore

# The table's Map cases are derived without a definition; a stored run always has one.
MAP = {"StartAt": "M", "States": {"M": {"Type": "Map", "End": True, "ItemProcessor": {
    "StartAt": "W", "States": {"W": {"Type": "Task", "Resource": "w", "End": True}}}}}}  # fmt: skip
# How each run ended, by its history's last event (a redriven run is running again).
RUN_STATUS = {
    "ExecutionSucceeded": ("SUCCEEDED", None),
    "ExecutionFailed": ("FAILED", "E"),
    "ExecutionAborted": ("ABORTED", None),
    "ExecutionRedriven": ("RUNNING", None),
}
IDS = [c[0] for c in CASES]


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """Every case of the table as a run (its id is the case's id) in one database."""
    db = tmp_path_factory.mktemp("status-surfaces") / "runs.sqlite"
    settings = load_settings(database_url=f"sqlite:///{db}")
    store = JobStore(database_for(settings))
    for case_id, history, definition, *_ in CASES:
        assert store.create_run(case_id, "shapes", definition or MAP, {})
        rows = [(e["id"], e["previousEventId"], e["type"], e["timestamp"],
                 json.dumps(e["details"])) for e in history]  # fmt: skip
        store.write_events(case_id, rows)
        status, error = RUN_STATUS[history[-1]["type"]]
        if status != "RUNNING":
            store.finish_run(case_id, status, None, error, None)
    store.database.dispose()
    return settings


@pytest.fixture(scope="module")
def console(stored: Settings) -> Iterator[TestClient]:
    app = create_app(stored, Auth({"alice": TOKEN}))  # alice has every role
    with TestClient(app, headers={"Accept": "application/json"}) as client:
        assert client.get(f"/login?token={TOKEN}", follow_redirects=False).status_code == 303
        yield client


def _cli(settings: Settings, run_id: str) -> dict[str, Any]:
    url = settings.database_url
    shown = CliRunner().invoke(
        cli_app, ["-o", "json", "job", "show", run_id], env={"CFNOPS_DATABASE_URL": url}
    )
    assert shown.exit_code == 0, shown.output
    data: dict[str, Any] = json.loads(shown.output)
    return data


def _panel(console: TestClient, run_id: str, state: str) -> str:
    answer = console.get(f"/jobs/{run_id}/state", params={"state": state},
                         headers={"Accept": "text/html"})  # fmt: skip
    assert answer.status_code == 200, answer.text
    return answer.text


@pytest.mark.parametrize(("case_id", "groups", "states"),
                         [(c[0], c[3], c[4]) for c in CASES], ids=IDS)  # fmt: skip
def test_cli_and_console_say_what_the_table_says(
    stored: Settings,
    console: TestClient,
    case_id: str,
    groups: dict[str, list[tuple[str, int, str | None]]],
    states: dict[str, tuple[Any, ...]],
) -> None:
    cli = _cli(stored, case_id)
    answer = console.get(f"/jobs/{case_id}/data")
    assert answer.status_code == 200, answer.text
    page = answer.json()
    assert page["status"] == cli["status"]

    # Branches and iterations: status, retries and their own error.
    for group, expected in groups.items():
        shown = [(i["status"], i["retries"], i["error"]) for i in cli["iterations"][group]]
        assert shown == expected, f"CLI {group}"
        drawn = [(i["status"], i["retries"], i["error"]) for i in page["iterations"][group]]
        assert drawn == expected, f"console {group}"
        # One branch or iteration chosen on the page: its own states, as the CLI lists them.
        for it in cli["iterations"][group]:
            chosen = {"map": group, "iteration": it["index"]}
            scoped = console.get(f"/jobs/{case_id}/data", params=chosen).json()
            inside = {name: scoped["statuses"][name] for name in it["states"]}
            assert inside == it["states"], (group, it["index"])

    # States over the whole run.
    by_name = {s["name"]: s for s in cli["states"]}
    for name, expected in states.items():
        if expected[0] == "NOT RUN":
            assert name not in by_name and name not in page["statuses"], name
            assert "Not reached" in _panel(console, case_id, name), name
            continue
        cli_state = by_name[name]
        assert (cli_state["status"], cli_state["retries"], cli_state["error"]) == expected[:3]
        assert page["statuses"][name] == expected[0], name
        assert page["retries"].get(name, 0) == expected[1], name
        panel = _panel(console, case_id, name)
        assert f'class="status s-{expected[0].lower()}">{expected[0]}<' in panel, name
        retries = re.search(r'id="panel-retries">(\d+)<', panel)
        assert retries is not None and retries[1] == str(expected[1]), name
        errors = re.findall(r'<pre class="err">([^<]*)</pre>', panel)
        assert errors == ([expected[2]] if expected[2] else []), name
        if len(expected) > 3:  # "forced", "skipped" or "-" (neither)
            cli_mark = ("forced" if cli_state["forced"]
                        else "skipped" if cli_state["skipped"] else "-")  # fmt: skip
            page_mark = ("forced" if "<dt>Forced</dt>" in panel
                         else "skipped" if "<dt>Skipped</dt>" in panel else "-")  # fmt: skip
            assert (cli_mark, page_mark) == (expected[3], expected[3]), name
        # Force applies to a Task running in a running run, or one that failed in a run
        # that can be redriven: failed, aborted or timed out, not one whose failure was
        # caught in a run that succeeded (Step Functions' RedriveExecution,
        # https://docs.aws.amazon.com/step-functions/latest/apireference/API_RedriveExecution.html).
        applies = cli_state["type"] == "Task" and (
            (expected[0] == "FAILED" and cli["status"] in ("FAILED", "ABORTED", "TIMED_OUT"))
            or (expected[0] == "RUNNING" and cli["status"] == "RUNNING")
        )
        assert ('aria-label="Force the outcome' in panel) == applies, name

    # Nothing aborted carries an error, in either.
    for name, state in by_name.items():
        if state["status"] == "ABORTED":
            assert (state["error"], state["cause"]) == (None, None), name
            assert '<pre class="err">' not in _panel(console, case_id, name), name
    assert set(page["statuses"]) == set(by_name)
    assert page["statuses"] == {n: s["status"] for n, s in by_name.items()}


def test_every_case_is_stored_once(stored: Settings) -> None:
    """The table's ids are distinct (a repeated id would test one history twice)."""
    assert len(set(IDS)) == len(IDS)
    assert Path(str(stored.database_url).removeprefix("sqlite:///")).exists()

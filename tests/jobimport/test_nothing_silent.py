"""Nothing is lost in silence: filled-in defaults and every keyword of the exports."""

from __future__ import annotations

import json
from typing import Any

from cfnops.jobimport import plan_import, read_export


def _plan(doc: dict[str, Any]) -> Any:
    return plan_import(read_export(json.dumps(doc).encode(), "d.json", "controlm"), "d.json")


def _reasons(plan: Any) -> list[str]:
    return [u["reason"] for u in plan.report["unmapped"]]


def _state(scope: dict[str, Any], name: str) -> dict[str, Any] | None:
    for key, state in scope["States"].items():
        if key == name:
            return state  # type: ignore[no-any-return]
        for branch in state.get("Branches", []):
            found = _state(branch, name)
            if found is not None:
                return found
    return None


def _task_args(plan: Any, net: str, state: str) -> dict[str, Any]:
    found = _state(plan.definitions[net], state)
    assert found is not None, state
    return found["Arguments"]  # type: ignore[no-any-return]


def test_every_default_the_importer_fills_in_is_reported() -> None:
    plan = _plan(
        {
            "F": {
                "Type": "Folder",
                "When": {"WeekDays": ["MON"]},
                "Empty": {"Type": "Job:Command", "Command": "", "Host": "h1", "RunAs": "batch"},
                "NoHost": {"Type": "Job:Command", "Command": "run.sh"},
                "Win": {"Type": "Job:Command", "Command": "c:\\test1.bat", "Host": "w1",
                        "RunAs": "dom\\ops"},
            }
        }
    )  # fmt: skip
    reasons = _reasons(plan)
    assert any("job F/Empty has no command: 'true' is run" in r for r in reasons)
    assert any(r.startswith("jobs F/NoHost: name no host") for r in reasons)
    assert any(r.startswith("jobs F/NoHost: name no run-as user") for r in reasons)
    assert any(r.startswith("jobs F/Empty: run as their run-as user through su") for r in reasons)
    assert any("job F/Win: 'c:\\\\test1.bat' is a Windows command line" in r for r in reasons)
    assert any("job F/Win: run-as user 'dom\\\\ops' not applied" in r for r in reasons)
    win = _task_args(plan, "F", "Win")
    assert win["DocumentName"] == "AWS-RunPowerShellScript"
    assert win["Parameters"]["commands"] == ["c:\\test1.bat"]  # no su, no Linux shell

"""Nothing is lost in silence: filled-in defaults and every keyword of the exports."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest
from jobimport_helpers import DATA

from cfnops.cli.main import run
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


_JP1 = """unit=NET,,jp1admin,;
{
	ty=n;
	sd=1,en;
	st=1,02:00;
	unit=.CONDITION,,jp1admin,;
	{
		ty=rc;
		unit=WAIT_FILE,,jp1admin,;
		{
			ty=flwj;
			flwf="/data/in.csv";
		}
	}
	unit=UX,,jp1admin,;
	{
		ty=j;
		te="echo start";
		sc="/opt/bin/run.sh";
		prm="--all";
		wkp="/var/work";
		env="MODE=full";
		env="LANG=C";
		ev="/etc/batch.env";
		si="/data/in.txt";
		so="/log/ux.out";
		soa=add;
		se="/log/ux.err";
		jd=cod;
		tho=4;
		wth=2;
		etm=30;
		fd=20;
		pr=3;
		un="batch";
		ex="host1";
	}
	unit=WIN,,jp1admin,;
	{
		ty=pj;
		sc="c:\\jobs\\run.bat";
		env="MODE=full";
		si="c:\\in.txt";
		jd=nm;
		ex="win1";
	}
	unit=HTTP,,jp1admin,;
	{
		ty=htpj;
	}
}
"""


def test_jp1_job_settings_become_run_command_parameters_or_are_reported() -> None:
    plan = plan_import(read_export(_JP1.encode(), "n.txt", "jp1"), "n.txt")
    reasons = _reasons(plan)
    ux = _task_args(plan, "NET", "UX")
    # each setting, by hand from Command Reference 5.2.6: variables, then the command text,
    # then the script with its parameters, stdin/stdout(append)/stderr, then rc <= tho
    assert ux["Parameters"]["workingDirectory"] == ["/var/work"]
    assert ux["Parameters"]["executionTimeout"] == ["1800"]
    expected = (
        "export MODE=full\nexport LANG=C\n. /etc/batch.env\n"
        "{ echo start\n/opt/bin/run.sh --all\n} < /data/in.txt >> /log/ux.out 2> /log/ux.err\n"
        'rc=$?; [ "$rc" -le 4 ] || exit "$rc"'
    )
    assert ux["Parameters"]["commands"] == [f"su - batch -c {shlex.quote(expected)}"]
    assert any("job NET/UX: te and sc both given" in r for r in reasons)
    assert any("job NET/UX: warning threshold wth=2" in r for r in reasons)
    assert any("job NET/UX: fd=20" in r for r in reasons)
    assert any("job NET/UX: pr=3" in r for r in reasons)
    win = _task_args(plan, "NET", "WIN")
    assert win["DocumentName"] == "AWS-RunPowerShellScript"
    assert win["Parameters"]["commands"] == ["$env:MODE = 'full'\nc:\\jobs\\run.bat\nexit 0"]
    assert any("job NET/WIN: si=c:\\in.txt (standard input) not mapped" in r for r in reasons)
    start = [u for u in plan.report["unmapped"] if "start condition NET/.CONDITION" in u["reason"]]
    assert len(start) == 1 and "WAIT_FILE (flwj)" in start[0]["reason"]
    assert "recovery" not in start[0]["reason"]
    assert "NET/.CONDITION/WAIT_FILE" not in plan.model.jobnets[0].jobs
    assert any("unit type 'htpj' not mapped (HTTP connection job" in r for r in reasons)


@pytest.mark.parametrize(
    ("name", "wrong", "right"),
    [
        ("controlm_fin.json", "jp1", "controlm"),
        ("controlm_payroll.xml", "jp1", "controlm"),
        ("jp1_sales.txt", "controlm", "jp1"),
    ],
)
def test_wrong_product_names_the_product_it_looks_like(
    name: str, wrong: str, right: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code = run(["job", "import", str(DATA / name), "--from", wrong, "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"--from {right}" in err and "truncated" not in err
    assert ("JP1/AJS3" if right == "jp1" else "Control-M export") in err
    assert not out.exists() or not any(out.iterdir())


def _states(scope: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for name, state in scope["States"].items():
        out.append((name, state))
        for branch in state.get("Branches", []):
            out.extend(_states(branch))
    return out


@pytest.mark.parametrize("name", ["controlm_fin.json", "controlm_payroll.xml", "jp1_sales.txt"])
def test_every_state_standing_for_a_source_job_names_it(name: str) -> None:
    product = "jp1" if name.startswith("jp1") else "controlm"
    cal = (DATA / "controlm_defcal.xml").read_bytes() if name.endswith(".xml") else None
    model = read_export((DATA / name).read_bytes(), name, product, calendars=cal)
    plan = plan_import(model, name)
    for net in model.jobnets:
        defn = plan.definitions[net.name]
        tagged: set[str] = set()
        for state_name, state in _states(defn):
            structural = state_name == "Init" or state_name.startswith(("Parallel ", "Train "))
            comment = str(state.get("Comment", ""))
            if not structural:
                assert comment.startswith("cfnops:job="), (net.name, state_name, state["Type"])
                tagged.add(comment.split()[0].removeprefix("cfnops:job="))
        assert tagged == set(net.jobs), net.name  # Pass, Wait, Choice … all find their job

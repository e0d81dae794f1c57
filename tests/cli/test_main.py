from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cfnops._version import __version__
from cfnops.cli.main import run


def test_version_and_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"cfnops {__version__}"
    assert run(["--help"]) == 0
    out = capsys.readouterr().out
    for group in ("runs", "worker", "demo", "Exit codes"):
        assert group in out


def test_bad_config_exits_2_naming_file_and_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text("[worker]\nconcurrency = 0\n")
    assert run(["--config", str(cfg), "runs", "list"]) == 2
    err = capsys.readouterr().err
    assert str(cfg) in err and "worker.concurrency" in err


def test_unknown_option_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--no-such-flag"]) == 2
    assert run(["--output", "yaml", "runs", "list"]) == 2


def test_runs_show_unknown_run_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CFNOPS_DATABASE_URL", f"sqlite:///{tmp_path / 'db.sqlite'}")
    assert run(["runs", "show", "nope"]) == 2
    assert "no run with id 'nope'" in capsys.readouterr().err


@pytest.mark.slow
def test_demo_then_runs_list_and_show_in_fresh_processes(tmp_path: Path) -> None:
    env = {"CFNOPS_DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite'}", "PATH": "/usr/bin:/bin"}

    def cfnops(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "cfnops", *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    demo = cfnops("--output", "json", "demo", "--wait-seconds", "1")
    assert demo.returncode == 0, demo.stderr
    run_id = json.loads(demo.stdout)["runId"]
    listed = json.loads(cfnops("-o", "json", "runs", "list", "--status", "SUCCEEDED").stdout)
    assert [r["runId"] for r in listed] == [run_id]
    shown = json.loads(cfnops("-o", "json", "runs", "show", run_id).stdout)
    assert shown["status"] == "SUCCEEDED" and shown["workflow"] == "cfnops.sample"
    assert [s["name"] for s in shown["steps"]][:3] == ["fingerprint", "count-words", "wait"]
    assert all(s["started"] and s["ended"] for s in shown["steps"])
    digest = shown["steps"][0]["result"]
    assert len(digest) == 64
    env["COLUMNS"] = "400"  # a wide terminal: the table's cells need not wrap
    assert digest in cfnops("runs", "show", run_id, "--wide").stdout
    assert digest not in cfnops("runs", "show", run_id).stdout

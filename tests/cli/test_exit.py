"""The CLI's fast exit loses nothing: output, exit codes, exit handlers, working threads."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path


def _python(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_large_output_reaches_a_pipe_whole(tmp_path: Path) -> None:
    resources = "".join(f"  Q{i}:\n    Type: AWS::SQS::Queue\n" for i in range(400))
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old.write_text("Resources:\n  Keep:\n    Type: AWS::SNS::Topic\n", encoding="utf-8")
    new.write_text("Resources:\n" + resources, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "cfnops", "diff", str(old), str(new), "--output", "json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert len(json.loads(proc.stdout)["resources"]) == 401


def test_error_exit_code_and_message_survive(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "cfnops", "diff", "missing.yaml", "missing.yaml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2
    assert "missing.yaml: file not found" in proc.stderr


def test_exit_handlers_run_and_the_code_is_kept(tmp_path: Path) -> None:
    proc = _python(
        """
        import atexit, pathlib, sys
        from cfnops.cli._exit import exit_process
        handle = open("buffered.txt", "w")
        handle.write("kept")
        atexit.register(handle.close)
        atexit.register(lambda: pathlib.Path("handler.txt").write_text("ran"))
        print("printed", end="")
        exit_process(3)
        """,
        tmp_path,
    )
    assert proc.returncode == 3
    assert proc.stdout == "printed"
    assert (tmp_path / "handler.txt").read_text() == "ran"
    assert (tmp_path / "buffered.txt").read_text() == "kept"


def test_a_working_thread_is_waited_for(tmp_path: Path) -> None:
    proc = _python(
        """
        import pathlib, threading, time
        from cfnops.cli._exit import exit_process
        def work():
            time.sleep(0.5)
            pathlib.Path("checkpoint.txt").write_text("written")
        threading.Thread(target=work).start()
        exit_process(0)
        """,
        tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "checkpoint.txt").read_text() == "written"


def test_a_command_leaving_waiting_threads_ends_with_its_code(tmp_path: Path) -> None:
    """``LeaveThreads`` (a held heal run's thread waits for hours in this process): the
    entry point ends the process at once with the command's code, output delivered."""
    proc = _python(
        """
        import sys, threading
        import cfnops.cli.main as main
        from cfnops.cli._exit import LeaveThreads

        def command(**_):
            threading.Thread(target=threading.Event().wait, name="held-run").start()
            print("held: approve later", end="")
            raise LeaveThreads(3)

        main.app = command
        main.run()
        """,
        tmp_path,
    )
    assert proc.returncode == 3, proc.stderr
    assert proc.stdout == "held: approve later"


def test_in_process_a_command_leaving_threads_returns_its_code(tmp_path: Path) -> None:
    """``run([...])`` (tests, embedding): the code is returned, the process goes on."""
    proc = _python(
        """
        import cfnops.cli.main as main
        from cfnops.cli._exit import LeaveThreads

        def command(**_):
            raise LeaveThreads(3)

        main.app = command
        print("returned", main.run(["heal", "x"]))
        """,
        tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "returned 3"


def test_only_the_exit_module_calls_os_exit() -> None:
    """Commands raise (``typer.Exit``, ``LeaveThreads``); ending the process is the entry
    point's, in one module."""
    src = Path(__file__).resolve().parents[2] / "src" / "cfnops"
    callers = sorted(
        str(path.relative_to(src))
        for path in src.rglob("*.py")
        if "os._exit(" in path.read_text(encoding="utf-8")
    )
    assert callers == ["cli/_exit.py"]

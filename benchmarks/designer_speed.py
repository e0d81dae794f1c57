"""How responsive the job-net designer is on a 100-state job-net (target: 300 ms each).

- server: opening (parse + the data-flow check the page is served with) and the re-check
  after an edit (one Task's parameter changed), in process and over HTTP (``GET /designer``),
  medians of ``--repeat`` rounds;
- browser (real Chromium, when installed): the designer page opened on the file, from the
  navigation's start until the frame that shows the drawing and the check is painted (the
  issue's "time to open it"), and an edit made through the form until the drawing and code
  view are updated and until the check is shown, painted (the page waits 100 ms after the
  last keystroke before it asks; printed apart).

The machine's load average is printed before and after: the figures are wall times, so
the CPU time Chromium's processes spent on each open (user + system, from /proc; less
sensitive to the load than the wall time) is printed too.

    python benchmarks/designer_speed.py [--repeat 7] [--no-browser]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cfnops.console._designer_doc import open_text
from cfnops.console._designer_flow import design_check

TOKEN = "bench-token-0123456789abcdef"


def jobnet(groups: int = 20) -> dict[str, Any]:
    """``groups`` x (RunCommand loop of 4 states + an AWS API call): 100 states for 20."""
    states: dict[str, Any] = {}
    for g in range(groups):
        send, wait, poll, done, call = (f"{n}{g}" for n in ("Run", "Wait", "Poll", "Done", "Call"))
        after = f"Run{g + 1}" if g + 1 < groups else None
        states[send] = {"Type": "Task", "Resource": "arn:aws:states:::aws-sdk:ssm:sendCommand",
            "Parameters": {"DocumentName": "AWS-RunShellScript", "InstanceIds.$": "$.instanceIds",
                           "Parameters": {"commands": [f"step {g}"]}},
            "ResultSelector": {"CommandId.$": "$.Command.CommandId"}, "ResultPath": "$.command",
            "Next": wait}  # fmt: skip
        states[wait] = {"Type": "Wait", "Seconds": 1, "Next": poll}
        states[poll] = {"Type": "Task", "Resource": "arn:aws:states:::aws-sdk:ssm:listCommands",
            "Parameters": {"CommandId.$": "$.command.CommandId"},
            "ResultSelector": {"Status.$": "$.Commands[0].Status"}, "ResultPath": "$.status",
            "Next": done}  # fmt: skip
        rule = {"Variable": "$.status.Status", "StringEquals": "InProgress", "Next": wait}
        states[done] = {"Type": "Choice", "Default": call, "Choices": [rule]}
        states[call] = {"Type": "Task",
            "Resource": "arn:aws:states:::aws-sdk:ec2:describeInstances",
            "Parameters": {"InstanceIds.$": "$.instanceIds"}, "ResultPath": None,
            **({"Next": after} if after else {"End": True})}  # fmt: skip
    return {"Comment": "benchmark: 100 states", "StartAt": "Run0", "States": states}


SAMPLE = {"instanceIds": ["i-0123456789abcdef0", "i-0fedcba9876543210"]}


def _median_ms(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        fn()
        times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times), min(times)


def server(text: str, repeat: int) -> None:
    def open_and_check() -> None:
        doc = open_text(text, "json")
        design_check(doc.data, SAMPLE, {})

    edited = json.loads(text)
    edited["States"]["Call7"]["Parameters"]["InstanceIds.$"] = "$.instanceIds."

    def recheck() -> None:
        design_check(edited, SAMPLE, {})

    open_and_check()  # warm: botocore's models, the JSONPath parser
    for label, fn in (
        ("open (parse + check)", open_and_check),
        ("re-check after an edit", recheck),
    ):
        median, best = _median_ms(fn, repeat)
        print(f"server  {label:<34} median {median:6.0f} ms   best {best:6.0f} ms")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _page_open(url: str, path: Path, repeat: int) -> None:
    """``GET /designer?path=…``: read, parse and check the file, and render the page."""
    request = urllib.request.Request(
        f"{url}/designer?path={urllib.parse.quote(str(path))}",
        headers={"Authorization": f"Bearer {TOKEN}"},
    )

    def fetch() -> None:
        with urllib.request.urlopen(request, timeout=30) as answer:
            assert b"designer-boot" in answer.read()

    fetch()
    median, best = _median_ms(fetch, repeat)
    label = "GET /designer (read, parse, check, page)"
    print(f"server  {label:<34} median {median:6.0f} ms   best {best:6.0f} ms")


def _chromium_pids() -> list[int]:
    """Chromium's processes: this process's descendants named chrom* (Linux /proc)."""
    found, todo = [], [os.getpid()]
    while todo:
        pid = todo.pop()
        try:
            kids = [int(k) for k in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        except OSError:
            kids = []
        todo += kids
        for kid in kids:
            try:
                if Path(f"/proc/{kid}/comm").read_text().startswith("chrom"):
                    found.append(kid)
            except OSError:
                pass
    return found


def _cpu_ms(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (clock ticks)
    return total * 1000 / os.sysconf("SC_CLK_TCK")


def _until_shown(page: Any) -> None:
    """Until the frame showing the drawing and the first check is painted."""
    # page.evaluate, not wait_for_function: the console's CSP refuses the latter's eval.
    deadline = time.monotonic() + 60
    while not page.evaluate("() => document.getElementById('d-graph')?.dataset.shown"):
        assert time.monotonic() < deadline, "the designer never showed its check"
        time.sleep(0.005)


def browser(path: Path, repeat: int) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        chromium = None
    if chromium is None:
        print("browser: skipped (no chromium or playwright)")
        return
    port = _free_port()
    env = {**os.environ, "CFNOPS_CONSOLE_TOKEN": TOKEN,
           "CFNOPS_CONSOLE__DEFINITION_ROOTS": json.dumps([str(path.parent)]),
           "CFNOPS_DATABASE_URL": f"sqlite:///{path.parent / 'runs.sqlite'}"}  # fmt: skip
    console = subprocess.Popen(
        [sys.executable, "-m", "cfnops", "console", "--port", str(port)],
        env=env, cwd=path.parent, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"{url}/healthz", timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        _page_open(url, path, repeat)
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            page = b.new_page(viewport={"width": 1500, "height": 1100})
            page.goto(f"{url}/login?token={TOKEN}")
            opens, edits, drawn, cpu = [], [], [], []
            pids = _chromium_pids()
            page.goto(f"{url}/designer?path={path}")  # warm: caches, the server's first check
            _until_shown(page)
            for i in range(repeat):
                used = _cpu_ms(pids)
                page.goto(f"{url}/designer?path={path}")
                _until_shown(page)
                cpu.append(_cpu_ms(pids) - used)
                opens.append(page.evaluate("window.cfnopsDesignerShownAt"))
                page.locator('#d-states button[data-state="Call7"]').click()
                field = page.get_by_label("InstanceIds.$", exact=False).first
                took = page.evaluate(
                    """async ([i]) => {
                      const f = document.querySelector('#d-form [data-pointer$="InstanceIds.$"]');
                      const g = document.getElementById('d-graph').dataset, before = g.shown;
                      const t0 = performance.now();
                      f.value = '$.instanceIds' + (i % 2 ? '.' : '');
                      f.dispatchEvent(new Event('input'));
                      const t1 = performance.now();
                      while (g.shown === before || g.pending)
                        await new Promise((r) => setTimeout(r, 2));
                      return [t1 - t0, window.cfnopsDesignerShownAt - t0];
                    }""",
                    [i],
                )
                del field
                drawn.append(took[0])
                edits.append(took[1])
            b.close()
        print(f"browser open until drawn and checked   median {statistics.median(opens):6.0f} ms"
              f"   best {min(opens):6.0f} ms  (navigation → drawing, check painted)")  # fmt: skip
        if pids:
            print(f"browser open: Chromium CPU time         median {statistics.median(cpu):6.0f} ms"
                  f"   best {min(cpu):6.0f} ms  (all its processes, user + system)")  # fmt: skip
        print(f"browser edit → drawing and code redrawn median {statistics.median(drawn):6.0f} ms"
              f"   best {min(drawn):6.0f} ms")  # fmt: skip
        print(f"browser edit → check shown             median {statistics.median(edits):6.0f} ms"
              f"   best {min(edits):6.0f} ms  (painted; 100 ms: wait after typing)")  # fmt: skip
    finally:
        console.terminate()
        console.wait(timeout=20)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--no-browser", action="store_true")
    args = parser.parse_args()
    definition = jobnet()
    assert len(definition["States"]) == 100
    text = json.dumps(definition, indent=2) + "\n"
    print(f"100-state job-net ({len(text):,} bytes), {args.repeat} rounds")
    print("load average before: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    server(text, args.repeat)
    if not args.no_browser:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "hundred.asl.json"
            path.write_text(text)
            browser(path, args.repeat)
    print("load average after:  {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()

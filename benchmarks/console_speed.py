"""Console speed: the Runs page over 10,000 runs, checkpoint → browser latency, server memory.

1. A fresh SQLite run database gets DBOS's schema (one ``cfnops demo`` run) and
   10,000 runs through DBOS's client (heal, job and AMI runs, mixed statuses).
2. ``cfnops console`` serves it (its own process, as an operator runs it).
3. Render: the Runs page (first page, a later page, filtered by kind + stack, by
   text) fetched over loopback HTTP; median and p95 of the server's answer time.
4. Latency: Chromium (the OS package, via Playwright) shows a job run; the script
   writes a history event (a state entered: what the interpreter checkpoints) and
   times until the page shows that state as running. Median, p95 and max.
5. A job run with 10,000 history events (a Map of 2,000 iterations): the Job run
   page's weight (document + scripts + styles, as Chromium received them), its
   time to interactive (navigation start → the graph, state list, iteration table
   and newest events drawn; median of 5 loads), a state's panel (click → drawn; median
   of 12), and the bytes of each live update
   after 3 new events (median of 10), beside the page's full data for comparison.
6. Memory: the console process's resident set (VmRSS) and peak (VmHWM).

    python benchmarks/console_speed.py [--runs 10000] [--samples 20]

Targets: Runs page ≤ 300 ms with 10,000 runs; checkpoint → browser ≤ 1 s; a
10,000-event run interactive ≤ 1 s; a live update carries only what changed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from cfnops.database import Database

TOKEN = "bench-token-0123456789abcdef"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def seed(db: Path, runs: int) -> None:
    import sqlalchemy as sa

    from cfnops.config import load_settings
    from cfnops.durable import RunStore

    env = {**os.environ, "CFNOPS_DATABASE_URL": f"sqlite:///{db}"}
    subprocess.run(
        [sys.executable, "-m", "cfnops", "-o", "json", "demo", "--wait-seconds", "1"],
        env=env, check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    settings = load_settings(database_url=f"sqlite:///{db}")
    began = time.perf_counter()
    with RunStore(Database.open(settings.database_url)) as store:
        for i in range(runs):
            if i % 10 < 7:
                store.enqueue("cfnops.heal", {"StackName": f"web-{i % 50}"}, run_id=f"heal-{i:05d}")
            elif i % 10 < 9:
                job = f"job-{i:05d}"
                store.enqueue("cfnops.jobs.execution", {"runId": job}, run_id=job)
            else:
                event = {"StackName": f"asg-{i % 20}", "ImageId": "ami-1"}
                store.enqueue("cfnops.ami.rotate-stack", event, run_id=f"ami-{i:05d}")
    engine = sa.create_engine(f"sqlite:///{db}")
    with engine.begin() as conn:  # finished runs, as a busy database has them
        conn.execute(sa.text("UPDATE workflow_status SET status = 'SUCCESS' WHERE rowid % 3 = 0"))
        conn.execute(sa.text("UPDATE workflow_status SET status = 'ERROR' WHERE rowid % 7 = 0"))
    engine.dispose()
    print(f"seeded {runs} runs in {time.perf_counter() - began:.1f} s")


def _get(url: str) -> float:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {TOKEN}"})
    began = time.perf_counter()
    with urllib.request.urlopen(request, timeout=30) as answer:
        answer.read()
    return (time.perf_counter() - began) * 1000


def _count(base: str) -> str:
    request = urllib.request.Request(f"{base}/runs", headers={"Authorization": f"Bearer {TOKEN}"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        html = answer.read().decode()
    return html.split('<p class="count">', 1)[1].split("<", 1)[0]


def render_times(base: str, samples: int) -> None:
    print(f"the Runs page says: {_count(base)}")
    pages = {
        "runs page 1": "/runs",
        "runs page 100": "/runs?page=100",
        "kind=heal&stack=web-7": "/runs?kind=heal&stack=web-7",
        "text=job-0999": "/runs?text=job-0999",
    }
    for label, path in pages.items():
        _get(base + path)  # warm
        times = sorted(_get(base + path) for _ in range(samples))
        p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
        print(f"render {label:<24} median {statistics.median(times):6.1f} ms   p95 {p95:6.1f} ms")


def latency(base: str, db: Path, samples: int) -> None:
    from cfnops.jobs import JobStore

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("latency: skipped (no chromium on PATH)")
        return
    from playwright.sync_api import sync_playwright

    names = [f"S{i}" for i in range(samples)]
    states = {n: {"Type": "Pass", "Next": names[i + 1]} for i, n in enumerate(names[:-1])}
    states[names[-1]] = {"Type": "Pass", "End": True}
    store = JobStore(Database.open(f"sqlite:///{db}"))
    store.create_run("latency-1", "latency", {"StartAt": names[0], "States": states}, {})
    store.write_events("latency-1", [(1, 0, "ExecutionStarted", time.time(), "{}")])
    waits: list[float] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page()
        page.goto(f"{base}/login?token={TOKEN}")
        page.goto(f"{base}/jobs/latency-1")
        page.wait_for_selector("#state-list button")
        time.sleep(1)  # the stream is connected
        for i, name in enumerate(names):
            details = json.dumps({"name": name, "input": "{}"})
            began = time.perf_counter()
            store.write_events(
                "latency-1", [(i + 2, i + 1, "PassStateEntered", time.time(), details)]
            )
            _wait(
                page,
                f"document.querySelector('#state-list button[data-state=\"{name}\"]')"
                ".dataset.status === 'RUNNING'",
            )
            waits.append((time.perf_counter() - began) * 1000)
            time.sleep(0.05)
        browser.close()
    waits.sort()
    p95 = waits[min(len(waits) - 1, int(len(waits) * 0.95))]
    print(
        f"checkpoint → browser        median {statistics.median(waits):6.1f} ms   "
        f"p95 {p95:6.1f} ms   max {waits[-1]:6.1f} ms  ({len(waits)} checkpoints)"
    )


def _wait(page: object, expression: str, timeout: float = 10.0) -> None:
    """Poll a JS predicate every 5 ms (the console's CSP refuses wait_for_function's eval)."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):  # type: ignore[attr-defined]
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {expression}")
        time.sleep(0.005)


def _big_run(db: Path, iterations: int) -> object:
    from cfnops.jobs import JobStore

    store = JobStore(Database.open(f"sqlite:///{db}"))
    work = {"Type": "Task", "Resource": "arn:aws:lambda:us-east-1:1:function:w", "End": True}
    definition = {"StartAt": "Fan", "States": {"Fan": {
        "Type": "Map", "ItemProcessor": {"StartAt": "Work", "States": {"Work": work}},
        "Next": "Last"}, "Last": {"Type": "Task", "Resource": "x", "End": True}}}  # fmt: skip
    store.create_run("big-1", "big", definition, {})
    t = time.time() - 600
    rows = [(1, 0, "ExecutionStarted", t, "{}"),
            (2, 1, "MapStateEntered", t, json.dumps({"name": "Fan", "input": "{}"})),
            (3, 2, "MapStateStarted", t, "{}")]  # fmt: skip
    eid = 3
    for i in range(iterations):
        first, it = eid + 1, json.dumps({"index": i, "name": "Fan"})
        payload = json.dumps({"name": "Work", "input": json.dumps({"item": i, "pad": "x" * 40})})
        rows += [
            (first, 3, "MapIterationStarted", t + i * 0.1, it),
            (first + 1, first, "TaskStateEntered", t + i * 0.1, payload),
            (first + 2, first + 1, "LambdaFunctionScheduled", t + i * 0.1, "{}"),
            (first + 3, first + 2, "TaskStateExited", t + i * 0.1 + 0.05,
             json.dumps({"name": "Work", "output": "1"})),
            (first + 4, first + 3, "MapIterationSucceeded", t + i * 0.1 + 0.05, it),
        ]  # fmt: skip
        eid = first + 4
    store.write_events("big-1", rows)
    return store


def big_history(base: str, db: Path) -> None:
    """Page weight, time to interactive and state panels of a 10,000-event run; bytes per
    live update. The machine's load average is printed with the figures."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("big history: skipped (no chromium on PATH)")
        return
    from playwright.sync_api import sync_playwright

    store = _big_run(db, 2000)
    events = 3 + 2000 * 5
    data_bytes = len(
        urllib.request.urlopen(
            urllib.request.Request(
                f"{base}/jobs/big-1/data", headers={"Authorization": f"Bearer {TOKEN}"}
            ),
            timeout=30,
        ).read()
    )
    ready = (
        "document.querySelectorAll('#state-list button').length === 3 && "
        "document.querySelectorAll('#history-table tbody tr').length === 200 && "
        "document.getElementById('iter-count').textContent === '2000 of 2000' && "
        "window.cfnopsGraph && window.cfnopsGraph.nodes().length > 0"
    )
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page()
        page.goto(f"{base}/login?token={TOKEN}")
        sizes: dict[str, int] = {}

        def count(response: object) -> None:
            url = response.url  # type: ignore[attr-defined]
            if url.startswith(base) and "/stream" not in url:
                with contextlib.suppress(Exception):  # a redirect has no body
                    sizes[url] = len(response.body())  # type: ignore[attr-defined]

        page.on("response", count)
        print("load average (1/5/15 min)   " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
        loads: list[float] = []
        for _ in range(5):
            sizes.clear()
            began = time.perf_counter()
            page.goto(f"{base}/jobs/big-1", wait_until="commit")
            _wait(page, ready, timeout=30)
            loads.append((time.perf_counter() - began) * 1000)
        page.remove_listener("response", count)
        document = sizes.get(f"{base}/jobs/big-1", 0)
        total = sum(sizes.values())
        print(
            f"10,000-event run ({events} events): document {document / 1024:.0f} KB, with "
            f"scripts and styles {total / 1024:.0f} KB; its full /data {data_bytes / 1024:.0f} KB"
        )
        print(f"time to interactive         median {statistics.median(loads):6.1f} ms   "
              f"max {max(loads):6.1f} ms  (5 loads)")  # fmt: skip
        # A state's panel: a click in the state list until its panel is drawn (the server
        # derives the 10,000 events' statuses for it). Alternating states, so each click
        # fetches a panel.
        panels: list[float] = []
        for i in range(12):
            name = ("Fan", "Work", "Last")[i % 3]
            began = time.perf_counter()
            page.click(f'#state-list button[data-state="{name}"]')
            drawn = (
                "(() => { const h = document.getElementById('panel-state');"
                f" return h !== null && h.textContent.startsWith('{name}'); }})()"
            )
            _wait(page, drawn)
            panels.append((time.perf_counter() - began) * 1000)
        print(f"state panel (click → drawn) median {statistics.median(panels):6.1f} ms   "
              f"max {max(panels):6.1f} ms  (12 clicks)")  # fmt: skip
        time.sleep(1)  # the stream is connected
        sent: list[int] = []
        last = events
        for _ in range(10):
            t = time.time()
            rows = []
            for k in range(3):
                last += 1
                details = json.dumps({"name": "Last", "input": "{}"}) if k == 0 else "{}"
                kind = "TaskStateEntered" if k == 0 else "TaskScheduled"
                rows.append((last, last - 1 if k else 2, kind, t, details))
            page.evaluate("window.cfnopsLastUpdate = ''")
            store.write_events("big-1", rows)  # type: ignore[attr-defined]
            _wait(page, f"document.querySelector('#history-table tr[data-id=\"{last}\"]') !== null")
            sent.append(len(page.evaluate("window.cfnopsLastUpdate").encode()))
        browser.close()
    print(
        f"live update (3 new events)  median {statistics.median(sent):6.0f} bytes   "
        f"max {max(sent):6.0f} bytes  (10 updates; the page's full data is {data_bytes} bytes)"
    )


def memory(pid: int) -> None:
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    rss, peak = fields["VmRSS"].strip(), fields["VmHWM"].strip()
    print(f"console server memory       RSS {rss}   peak {peak}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--samples", type=int, default=20)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="cfnops-console-bench-"))
    db = workdir / "runs.sqlite"
    seed(db, args.runs)
    port = _port()
    env = {**os.environ, "CFNOPS_DATABASE_URL": f"sqlite:///{db}", "CFNOPS_CONSOLE_TOKEN": TOKEN}
    server = subprocess.Popen(
        [sys.executable, "-m", "cfnops", "console", "--port", str(port)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{base}/healthz", timeout=1).read()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("the console did not start") from None
                time.sleep(0.2)
        render_times(base, args.samples)
        latency(base, db, args.samples)
        big_history(base, db)
        memory(server.pid)
    finally:
        server.terminate()
        server.wait(timeout=20)
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()

"""``cfnops worker --metrics-port``: scraped over HTTP after runs and parsed with
prometheus_client's own parser; notifications counted by the runtime."""

from __future__ import annotations

import io
import signal
import socket
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families
from tests._subprocess import cfnops, wait_for, worker_env

from cfnops.config import load_settings
from cfnops.database import Database
from cfnops.durable import RunStore
from cfnops.jobs import PoolStore
from cfnops.notify import ConsoleNotifier, Notification
from cfnops.runtime import Runtime
from cfnops.telemetry import Metrics

DURABLE = Path(__file__).resolve().parents[1] / "durable"


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    out: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return out


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.slow
def test_worker_metrics_after_runs(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    database = Database.open(f"sqlite:///{db}")
    port = _free_port()
    env = worker_env(db, modules=["durable_test_workflows"], path=[DURABLE])
    worker = cfnops(env, "worker", "--metrics-port", str(port))

    def scrape() -> str:
        url = f"http://127.0.0.1:{port}/metrics"
        with urllib.request.urlopen(url, timeout=10) as response:
            return str(response.read().decode())

    try:
        wait_for(lambda: _can(scrape), timeout=60, what="the metrics endpoint")
        with RunStore(database) as store:  # the worker has created the tables
            for n in range(3):
                store.enqueue("test.logs", {"stack": "web"}, run_id=f"metrics-{n}")
            store.enqueue("test.logs", {}, run_id="parked-1", queue="parked")  # no consumer
        PoolStore(database.engine).set("deploys", 2)

        def done() -> bool:
            with RunStore(database) as store:
                runs = store.list_runs(workflow="test.logs")
            return sum(r.status == "SUCCEEDED" for r in runs) == 3

        wait_for(done, timeout=90, what="the queued runs")
        samples = _samples(scrape())
    finally:
        worker.send_signal(signal.SIGTERM)
        out, err = worker.communicate(timeout=30)
    assert worker.returncode == 0, err
    assert f"metrics: http://127.0.0.1:{port}/metrics" in out
    wf = (("workflow", "test.logs"),)
    assert samples[("cfnops_runs_started_total", wf)] == 3  # parked-1 has not started
    assert samples[("cfnops_runs_finished_total", (("outcome", "SUCCEEDED"), *wf))] == 3
    assert samples[("cfnops_run_duration_seconds_count", wf)] == 3
    assert samples[("cfnops_step_duration_seconds_count", wf)] == 3  # one step each, here
    assert samples[("cfnops_queue_depth", (("queue", "parked"),))] == 1
    assert samples[("cfnops_queue_oldest_age_seconds", (("queue", "parked"),))] > 0
    assert samples[("cfnops_runs_held", ())] == 0
    assert samples[("cfnops_pool_capacity", (("pool", "deploys"),))] == 2
    assert samples[("cfnops_pool_in_use", (("pool", "deploys"),))] == 0
    assert samples[("cfnops_drift_healed_total", ())] == 0


def _can(fn: Any) -> bool:
    try:
        fn()
    except OSError:
        return False
    return True


def test_notifications_sent_and_failed_are_counted(tmp_path: Path) -> None:
    from rich.console import Console

    settings = load_settings(
        database_url=f"sqlite:///{tmp_path / 'db.sqlite'}",
        notify={"slack_webhook_url": "http://127.0.0.1:9/hook"},  # refused: a failure
    )
    metrics = Metrics()
    runtime = Runtime.from_settings(
        settings, metrics=metrics, console_channel=ConsoleNotifier(Console(file=io.StringIO()))
    )
    runtime.notify(Notification("heal web", "healed", outcome="HEALED", stack="web"))
    samples = _samples(metrics.exposition()[0].decode())
    sent = ("cfnops_notifications_total", (("channel", "console"), ("result", "sent")))
    failed = ("cfnops_notifications_total", (("channel", "slack"), ("result", "failed")))
    assert samples[sent] == 1 and samples[failed] == 1
    assert "127.0.0.1:9/hook" not in metrics.exposition()[0].decode()
    runtime.close()


def test_nothing_is_imported_without_metrics(tmp_path: Path) -> None:
    import subprocess

    code = (
        "import sys; from cfnops.config import load_settings; from cfnops.runtime import Runtime;"
        f"Runtime.from_settings(load_settings(database_url='sqlite:///{tmp_path}/x.sqlite'));"
        "print('prometheus_client' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"

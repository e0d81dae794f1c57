"""Subprocess helpers: a sandbox in its own process, cfnops commands against it."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import boto3
from tests._runtime import database_for
from tests._subprocess import cfnops, wait_for, worker_env

from cfnops.config import load_settings
from cfnops.durable import RunStore, StepRecord

__all__ = ["SandboxProcess", "cfnops", "env_for", "free_port", "steps", "wait_for"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class SandboxProcess:
    """``python -m cfnops sandbox up --delay 0`` on a free port."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "cfnops",
                "sandbox",
                "up",
                "--port",
                str(self.port),
                "--delay",
                "0",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                self.control("config", None)
                return
            except OSError:
                assert self.proc.poll() is None, self.proc.stderr.read() if self.proc.stderr else ""
                assert time.monotonic() < deadline, "sandbox did not start"
                time.sleep(0.2)

    def control(self, route: str, body: dict[str, Any] | None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            f"{self.url}/_cfnops/{route}",
            data=data,
            headers={"Content-Type": "application/json"},
            method="GET" if body is None else "POST",
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            return json.loads(resp.read())

    def client(self, service: str) -> Any:
        return boto3.client(
            service,
            endpoint_url=self.url,
            region_name="us-east-1",
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.communicate(timeout=20)


def env_for(sandbox: SandboxProcess, db: Path, **extra: str) -> dict[str, str]:
    return worker_env(
        db,
        CFNOPS_AWS__ENDPOINT_URL=sandbox.url,
        CFNOPS_AWS__REGION="us-east-1",
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        CFNOPS_HEAL__DRIFT_POLL_SECONDS="1",
        CFNOPS_HEAL__CHANGESET_POLL_SECONDS="1",
        CFNOPS_HEAL__EXECUTE_POLL_SECONDS="1",
        CFNOPS_NOTIFY__CONSOLE="false",
        COLUMNS="200",
        **extra,
    )


def steps(db: Path, run_id: str | None = None) -> tuple[str | None, list[StepRecord]]:
    """The (only or given) run's id and its steps, read from the database."""
    settings = load_settings(database_url=f"sqlite:///{db}")
    if not db.exists():
        return None, []
    with RunStore(database_for(settings)) as store:
        if run_id is None:
            runs = store.list_runs(workflow="cfnops.heal")
            if not runs:
                return None, []
            run_id = runs[0].run_id
        return run_id, store.steps(run_id)

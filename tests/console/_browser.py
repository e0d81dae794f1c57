"""Browser-test helpers: the console as a subprocess, Chromium from the OS, screenshots."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from tests._subprocess import wait_for
from tests.heal._proc import free_port

TOKEN = "browser-token-0123456789abcdef"
ARTIFACTS = Path(
    os.environ.get("CFNOPS_TEST_ARTIFACTS") or Path(__file__).resolve().parents[1] / "artifacts"
)


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


class ConsoleProcess:
    """``python -m cfnops console`` on a free loopback port with a known token."""

    def __init__(self, env: dict[str, str], *args: str, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "cfnops", "console", "--port", str(self.port), *args],
            env={**env, "CFNOPS_CONSOLE_TOKEN": TOKEN},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        wait_for(self._up, timeout=60, what="the console to listen")

    def _up(self) -> bool:
        assert self.proc.poll() is None, self.proc.stderr.read() if self.proc.stderr else ""
        try:
            with urllib.request.urlopen(f"{self.url}/healthz", timeout=2) as answer:
                return bool(answer.status == 200)
        except OSError:
            return False

    def get(self, path: str) -> int:
        request = urllib.request.Request(
            self.url + path, headers={"Authorization": f"Bearer {TOKEN}", "Accept": "text/html"}
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return int(answer.status)
        except urllib.error.HTTPError as exc:
            return int(exc.code)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.communicate()


def wait_until(page: Any, expression: str, arg: Any = None, timeout: float = 30.0) -> None:
    """Poll a JS predicate with ``page.evaluate`` until it is truthy.

    Playwright's ``wait_for_function`` builds its poller with ``eval``, which the
    console's Content-Security-Policy refuses; ``evaluate`` goes through the
    DevTools protocol and is not subject to it.
    """
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression, arg):
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout} s: {expression}")
        page.wait_for_timeout(50)


def csp_violations(page: Any) -> list[str]:
    """Collects the page's Content-Security-Policy refusals (a script or style blocked)."""
    found: list[str] = []
    page.on(
        "console",
        lambda msg: found.append(msg.text) if "Content Security Policy" in msg.text else None,
    )
    return found


def sign_in(page: Any, url: str, token: str = TOKEN) -> None:
    page.goto(f"{url}/login")
    page.get_by_label("Token").fill(token)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{url}/runs")


def shot(page: Any, name: str, *, full_page: bool = False) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"console-{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


UNNAMED_CONTROLS = """
() => [...document.querySelectorAll(
    'a[href], button, input:not([type=hidden]), select, textarea, [tabindex]:not([tabindex="-1"])')]
  .filter((el) => {
    const label = el.getAttribute('aria-label') || el.getAttribute('aria-labelledby')
      || (el.labels && el.labels.length && el.labels[0].textContent.trim())
      || (['A', 'BUTTON'].includes(el.tagName) && el.textContent.trim());
    return !label;
  })
  .map((el) => el.outerHTML.slice(0, 120))
"""

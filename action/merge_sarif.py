"""Step "Check templates" of action.yml, last part: one SARIF run per tool.

``cfnops guard`` checks one template per call; its SARIF files (guard-1.sarif …) become
one run in guard.sarif (the rules, every result and notification), and each run gets its
own ``automationDetails.id`` (``cfnops/diff/``, ``cfnops/guard/``): GitHub code scanning
rejects an upload holding several runs of one tool under one category (since July 2025,
https://docs.github.com/en/code-security/code-scanning/integrating-with-code-scanning/sarif-support-for-code-scanning).

    python merge_sarif.py FOLDER
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def _merge(parts: list[dict[str, Any]]) -> dict[str, Any]:
    log = parts[0]
    run = log["runs"][0]
    notes = run.setdefault("invocations", [{"executionSuccessful": True}])[0]
    for other in parts[1:]:
        for extra in other["runs"]:
            run["results"] = run.get("results", []) + extra.get("results", [])
            more = extra.get("invocations", [{}])[0].get("toolExecutionNotifications", [])
            notes["toolExecutionNotifications"] = notes.get("toolExecutionNotifications", []) + more
    return log


def main(folder: Path) -> int:
    pieces = sorted(folder.glob("guard-*.sarif"), key=lambda p: int(p.stem.split("-")[1]))
    if pieces:
        merged = _merge([json.loads(p.read_text(encoding="utf-8")) for p in pieces])
        (folder / "guard.sarif").write_text(json.dumps(merged), encoding="utf-8")
        for piece in pieces:
            piece.unlink()
    for path in sorted(folder.glob("*.sarif")):
        log = json.loads(path.read_text(encoding="utf-8"))
        for run in log.get("runs", []):
            run["automationDetails"] = {"id": f"cfnops/{path.stem}/"}
        path.write_text(json.dumps(log), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(Path(sys.argv[1])))

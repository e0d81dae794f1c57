"""Step "Comment on the pull request" of action.yml: one comment, created once, then updated.

The comment is found by the marker line the report starts with (``<!-- cfnops-report -->``)
among the pull request's comments (GitHub REST API: "List issue comments", "Create an issue
comment", "Update an issue comment"). Standard library only: it runs before anything else
is installed. Environment: GITHUB_TOKEN, GITHUB_REPOSITORY, GITHUB_EVENT_PATH and
GITHUB_API_URL (set by the runner). The token is never printed.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.request
from typing import Any

MARKER = "<!-- cfnops-report -->"
_MAX_BODY = 65_000  # GitHub refuses comment bodies over 65,536 characters


def _call(method: str, url: str, token: str, body: dict[str, Any] | None = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Authorization", f"Bearer {token}")
    request.add_header("Accept", "application/vnd.github+json")
    request.add_header("X-GitHub-Api-Version", "2022-11-28")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=30) as response:
        text = response.read().decode()
    return json.loads(text) if text else None


def main(argv: list[str]) -> int:
    token = os.environ.get("GITHUB_TOKEN", "")
    repo = os.environ["GITHUB_REPOSITORY"]
    api = os.environ.get("GITHUB_API_URL", "https://api.github.com").rstrip("/")
    with open(os.environ["GITHUB_EVENT_PATH"], encoding="utf-8") as fh:
        number = json.load(fh)["pull_request"]["number"]
    with open(argv[0], encoding="utf-8") as fh:
        body = fh.read()
    if not body.startswith(MARKER):
        body = f"{MARKER}\n{body}"
    if len(body) > _MAX_BODY:
        body = body[:_MAX_BODY] + "\n\n… (report cut: see the job log and the SARIF results)"
    comments_url = f"{api}/repos/{repo}/issues/{number}/comments"
    existing = None
    page = 1
    while existing is None:
        batch = _call("GET", f"{comments_url}?per_page=100&page={page}", token)
        if not batch:
            break
        existing = next((c for c in batch if str(c.get("body", "")).startswith(MARKER)), None)
        page += 1
    if existing is None:
        made = _call("POST", comments_url, token, {"body": body})
        print(f"cfnops: commented on #{number} ({made.get('html_url', made.get('id'))})")
    else:
        _call(
            "PATCH", f"{api}/repos/{repo}/issues/comments/{existing['id']}", token, {"body": body}
        )
        print(f"cfnops: updated comment {existing['id']} on #{number}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Effect keys as cfnops wrote them before positions were typed (``/Map#1~b1/0/Stop#2@1``).

Used in two places only, both for runs that began before the upgrade:

- :func:`parse` reads an old key into a :class:`~cfnops.durable.Position` when the job
  store moves the rows of the old ``cfnops_job_steps`` table into the engine's
  checkpoints (once per database), and when an operator action recorded at an old key
  is compared with a position;
- :func:`digest_text` spells a state entry as the old key did, because a task token
  (``$$.Task.Token``, and the pool slot it holds) is a digest of it: a run waiting for
  ``send-task-success`` across the upgrade keeps the token it handed out.

Nothing else reads or writes this grammar; positions are stored as JSON.
"""

from __future__ import annotations

import re

from cfnops.durable import Attempt, Branch, Mark, Position, Segment, Sleep, Visit
from cfnops.jobs._store_migrate import LEGACY_TABLE

__all__ = ["LEGACY_TABLE", "digest_text", "parse"]

# A state entry: a name (any characters, shortest match) and its visit, followed by what
# can follow an entry in the old grammar.
_ENTRY = re.compile(r"/(?P<name>.+?)#(?P<visit>\d+)(?=~b\d+/\d+|~\d+$|@\d+$|$)", re.DOTALL)
_BRANCH = re.compile(r"~b(?P<launch>\d+)/(?P<index>\d+)")
_TAIL = re.compile(r"(?:~(?P<sleep>\d+)|@(?P<attempt>\d+))$")


def parse(key: str) -> Position | None:
    """The position an old key named, or None when ``key`` is not an old effect key.

    ``…!failed`` (a failed branch's marker) becomes the branch's own position;
    ``/!notify`` the run's notification mark.
    """
    if key == "/!notify":
        return Position.of(Mark("notify"))
    text = key.removesuffix("!failed")
    segments: list[Segment] = []
    pos = 0
    while pos < len(text):
        entry = _ENTRY.match(text, pos)
        if entry is None:
            return None
        segments.append(Visit(entry["name"], int(entry["visit"])))
        pos = entry.end()
        branch = _BRANCH.match(text, pos)
        if branch is not None:
            segments.append(Branch(int(branch["launch"]), int(branch["index"])))
            pos = branch.end()
            continue
        tail = _TAIL.match(text, pos)
        if tail is not None:
            segments.append(
                Sleep(int(tail["sleep"])) if tail["sleep"] else Attempt(int(tail["attempt"]))
            )
            pos = tail.end()
    if not segments or (key.endswith("!failed") and not isinstance(segments[-1], Branch)):
        return None
    return Position(tuple(segments))


def digest_text(entry: Position) -> str:
    """A state entry's position as the old key spelled it (the input of task tokens)."""
    out = ""
    for segment in entry.segments:
        if isinstance(segment, Visit):
            out += f"/{segment.state}#{segment.visit}"
        elif isinstance(segment, Branch):
            out += f"~b{segment.launch}/{segment.index}"
        elif isinstance(segment, Attempt):
            out += f"@{segment.number}"
        elif isinstance(segment, Sleep):
            out += f"~{segment.number}"
        else:
            out += f"/!{segment.name}"
    return out

"""Walk an imported definition: which jobs have surely ended normally before each job starts.

The walk is a must-analysis over the state graph. A job is the set of states whose
``Comment`` carries ``cfnops:job=PATH``; it has *ended normally* once a run leaves that
set by a ``Next``/``Choice``/``Default`` transition, or ends a branch in it (``End``,
``Succeed``). A ``Catch`` transition and a ``Fail`` state end nothing. A ``Parallel``
state has ended normally only when every branch has, so everything each branch surely
ended counts after it. Loops (the polling ``Choice``) are solved to a fixed point, and
sets meet by intersection where paths join.

:func:`ended_before` gives, for every job, the jobs that have surely ended when any of
its states is entered; :func:`dependency_problems` compares it with the source graph.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["dependency_problems", "ended_before", "job_of"]

_TAG = re.compile(r"cfnops:job=(\S+)")
Set = frozenset[str]


def job_of(state: Mapping[str, Any]) -> str | None:
    found = _TAG.search(str(state.get("Comment", "")))
    return found.group(1) if found else None


def _meet(a: Set | None, b: Set) -> Set:
    return b if a is None else a & b


def _targets(state: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    normal: list[str] = []
    if isinstance(state.get("Next"), str):
        normal.append(state["Next"])
    for rule in state.get("Choices") or []:
        if isinstance(rule, Mapping) and isinstance(rule.get("Next"), str):
            normal.append(rule["Next"])
    if isinstance(state.get("Default"), str):
        normal.append(state["Default"])
    caught = [c["Next"] for c in state.get("Catch") or [] if isinstance(c, Mapping)]
    return normal, caught


def _scope(scope: Mapping[str, Any], entry: Set, record: dict[str, Set]) -> Set | None:
    states: Mapping[str, Any] = scope.get("States") or {}
    ins: dict[str, Set | None] = dict.fromkeys(states)
    start = scope.get("StartAt")
    if not isinstance(start, str) or start not in states:
        return None
    ins[start] = entry
    changed = True
    end: Set | None = None
    while changed:
        changed = False
        end = None
        for name, state in states.items():
            here = ins[name]
            if here is None:
                continue
            out = here
            if state.get("Type") == "Parallel":
                for branch in state.get("Branches") or []:
                    branch_end = _scope(branch, here, record)
                    if branch_end is not None:
                        out = out | branch_end
            mine = job_of(state)
            normal, caught = _targets(state)
            for target in normal:
                if target not in states:
                    continue
                gen = out | {mine} if mine and job_of(states[target]) != mine else out
                new = _meet(ins[target], gen)
                if new != ins[target]:
                    ins[target], changed = new, True
            for target in caught:
                if target in states:
                    new = _meet(ins[target], here)
                    if new != ins[target]:
                        ins[target], changed = new, True
            if state.get("Type") == "Succeed" or (
                state.get("End") is True and state.get("Type") != "Fail"
            ):
                end = _meet(end, out | {mine} if mine else out)
    for name, state in states.items():
        mine = job_of(state)
        here = ins[name]
        if mine and here is not None:
            record[mine] = here & record[mine] if mine in record else here
    return end


def ended_before(definition: Mapping[str, Any]) -> dict[str, Set]:
    """Job path → the jobs that have surely ended normally whenever one of its states runs."""
    record: dict[str, Set] = {}
    _scope(definition, frozenset(), record)
    return record


def dependency_problems(
    definition: Mapping[str, Any], jobs: Iterable[str], edges: Iterable[tuple[str, str]]
) -> list[str]:
    """Each source dependency the definition does not keep, and each job never reached."""
    before = ended_before(definition)
    problems = []
    for job in jobs:
        if job not in before:
            problems.append(f"job {job} has no state in the definition")
    for a, b in sorted(set(edges)):
        if b in before and a not in before[b]:
            problems.append(f"{b} can start before {a} has ended")
    return problems

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
from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import unquote

__all__ = ["added_order", "dependency_problems", "ended_before", "job_of"]

_TAG = re.compile(r"cfnops:job=(\S+)")
Set = frozenset[str]
# Inside the walk a set of jobs is an int used as a bitset (bit i: the i-th job met),
# so that unions and intersections stay cheap on job-nets of thousands of jobs.
_Cache = dict[tuple[int, int], "int | None"]


def job_of(state: Mapping[str, Any]) -> str | None:
    """The job path a state's ``Comment`` names (``cfnops:job=PATH``, percent-decoded)."""
    found = _TAG.search(str(state.get("Comment", "")))
    return unquote(found.group(1)) if found else None


def _meet(a: int | None, b: int) -> int:
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


class _Walk:
    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.record: dict[str, int] = {}
        self.cache: _Cache = {}

    def bit(self, job: str | None) -> int:
        if job is None:
            return 0
        if job not in self.index:
            self.index[job] = len(self.index)
        return 1 << self.index[job]

    def scope(self, scope: Mapping[str, Any], entry: int) -> int | None:
        """The jobs surely ended at the scope's normal end; records each job's entry set."""
        key = (id(scope), entry)
        if key not in self.cache:
            self.cache[key] = self._solve(scope, entry)
        return self.cache[key]

    def _after(self, state: Mapping[str, Any], here: int) -> int:
        out = here
        if state.get("Type") == "Parallel":
            for branch in state.get("Branches") or []:
                branch_end = self.scope(branch, here)
                if branch_end is not None:
                    out |= branch_end
        return out

    def _solve(self, scope: Mapping[str, Any], entry: int) -> int | None:
        states: Mapping[str, Any] = scope.get("States") or {}
        start = scope.get("StartAt")
        if not isinstance(start, str) or start not in states:
            return None
        tags = {name: job_of(state) for name, state in states.items()}
        bits = {name: self.bit(tag) for name, tag in tags.items()}
        links = {name: _targets(state) for name, state in states.items()}
        ins: dict[str, int | None] = dict.fromkeys(states)
        ins[start] = entry
        pending, queued = deque([start]), {start}
        while pending:  # a worklist: a state again only when what reaches it shrank
            name = pending.popleft()
            queued.discard(name)
            here = ins[name]
            assert here is not None
            out = self._after(states[name], here)
            mine = tags[name]
            normal, caught = links[name]
            moves = [(t, out | bits[name] if mine and tags.get(t) != mine else out) for t in normal]
            moves += [(t, here) for t in caught]
            for target, gen in moves:
                if target not in states:
                    continue
                new = _meet(ins[target], gen)
                if new != ins[target]:
                    ins[target] = new
                    if target not in queued:
                        pending.append(target)
                        queued.add(target)
        end: int | None = None
        for name, state in states.items():
            here, mine = ins[name], tags[name]
            if here is None:
                continue
            if mine:
                self.record[mine] = here & self.record[mine] if mine in self.record else here
            if state.get("Type") == "Succeed" or (
                state.get("End") is True and state.get("Type") != "Fail"
            ):
                end = _meet(end, self._after(state, here) | bits[name])
        return end


def ended_before(definition: Mapping[str, Any]) -> dict[str, Set]:
    """Job path → the jobs that have surely ended normally whenever one of its states runs."""
    walk = _Walk()
    walk.scope(definition, 0)
    names = sorted(walk.index, key=walk.index.__getitem__)
    out: dict[str, Set] = {}
    for job, mask in walk.record.items():
        text = bin(mask)[:1:-1]
        out[job] = frozenset(names[i] for i, c in enumerate(text) if c == "1")
    return out


def dependency_problems(
    definition: Mapping[str, Any], jobs: Iterable[str], edges: Iterable[tuple[str, str]]
) -> list[str]:
    """Each source dependency the definition does not keep, and each job never reached."""
    walk = _Walk()
    walk.scope(definition, 0)
    problems = [
        f"job {job} has no state in the definition" for job in jobs if job not in walk.record
    ]
    for a, b in sorted(set(edges)):
        if b in walk.record and not walk.record[b] & walk.bit(a):
            problems.append(f"{b} can start before {a} has ended")
    return problems


def added_order(
    definition: Mapping[str, Any], jobs: Iterable[str], edges: Iterable[tuple[str, str]]
) -> dict[str, list[str]]:
    """Job → the jobs it waits for in the definition that the source does not order before
    it (directly or through other jobs): the waits the layout added, for the report."""
    from cfnops.jobimport._graph import topological_order

    walk = _Walk()
    walk.scope(definition, 0)
    edge_set = set(edges)
    nodes = [j for j in jobs if j in walk.record]
    preds: dict[str, list[str]] = {}
    for a, b in edge_set:
        preds.setdefault(b, []).append(a)
    anc: dict[str, int] = {}
    for job in topological_order(nodes, {(a, b) for a, b in edge_set if a in walk.record}):
        mask = 0
        for a in preds.get(job, ()):
            mask |= walk.bit(a) | anc.get(a, 0)
        anc[job] = mask
    names = sorted(walk.index, key=walk.index.__getitem__)
    out: dict[str, list[str]] = {}
    for job in nodes:
        extra = walk.record[job] & ~anc.get(job, 0) & ~walk.bit(job)
        if extra:
            text = bin(extra)[:1:-1]
            out[job] = sorted(names[i] for i, c in enumerate(text) if c == "1")
    return out

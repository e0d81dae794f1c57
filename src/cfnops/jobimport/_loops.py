"""Cyclic job trains → bounded job-net loops.

Control-M runs a *job train* in a loop when the last job adds the event the first one
waits for (the trains' jobs delete their events as they go: BMC Control-M, "Cyclic jobs
and job trains"); JP1 loops through start conditions. ASL has no cycles between branches,
but a state machine may loop: each strongly connected part of the dependency graph is
collapsed into one loop node, laid out without the edges that close the cycle (an edge
to a job defined earlier in the export), and repeated by a ``Choice`` up to a bound.

The bound: the largest rerun count of the train's jobs plus one when one has a cyclic
rerun rule, else :data:`DEFAULT_ROUNDS`; it is reported with the manual step.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from cfnops.jobimport._model import Job

__all__ = ["DEFAULT_ROUNDS", "Loop", "collapse_cycles"]

DEFAULT_ROUNDS = 10


@dataclass(frozen=True)
class Loop:
    """One job train: its jobs (export order), inner edges kept, edges closing it."""

    key: str  # the node that stands for the loop in the outer graph
    members: tuple[str, ...]
    edges: frozenset[tuple[str, str]]
    back_edges: frozenset[tuple[str, str]]
    rounds: int


def _sccs(nodes: Sequence[str], edges: set[tuple[str, str]]) -> list[list[str]]:
    """Strongly connected components (Tarjan, iterative)."""
    succ: dict[str, list[str]] = {n: [] for n in nodes}
    for a, b in edges:
        if a in succ and b in succ:
            succ[a].append(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    for root in nodes:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on.add(node)
            if i < len(succ[node]):
                work.append((node, i + 1))
                child = succ[node][i]
                if child not in index:
                    work.append((child, 0))
                elif child in on:
                    low[node] = min(low[node], index[child])
                continue
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                out.append(_pop_component(stack, on, node))
    return out


def _pop_component(stack: list[str], on: set[str], root: str) -> list[str]:
    """Pop the component whose root is ``root`` off Tarjan's stack."""
    part = []
    while True:
        top = stack.pop()
        on.discard(top)
        part.append(top)
        if top == root:
            return part


def collapse_cycles(
    nodes: Sequence[str], edges: set[tuple[str, str]], jobs: Mapping[str, Job]
) -> tuple[list[str], set[tuple[str, str]], dict[str, Loop]]:
    """The outer graph (each train one node) and the trains by their node."""
    pos = {n: i for i, n in enumerate(nodes)}
    loops: dict[str, Loop] = {}
    owner: dict[str, str] = {}
    for part in _sccs(nodes, edges):
        if len(part) == 1 and (part[0], part[0]) not in edges:
            continue
        members = tuple(sorted(part, key=pos.__getitem__))
        inside = set(members)
        inner = {(a, b) for a, b in edges if a in inside and b in inside}
        back = frozenset((a, b) for a, b in inner if pos[a] >= pos[b])
        reruns = [r.max_attempts for m in members if (r := jobs[m].rerun) is not None]
        key = f"\x00loop{len(loops) + 1}"
        loops[key] = Loop(
            key,
            members,
            frozenset(inner - back),
            back,
            max(reruns) + 1 if reruns else DEFAULT_ROUNDS,
        )
        owner.update((m, key) for m in members)
    if not loops:
        return list(nodes), edges, {}
    outer_nodes: list[str] = []
    for n in nodes:
        o = owner.get(n, n)
        if o not in outer_nodes:
            outer_nodes.append(o)
    outer_edges = {
        (owner.get(a, a), owner.get(b, b)) for a, b in edges if owner.get(a, a) != owner.get(b, b)
    }
    return outer_nodes, outer_edges, loops

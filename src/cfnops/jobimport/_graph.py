"""Dependency graph → series/parallel structure (the shape the ASL builder lays out).

Semantics kept: job B may start only once every job it depends on (directly or through
others) has ended normally, and — where the graph allows it — not later than that.

- **Series-parallel graphs are laid out exactly.** The order the edges define (their
  transitive closure) is split recursively: a *series* cut is a prefix ``X`` of the
  topological order with every job of ``X`` before every job after it (found in one
  scan with bitsets); a *parallel* split separates jobs no edge path connects. The
  result waits for exactly the source's dependencies, no more.
- **Other graphs (an "N": a→c, b→c, b→d with a and d unrelated) get layers.** ASL
  branches cannot wait for each other, so where no cut exists the jobs with no
  predecessor left are run first, side by side, and the rest after them. Every
  dependency is kept; some jobs also wait for a job they did not depend on. Each such
  extra wait is returned (:attr:`Layout.extra_waits`) and reported.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Union

__all__ = ["Layout", "Par", "Seq", "find_cycle", "layout", "topological_order"]


@dataclass(frozen=True)
class Seq:
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Par:
    items: tuple[Node, ...]


Node = Union[str, Seq, Par]  # noqa: UP007 - a recursive alias needs the Union spelling


@dataclass
class Layout:
    root: Node | None
    extra_waits: list[tuple[str, str]] = field(default_factory=list)  # (waited for, job)


def find_cycle(nodes: Sequence[str], edges: Iterable[tuple[str, str]]) -> list[str] | None:
    """A dependency cycle as a path (first node repeated at the end), or None."""
    succ: dict[str, list[str]] = {n: [] for n in nodes}
    for a, b in edges:
        succ.setdefault(a, []).append(b)
    state: dict[str, int] = {}
    for start in nodes:
        if start in state:
            continue
        stack: list[tuple[str, int]] = [(start, 0)]
        path: list[str] = []
        while stack:
            node, i = stack.pop()
            if i == 0:
                state[node] = 1
                path.append(node)
            nxt = succ.get(node, [])
            if i < len(nxt):
                stack.append((node, i + 1))
                child = nxt[i]
                if state.get(child) == 1:
                    return [*path[path.index(child) :], child]
                if child not in state:
                    stack.append((child, 0))
            else:
                state[node] = 2
                path.pop()
    return None


def topological_order(nodes: Sequence[str], edges: Iterable[tuple[str, str]]) -> list[str]:
    """Kahn's order, ties broken by the source order of ``nodes`` (stable output)."""
    index = {n: i for i, n in enumerate(nodes)}
    succ: dict[str, list[str]] = {n: [] for n in nodes}
    indeg = dict.fromkeys(nodes, 0)
    for a, b in set(edges):
        succ[a].append(b)
        indeg[b] += 1
    import heapq

    ready = [index[n] for n in nodes if indeg[n] == 0]
    heapq.heapify(ready)
    out: list[str] = []
    while ready:
        n = nodes[heapq.heappop(ready)]
        out.append(n)
        for m in succ[n]:
            indeg[m] -= 1
            if indeg[m] == 0:
                heapq.heappush(ready, index[m])
    return out


def layout(nodes: Sequence[str], edges: Iterable[tuple[str, str]]) -> Layout:
    """The series/parallel structure of an acyclic graph (see the module docstring)."""
    edge_set = set(edges)
    order = topological_order(nodes, edge_set)
    if len(order) != len(nodes):
        raise ValueError("the graph has a cycle")  # readers check first, with the path
    pos = {n: i for i, n in enumerate(order)}
    n = len(order)
    succ: list[list[int]] = [[] for _ in range(n)]
    pred: list[list[int]] = [[] for _ in range(n)]
    for a, b in edge_set:
        succ[pos[a]].append(pos[b])
        pred[pos[b]].append(pos[a])
    desc = [0] * n
    for i in range(n - 1, -1, -1):
        m = 0
        for j in succ[i]:
            m |= (1 << j) | desc[j]
        desc[i] = m
    anc = [0] * n
    for i in range(n):
        m = 0
        for j in pred[i]:
            m |= (1 << j) | anc[j]
        anc[i] = m
    builder = _Builder(order, desc, anc)
    root = builder.build((1 << n) - 1) if n else None
    return Layout(root, builder.extra)


def _bits(mask: int) -> list[int]:
    """Indices of the set bits, ascending (one pass over the binary text: C speed)."""
    text = bin(mask)[:1:-1]
    return [i for i, c in enumerate(text) if c == "1"]


class _Builder:
    def __init__(self, order: list[str], desc: list[int], anc: list[int]) -> None:
        self.order, self.desc, self.anc = order, desc, anc
        self.extra: list[tuple[str, str]] = []

    def build(self, mask: int) -> Node:
        return self._piece(mask)

    def _piece(self, mask: int) -> Node:
        members = _bits(mask)  # ascending = topological order
        if len(members) == 1:
            return self.order[members[0]]
        comps = self._components(mask, members)
        if len(comps) > 1:
            return Par(tuple(self._piece(c) for c in comps))
        cuts = self._series(mask, members)
        if len(cuts) > 1:
            return Seq(tuple(self._piece(c) for c in cuts))
        return self._layers(mask, members)

    def _components(self, mask: int, members: list[int]) -> list[int]:
        comps: list[int] = []
        left = mask
        for start in members:
            if not left >> start & 1:
                continue
            comp = 1 << start
            frontier = comp
            while frontier:
                grow = 0
                for i in _bits(frontier):
                    grow |= (self.desc[i] | self.anc[i]) & mask
                frontier = grow & ~comp
                comp |= grow
            comps.append(comp)
            left &= ~comp
        return comps

    def _series(self, mask: int, members: list[int]) -> list[int]:
        """The maximal series decomposition: cuts where every earlier job precedes every later."""
        pieces: list[int] = []
        common = -1  # jobs after every job of the current prefix
        prefix = 0
        for i in members[:-1]:
            prefix |= 1 << i
            common &= self.desc[i]
            rest = mask & ~prefix
            if rest & ~common == 0:
                pieces.append(prefix)
                mask = rest
                prefix, common = 0, -1
        pieces.append(mask)
        return pieces

    def _layers(self, mask: int, members: list[int]) -> Node:
        """Peel the jobs with no predecessor left until the rest splits (iterative)."""
        items: list[Node] = []
        while True:
            sources = [i for i in members if self.anc[i] & mask == 0]
            first = 0
            for i in sources:
                first |= 1 << i
            rest = mask & ~first
            for i in sources:
                for j in _bits(rest & ~self.desc[i]):
                    self.extra.append((self.order[i], self.order[j]))
            names = tuple(self.order[i] for i in sources)
            items.append(names[0] if len(names) == 1 else Par(names))
            mask, members = rest, _bits(rest)
            if len(members) == 1:
                items.append(self.order[members[0]])
                break
            comps = self._components(mask, members)
            if len(comps) > 1:
                items.append(Par(tuple(self._piece(c) for c in comps)))
                break
            cuts = self._series(mask, members)
            if len(cuts) > 1:
                items.extend(self._piece(c) for c in cuts)
                break
        return Seq(tuple(items))

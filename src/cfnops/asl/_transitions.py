"""The arrows of a ``States`` map, as the pictures of a state machine draw them."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


def transitions(states: Mapping[str, Any]) -> Iterator[tuple[str, str, str, tuple[str, ...]]]:
    """``(state, next state, kind, error names)`` of every transition the states name.

    ``kind`` is ``""`` for ``Next``, ``"choice"`` for a Choice rule, ``"default"`` or
    ``"catch"``; the error names are a Catcher's ``ErrorEquals`` (empty for the other
    kinds). Per state: Next, Choices, Default, then Catch. Nested machines (Parallel
    branches, Map item processors) are not entered: call it on each ``States`` map.
    Used by ``cfnops job graph`` (DOT, Mermaid) and the console's Job run page.
    """
    for name, state in states.items():
        if "Next" in state:
            yield name, str(state["Next"]), "", ()
        for rule in state.get("Choices", []) or []:
            if "Next" in rule:
                yield name, str(rule["Next"]), "choice", ()
        if "Default" in state:
            yield name, str(state["Default"]), "default", ()
        for catcher in state.get("Catch", []) or []:
            yield name, str(catcher.get("Next")), "catch", tuple(catcher.get("ErrorEquals", []))

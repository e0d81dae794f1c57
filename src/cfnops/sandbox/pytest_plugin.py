"""pytest plugin (entry point ``cfnops``): the ``cfnops_sandbox`` fixture.

One sandbox server runs per test session (moto's backends are process-global
anyway); ``cfnops_sandbox`` hands it to each test with every delay at 0 and
clears faults afterwards. Use unique resource names per test, or call
``cfnops_sandbox.reset()`` to start from an empty account.

Example::

    def test_my_runbook(cfnops_sandbox):
        ssm = cfnops_sandbox.client("ssm")
        ssm.put_parameter(Name="/app/x", Value="1", Type="String")
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # imported lazily: every pytest run loads this plugin
    from cfnops.sandbox._core import Sandbox


@pytest.fixture(scope="session")
def cfnops_sandbox_server() -> Iterator[Sandbox]:
    """The session's sandbox server (delays 0)."""
    from cfnops.sandbox._core import Sandbox

    with Sandbox(delays=0) as sandbox:
        yield sandbox


@pytest.fixture
def cfnops_sandbox(cfnops_sandbox_server: Sandbox) -> Iterator[Sandbox]:
    """A running sandbox with zero delays; delays and faults restored after the test."""
    from cfnops.sandbox._state import Delays

    state = cfnops_sandbox_server.state
    state.set_delays(Delays.zero())
    yield cfnops_sandbox_server
    state.set_delays(Delays.zero())
    with state.lock:
        state.faults.clear()

"""Test job-nets from pytest: mocked Task answers, in-process, no AWS and no database.

Enable the fixture in a ``conftest.py``::

    pytest_plugins = ["cfnops.jobs.testing"]

then::

    def test_webapp_stop_survives_throttling(jobnet_test):
        test = jobnet_test("examples/jobnets/webapp-stop.asl.json",
                           "examples/jobnets/webapp-stop.mocks.json")
        result = test.run("ThrottledRunCommand")
        assert_passed(result)                       # the file's cfnops expectations
        assert [c.attempt for c in result.calls if c.state == "StopApache"] == [0, 1, 2]

Without pytest, :class:`cfnops.jobs.JobNetTest` does the same (``run``/``run_all``).
A :class:`cfnops.jobs.CaseResult` carries the status, output, error, cause, the states
entered in order (``states``), every mocked Task call with its attempt (``calls``) and
the history events in Step Functions' vocabulary (``events``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from cfnops.jobs._definition import load_definition
from cfnops.jobs._jobtest import CaseResult, JobNetTest, load_job_test

__all__ = ["assert_passed", "jobnet_test"]

Source = str | Path | Mapping[str, Any]


def _build(definition: Source, mocks: Source, *, state_machine: str | None = None) -> JobNetTest:
    if isinstance(definition, str | Path) and isinstance(mocks, str | Path):
        return load_job_test(definition, mocks, state_machine=state_machine)
    defn = load_definition(definition) if isinstance(definition, str | Path) else definition
    if isinstance(mocks, str | Path):
        import json

        mocks = json.loads(Path(mocks).read_text(encoding="utf-8"))
    assert isinstance(mocks, Mapping)
    return JobNetTest(defn, mocks, state_machine=state_machine)


@pytest.fixture
def jobnet_test() -> Callable[..., JobNetTest]:
    """A factory: ``jobnet_test(definition, mocks, state_machine=None)`` → JobNetTest.

    ``definition`` and ``mocks`` are file paths or already parsed dicts."""
    return _build


def assert_passed(result: CaseResult) -> None:
    """Fail the test with every unmet expectation of the case (or why it could not run)."""
    if result.setup_error is not None:
        raise AssertionError(result.setup_error)
    if result.problems:
        raise AssertionError(f"test case {result.case!r}:\n" + "\n".join(result.problems))

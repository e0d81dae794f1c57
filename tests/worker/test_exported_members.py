"""The public names of cfnops.worker, pinned (a change here is an API change)."""

from __future__ import annotations

import cfnops.worker


def test_worker_exports_are_pinned() -> None:
    assert sorted(cfnops.worker.__all__) == [
        "MetricsPortUnavailable",
        "Worker",
        "WorkerError",
        "WorkerOptions",
    ]
    assert len(set(cfnops.worker.__all__)) == len(cfnops.worker.__all__)


def test_worker_exports_resolve() -> None:
    for name in cfnops.worker.__all__:
        assert getattr(cfnops.worker, name) is not None, name

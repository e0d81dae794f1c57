"""The public names of cfnops.metrics, pinned (a change here is an API change)."""

from __future__ import annotations

import cfnops.metrics


def test_metrics_exports_are_pinned() -> None:
    assert sorted(cfnops.metrics.__all__) == [
        "MetricsServer",
        "RUN_BUCKETS",
        "StoreCollector",
        "serve",
    ]
    assert len(set(cfnops.metrics.__all__)) == len(cfnops.metrics.__all__)


def test_metrics_exports_resolve() -> None:
    for name in cfnops.metrics.__all__:
        assert getattr(cfnops.metrics, name) is not None, name

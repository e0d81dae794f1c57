"""The public names of cfnops.review (a change here is an API change)."""

from __future__ import annotations

import cfnops.review


def test_review_exports() -> None:
    assert sorted(cfnops.review.__all__) == [
        "ReviewRequest",
        "ReviewResult",
        "ReviewRuntime",
        "review",
    ]
    for name in cfnops.review.__all__:
        assert getattr(cfnops.review, name).__module__.startswith("cfnops.review.")

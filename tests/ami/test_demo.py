"""``cfnops demo ami`` end to end: both patterns IN_SYNC, the naive approach DRIFTED."""

from __future__ import annotations

import pytest

from cfnops.config import Settings
from cfnops.demo.ami import run_demo


@pytest.mark.slow
def test_demo_reports_in_sync_in_sync_drifted(settings: Settings) -> None:
    report = run_demo(settings, delays=0)
    assert report["summary"] == {
        "pattern1 (SSM parameter)": "IN_SYNC",
        "pattern2 (stack parameter)": "IN_SYNC",
        "naive (new LT version + group version)": "DRIFTED",
    }
    assert report["ok"] is True
    steps = report["steps"]
    assert steps["handler"]["errors"] == []
    assert [r["outcome"] for r in steps["handler"]["results"]] == ["UPDATED", "UPDATED"]
    for pattern in ("pattern1", "pattern2"):
        assert steps[pattern]["replacementImageId"] == steps[pattern]["newImageId"]
    assert steps["naive"]["afterNewVersion"]["StackDriftStatus"] == "IN_SYNC"

"""``cfnops demo ami`` end to end: both patterns IN_SYNC, the naive approach DRIFTED."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cfnops.config import Settings
from cfnops.demo.ami import run_demo


@pytest.mark.slow
def test_demo_reports_in_sync_in_sync_drifted(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No credentials anywhere but the sandbox's own clients, and the demo must not
    # set any: it hands its clients to the workflow instead of exporting variables.
    for key in [k for k in os.environ if k.startswith("AWS_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    before = dict(os.environ)
    report = run_demo(settings, delays=0)
    assert dict(os.environ) == before
    assert report["summary"] == {
        "pattern1 (SSM parameter)": "IN_SYNC",
        "pattern2 (stack parameter)": "IN_SYNC",
        "naive (new LT version + group version)": "DRIFTED",
        "pattern3 (stack parameter + instance refresh)": "IN_SYNC",
    }
    assert report["ok"] is True
    steps = report["steps"]
    assert steps["handler"]["errors"] == []
    assert [r["outcome"] for r in steps["handler"]["results"]] == ["UPDATED", "UPDATED"]
    for pattern in ("pattern1", "pattern2"):
        assert steps[pattern]["replacementImageId"] == steps[pattern]["newImageId"]
    assert steps["naive"]["afterNewVersion"]["StackDriftStatus"] == "IN_SYNC"
    # Pattern 3: new instances from the new AMI, the refresh's progress reported.
    p3 = steps["pattern3"]
    assert p3["rolled"] is True and p3["errors"] == []
    assert set(p3["instancesAfter"]).isdisjoint(p3["instancesBefore"])
    (result,) = p3["results"]
    assert result["outcome"] == "UPDATED"
    assert result["Roll"]["Progress"][-1]["Status"] == "Successful"

"""``--forecast``: source rules vs imported schedules, per job, on the project's exports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jobimport_helpers import DATA

from cfnops.cli.main import run

_EXPORTS = [
    ("controlm_fin.json", "controlm", []),
    ("controlm_payroll.xml", "controlm", ["--calendars", str(DATA / "controlm_defcal.xml")]),
    ("jp1_sales.txt", "jp1", []),
]


def _forecast(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, product: str, extra: list[str]
) -> dict[str, Any]:
    args = ["-o", "json", "job", "import", str(DATA / name), "--from", product, *extra,
            "--out", str(tmp_path / "o"), "--today", "2027-01-01", "--forecast", "365"]  # fmt: skip
    assert run(args) == 0
    return json.loads(capsys.readouterr().out)["forecast"]  # type: ignore[no-any-return]


@pytest.mark.parametrize(("name", "product", "extra"), _EXPORTS, ids=[e[0] for e in _EXPORTS])
def test_every_job_runs_on_the_same_days_or_the_difference_has_its_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, product: str, extra: list[str]
) -> None:
    fc = _forecast(tmp_path, capsys, name, product, extra)
    assert fc["from"] == "2027-01-01" and fc["days"] == 365
    for row in fc["jobs"]:
        assert row["source"] is not None, row["job"]
        if not row["equal"]:
            assert row["reasons"] and "no report entry" not in row["reasons"][0], row["job"]


def test_the_fin_export_forecast_by_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = {r["job"]: r for r in _forecast(tmp_path, capsys, *_EXPORTS[0])["jobs"]}
    # FIN_DAILY: Mon-Fri 02:30 JST confirmed by JP_WORKDAYS (listed Jan-Feb 2027 only), next
    # confirmed day: Jan 4-8, 12-15 (Jan 11 closed, moved to 12 and kept once) ...
    daily = rows["FIN_DAILY/Load_DW"]
    assert daily["equal"] and daily["source"][:6] == [
        "2027-01-04 02:30", "2027-01-05 02:30", "2027-01-06 02:30", "2027-01-07 02:30",
        "2027-01-08 02:30", "2027-01-12 02:30",
    ]  # fmt: skip
    assert daily["source"][-1] == "2027-02-26 02:30" and len(daily["source"]) == 37
    # FIN_MONTHLY: MonthDays L1 at 06:00 in the source; imported after FIN_DAILY (reported)
    monthly = rows["FIN_MONTHLY/Publish"]
    assert monthly["source"][:3] == ["2027-01-31 06:00", "2027-02-28 06:00", "2027-03-31 06:00"]
    assert len(monthly["source"]) == 12 and not monthly["equal"]
    assert any("replaced by the after dependency" in r for r in monthly["reasons"])


def test_calendar_forecast_reads_an_import_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "o"
    args = ["job", "import", str(DATA / "controlm_payroll.xml"), "--from", "controlm",
            "--calendars", str(DATA / "controlm_defcal.xml"), "--out", str(out)]  # fmt: skip
    assert run(args) == 0
    capsys.readouterr()
    fc = ["-o", "json", "job", "calendar", "forecast", str(out), "--from-date", "2027-01-01"]
    assert run([*fc, "--days", "20"]) == 0
    nets = {n["jobNet"]: n["runs"] for n in json.loads(capsys.readouterr().out)["jobNets"]}
    # by hand: the 1st is closed in WORKDAYS 2027 (Jan 1-3), next open day Jan 4; the 15th
    # (Fri) is open; GL: Mon-Fri at 23:00 UTC, Jan 1 (Fri), 4-8, 11-15, 18-20
    assert nets["PAY_MONTHLY"] == ["2027-01-04 07:00", "2027-01-15 07:00"]
    assert len(nets["GL_NIGHTLY"]) == 14 and nets["GL_NIGHTLY"][:2] == [
        "2027-01-01 23:00", "2027-01-04 23:00"]  # fmt: skip
    assert run(["job", "calendar", "forecast", str(tmp_path)]) == 2
    assert "report.json" in capsys.readouterr().err

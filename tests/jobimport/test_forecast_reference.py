"""``--forecast-reference``: the vendor's own forecast (JP1 ``ajsschedule`` output, a
Control-M forecast CSV) against the imported job-nets, every difference by job path.

The sample files under ``data/`` are written by hand; their dates are worked out in their
comments (JP1) and below (Control-M), not taken from cfnops."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from jobimport_helpers import DATA

from cfnops.cli.main import run
from cfnops.jobimport import read_reference
from cfnops.jobimport.errors import ImportInputError


def _import(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], export: str, product: str,
    ref: Path, days: int, *, json_out: bool = True,
) -> Any:  # fmt: skip
    args = ["job", "import", str(DATA / export), "--from", product, "--out", str(tmp_path / "o"),
            "--today", "2027-01-01", "--forecast", str(days),
            "--forecast-reference", str(ref)]  # fmt: skip
    assert run(["-o", "json", *args] if json_out else args) == 0
    out = capsys.readouterr().out
    return json.loads(out)["forecast"]["reference"] if json_out else out


def _by_job(cmp: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["job"]: r for r in cmp["jobs"]}


def test_jp1_ajsschedule_output_is_the_reference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cmp = _import(tmp_path, capsys, "jp1_sales.txt", "jp1", DATA / "jp1_sales_schedule.txt", 31)
    rows = _by_job(cmp)
    daily = rows["DAILY_SALES/POST/POST_GL"]
    # by hand (the file's comments): Jan 4-9, 12-15, 18-22, 25-28 at 01:30 = 19 runs; the
    # 9th is written 2027/01/08 25:30
    assert daily["entry"] == "DAILY_SALES" and len(daily["reference"]) == 19
    assert "2027-01-09 01:30" in daily["reference"] and "2027-01-10 01:30" not in daily["reference"]
    assert rows["MONTH_CLOSE/CLOSE"]["reference"] == ["2027-01-29 22:00"]
    assert all(r["equal"] and r["sourceAgrees"] for r in cmp["jobs"]), cmp["jobs"]
    assert cmp["unmatched"] == []


def test_jp1_every_difference_is_listed_with_the_job_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the vendor says: no run on the 12th, one on Saturday the 30th (a closed day)
    text = (DATA / "jp1_sales_schedule.txt").read_text()
    text = text.replace("DAILY_SALES,202701120130,n\n", "DAILY_SALES,202701300130,n\n")
    text += "WEEKLY_REPORT,202701040900,n\n"
    ref = tmp_path / "sched.txt"
    ref.write_text(text)
    cmp = _import(tmp_path, capsys, "jp1_sales.txt", "jp1", ref, 31)
    for job in ("DAILY_SALES/FETCH/FETCH_EAST", "DAILY_SALES/AGGREGATE", "DAILY_SALES/NOTIFY"):
        row = _by_job(cmp)[job]
        assert not row["equal"] and row["sourceAgrees"] is False
        assert row["onlyReference"] == ["2027-01-30 01:30"]
        assert row["onlyImported"] == ["2027-01-12 01:30"]
    assert _by_job(cmp)["MONTH_CLOSE/CLOSE"]["equal"]
    assert cmp["unmatched"] == ["WEEKLY_REPORT"]
    out = _import(tmp_path, capsys, "jp1_sales.txt", "jp1", ref, 31, json_out=False)
    assert "DAILY_SALES/POST/POST_BI: differs from the vendor's forecast (DAILY_SALES)" in out
    assert "only in the vendor's forecast (1): 2027-01-30 01:30" in out
    assert "only imported (1): 2027-01-12 01:30" in out
    assert "WEEKLY_REPORT: in the vendor's forecast, no imported job" in out
    assert "1 of 8 jobs run as the vendor's forecast says" in out


def test_controlm_forecast_csv_is_the_reference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # by hand: FIN_DAILY Mon-Fri 02:30 confirmed by JP_WORKDAYS (Jan 1 closed, moved to the
    # 4th, which runs anyway): Jan 4-8 in Jan 1-10; FIN_MONTHLY (L1 06:00) is ordered on
    # Jan 31, outside the 10 days; the import runs it after each FIN_DAILY (reported)
    ref = DATA / "controlm_fin_forecast.csv"
    cmp = _import(tmp_path, capsys, "controlm_fin.json", "controlm", ref, 10)
    rows = _by_job(cmp)
    days = [f"2027-01-0{d} 02:30" for d in range(4, 9)]
    assert rows["FIN_DAILY/Load_DW"]["reference"] == days and rows["FIN_DAILY/Load_DW"]["equal"]
    assert sum(r["equal"] for r in cmp["jobs"]) == 12
    publish = rows["FIN_MONTHLY/Publish"]
    assert publish["reference"] == [] and publish["onlyImported"] == days
    assert publish["sourceAgrees"] is True  # the source rules say no run in Jan 1-10 too
    assert any("replaced by the after dependency" in r for r in publish["reasons"])
    out = _import(tmp_path, capsys, "controlm_fin.json", "controlm", ref, 10, json_out=False)
    assert "FIN_MONTHLY/Publish: differs from the vendor's forecast" in out
    assert "only imported (5): 2027-01-04 02:30, 2027-01-05 02:30" in out


def test_a_job_the_controlm_forecast_does_not_list_runs_on_no_day(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = (DATA / "controlm_fin_forecast.csv").read_text().splitlines(keepends=True)
    ref = tmp_path / "f.csv"  # semicolons, ISO dates, HH:MM; Cleanup left out
    ref.write_text("".join(
        line.replace(",", ";").replace("2027010", "2027-01-0").replace(";0230", ";02:30")
        for line in lines if "Cleanup" not in line
    ))  # fmt: skip
    rows = _by_job(_import(tmp_path, capsys, "controlm_fin.json", "controlm", ref, 10))
    assert rows["FIN_DAILY/Load_DW"]["equal"]
    cleanup = rows["FIN_DAILY/Cleanup"]
    assert cleanup["entry"] is None and cleanup["reference"] == [] and not cleanup["equal"]
    assert len(cleanup["onlyImported"]) == 5


@pytest.mark.parametrize(
    ("product", "text", "where", "says"),
    [
        ("jp1", (DATA / "jp1_sales_schedule_bad.txt").read_text(), "line 3", "YYYYMMDDHHMM"),
        ("jp1", "DAILY_SALES,202702300130,n\n", "line 1", "no such day"),
        ("jp1", "DAILY_SALES,202701014830,n\n", "line 1", "hours 0-47"),
        ("jp1", "DAILY_SALES,202701040130,x\n", "line 1", "neither h nor n"),
        ("jp1", "/* a comment\nnever closed\n", "line 2", "not closed"),
        ("jp1", "/* c */ DAILY_SALES,202701040130,n\n", "line 1", "shares its line"),
        ("controlm", "Folder,Job Name,Time\nF,J,0230\n", "line 1", "no date column"),
        (
            "controlm",
            "Folder,Job,Order Date\nF,J,20270104\nF,J,2027-13-01\n",
            "line 3",
            "no such day",
        ),
        ("controlm", "Folder,Job,Order Date\nF,J,04/01/27\n", "line 2", "not YYYYMMDD"),
        ("controlm", "Folder,Job,Date,Time\nF,J,20270104,2561\n", "line 2", "not HHMM"),
        ("controlm", "Folder,Job,Date\nF,,20270104\n", "line 2", "no job name"),
    ],
)
def test_a_malformed_reference_names_its_line(
    product: str, text: str, where: str, says: str
) -> None:
    with pytest.raises(ImportInputError) as err:
        read_reference(text.encode(), "ref.txt", product)
    assert err.value.where == where and says in err.value.problem, err.value


def test_a_malformed_reference_stops_the_import_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "o"
    args = ["job", "import", str(DATA / "jp1_sales.txt"), "--from", "jp1", "--out", str(out),
            "--forecast", "31",
            "--forecast-reference", str(DATA / "jp1_sales_schedule_bad.txt")]  # fmt: skip
    assert run(args) == 2
    err = capsys.readouterr().err
    assert "jp1_sales_schedule_bad.txt: line 3" in err and "ajsschedule" in err
    assert not out.exists()
    assert run([*args[:-4], "--forecast-reference", str(DATA / "jp1_sales_schedule.txt")]) == 2
    assert "needs --forecast" in capsys.readouterr().err


def test_shift_jis_ajsschedule_output() -> None:
    ref = read_reference("/* 売上 */\n売上日次,202701040130,n\n".encode("cp932"), "s", "jp1")
    assert set(ref.runs) == {"売上日次"}


def test_blank_separated_ajsschedule_lines_read_as_comma_separated() -> None:
    # the manual draws the separators in a figure only: a line of blank-separated items
    # is read the same, not taken for a job line (a name alone) and dropped
    commas = (DATA / "jp1_sales_schedule.txt").read_text()
    blanks = "\n".join(
        line if line.startswith(("/*", " ")) else line.replace(",", " ")
        for line in commas.splitlines()
    )
    assert "DAILY_SALES 202701082530 n" in blanks
    want = read_reference(commas.encode(), "c", "jp1").runs
    assert read_reference(blanks.encode(), "b", "jp1").runs == want
    assert len(want["DAILY_SALES"]) == 19
    ref = read_reference(b"MONTH_CLOSE   202701292200  h\nCLOSE h\n", "b", "jp1")
    assert ref.runs == {"MONTH_CLOSE": {(date(2027, 1, 29), "22:00")}}
    with pytest.raises(ImportInputError) as err:
        read_reference(b"DAILY_SALES 2027-01-04 n\n", "b", "jp1")
    assert "not YYYYMMDDHHMM" in err.value.problem

"""JP1/AJS3 ajsprint output: a root jobnet with nested jobnets, relations, a schedule rule
with a closed-day shift, an exclusive schedule, a recovery job; UTF-8 and Shift_JIS."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from jobimport_helpers import DATA, fire_days, report

from cfnops.cli.main import run
from cfnops.jobimport import ended_before

SRC = DATA / "jp1_sales.txt"


def _import(src: Path, out: Path) -> int:
    return run(
        [
            "job",
            "import",
            str(src),
            "--from",
            "jp1",
            "--out",
            str(out),
            "--today",
            "2026-12-01",
            "--timezone",
            "Asia/Tokyo",
        ]
    )


@pytest.fixture
def out(tmp_path: Path) -> Path:
    assert _import(SRC, tmp_path / "imported") == 0
    return tmp_path / "imported"


def test_nested_jobnets_are_flattened_with_their_relations(out: Path) -> None:
    nets = {n["name"]: n for n in report(out)["jobNets"]}
    assert {k: v["jobs"] for k, v in nets.items()} == {"DAILY_SALES": 8, "MONTH_CLOSE": 1}
    before = ended_before(json.loads((out / "DAILY_SALES.asl.json").read_text()))
    p = "DAILY_SALES/"
    fetch = {p + "FETCH/FETCH_EAST", p + "FETCH/FETCH_WEST", p + "FETCH/MERGE"}
    assert before[p + "FETCH/MERGE"] >= {p + "FETCH/FETCH_EAST", p + "FETCH/FETCH_WEST"}
    assert before[p + "AGGREGATE"] >= fetch  # FETCH -> AGGREGATE: after the whole jobnet
    assert before[p + "POST/POST_GL"] >= {p + "AGGREGATE"}
    assert p + "POST/POST_BI" not in before[p + "POST/POST_GL"]
    assert before[p + "NOTIFY"] >= {p + "POST/POST_GL", p + "POST/POST_BI"}


def _find(defn: dict, name: str) -> dict:  # type: ignore[type-arg]
    if name in defn["States"]:
        return defn["States"][name]  # type: ignore[no-any-return]
    for state in defn["States"].values():
        for branch in state.get("Branches", []):
            try:
                return _find(branch, name)
            except KeyError:
                pass
    raise KeyError(name)


def test_job_parameters(out: Path) -> None:
    text = (out / "DAILY_SALES.asl.json").read_text()
    d = json.loads(text)
    east = _find(d, "FETCH_EAST.Rerun")
    assert (east["Retry"][0]["MaxAttempts"], east["Retry"][0]["IntervalSeconds"]) == (2, 60)
    assert 'merged\\".csv' in text  # #" in a quoted value is a quote
    assert "AWS-RunPowerShellScript" in text and "POST_BI.Confirm" in text  # PC job, ha=y
    post_gl = _find(d, "POST_GL")["Arguments"]["Targets"]  # no ex: its jobnet's agent
    assert post_gl == [{"Key": "tag:Name", "Values": ["salesap03"]}]
    unmapped = report(out)["unmapped"]
    aggregate = _find(d, "AGGREGATE.Recovery")  # FAIL_MAIL (rj) runs when AGGREGATE fails
    assert aggregate["Catch"] == [{"ErrorEquals": ["States.ALL"], "Next": "FAIL_MAIL"}]
    assert _find(d, "AGGREGATE.Recovered")["Type"] == "Fail"
    assert any("JP1 event sending job" in u["reason"] for u in unmapped)


def test_closed_day_shift_and_exclusive_schedule_2027(out: Path) -> None:
    nets = {n["name"]: n for n in report(out)["jobNets"]}
    (close,) = nets["MONTH_CLOSE"]["schedules"]
    assert close["dayRule"] == "nth-open:-1"  # sd=*b: the last open day of the month
    # By hand (SALES calendar: Sat/Sun closed, listed holidays, Jan 9 open):
    last_open = [
        (1, 29),
        (2, 26),
        (3, 31),
        (4, 30),
        (5, 31),
        (6, 30),
        (7, 30),
        (8, 31),
        (9, 30),
        (10, 29),
        (11, 30),
        (12, 31),
    ]
    assert fire_days(out, close, 2027) == [date(2027, m, d) for m, d in last_open]
    (daily,) = nets["DAILY_SALES"]["schedules"]
    days = fire_days(out, daily, 2027)
    # from 2027/01/04, every day, closed days to the next open day (sh=af), never on a
    # MONTH_CLOSE day (ejn): Jan 9 is an open Saturday, Jan 11 a holiday, Jan 29 month end.
    jan = [4, 5, 6, 7, 8, 9, 12, 13, 14, 15, 18, 19, 20, 21, 22, 25, 26, 27, 28]
    assert [d for d in days if d.month == 1] == [date(2027, 1, d) for d in jan]
    assert date(2027, 5, 6) in days and date(2027, 5, 3) not in days  # May 3-5 holidays
    assert not {date(2027, m, d) for m, d in last_open} & set(days)


def test_shift_jis_file_is_read(tmp_path: Path) -> None:
    text = SRC.read_text().replace('cm="Daily sales close";', 'cm="日次売上締め";')
    text = text.replace("MONTH_CLOSE", "月次締め").replace("AGGREGATE", "集計")
    sjis = tmp_path / "sales_sjis.txt"
    sjis.write_bytes(text.encode("cp932"))
    assert _import(sjis, tmp_path / "out") == 0
    d = json.loads((tmp_path / "out" / "DAILY_SALES.asl.json").read_text(encoding="utf-8"))
    nets = {n["name"]: n for n in report(tmp_path / "out")["jobNets"]}
    assert set(nets) == {"DAILY_SALES", "月次締め"}
    assert (tmp_path / "out" / "月次締め.asl.json").exists()
    assert d["Comment"].startswith("DAILY_SALES") and "集計.Recovery" in json.dumps(
        d, ensure_ascii=False
    )


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('unit=N,,a,;\n{\n\tty=n;\n\tunit=J,,a,;\n\t{\n\t\tty=j;\n\t\tsc="x";\n', "line 7"),
        ("hello world;\n", "line 1"),
        ("unit=N,,a,;\n{\n\tty=n;\n\tar=(f=A,t=B);\n\tunit=A,,a,;\n\t{ty=j;}\n}\n", "line 4"),
    ],
    ids=["truncated", "not-an-export", "dangling-relation"],
)
def test_bad_input_exits_2_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, where: str
) -> None:
    src = tmp_path / "bad.txt"
    src.write_text(text)
    out = tmp_path / "out"
    assert _import(src, out) == 2
    assert where in capsys.readouterr().err
    assert not out.exists()


def test_escapes_numeric_names_and_no_schedule(tmp_path: Path) -> None:
    """``##`` and ``#"`` inside quotes (also right before the closing quote), units named by
    number, repeated parameters, a jobnet with no schedule rule (reported)."""
    text = (
        "/* 定義 */\nunit=0001,,,;\n{\n\tty=g;\n\tunit=0002,,,;\n\t{\n\t\tty=n;\n\t\tty=n;\n"
        "\t\tel=0004,pj,+240 +144;\n\t\tsz=12\u00d78;\n\t\tar=(f=0004,t=0005);\n"
        '\t\tunit=0004,,,;\n\t\t{\n\t\t\tty=pj;\n\t\t\tsc="foo.exe";\n'
        '\t\t\tprm="a ##b## #"c#" d##";\n\t\t}\n\t\tunit=0005,,,;\n\t\t{\n\t\t\tty=j;\n'
        '\t\t\tte="echo done";\n\t\t}\n\t}\n}\n'
    )
    src = tmp_path / "units.txt"
    src.write_bytes(text.encode("cp932"))
    assert _import(src, tmp_path / "out") == 0
    d = json.loads((tmp_path / "out" / "0002.asl.json").read_text())
    assert _find(d, "0004")["Arguments"]["Parameters"]["commands"] == ['foo.exe a #b# "c" d#']
    assert ended_before(d)["0002/0005"] == {"0002/0004"}
    assert any("no schedule rule" in u["reason"] for u in report(tmp_path / "out")["unmapped"])


def test_wait_conditions_connectors_and_concurrency(tmp_path: Path) -> None:
    """eun= (wait for another root jobnet) and a jobnet connector become one after entry;
    mp=n with ms=sch / ms=mlt become --exclusive skip / queue."""
    text = """unit=G,,a,;
{
\tty=g;
\tunit=A,,a,;
\t{
\t\tty=n;
\t\tsd=1,en;
\t\tst=1,01:00;
\t\tcy=1,(1,d);
\t\tmp=n;
\t\tms=mlt;
\t\tunit=J,,a,;{ty=j;te="a.sh";}
\t}
\tunit=B,,a,;
\t{
\t\tty=n;
\t\tmp=n;
\t\tms=sch;
\t\teun=/G/A;
\t\tunit=C,,a,;{ty=nc;ncn=/G/D;}
\t\tunit=K,,a,;{ty=j;te="b.sh";}
\t\tar=(f=C,t=K);
\t}
\tunit=D,,a,;
\t{
\t\tty=n;
\t\tunit=L,,a,;{ty=j;te="d.sh";}
\t}
}
"""
    src = tmp_path / "waits.txt"
    src.write_text(text)
    assert _import(src, tmp_path / "out") == 0
    nets = {n["name"]: n for n in report(tmp_path / "out")["jobNets"]}
    (b,) = nets["B"]["schedules"]
    assert (b["cron"], b["after"], b["exclusive"]) == (None, ["A", "D"], "skip")
    assert nets["A"]["schedules"][0]["exclusive"] == "queue"


def test_week_day_rules(tmp_path: Path) -> None:
    """sd=1,mo with a weekly cycle: every Monday; sd=1,fr:b: the last Friday of each month."""
    text = (
        "unit=G,,a,;\n{\n\tty=g;\n"
        "\tunit=W,,a,;\n\t{\n\t\tty=n;\n\t\tsd=1,mo;\n\t\tst=1,06:30;\n\t\tcy=1,(1,w);\n"
        '\t\tunit=J,,a,;{ty=j;te="w.sh";}\n\t}\n'
        "\tunit=L,,a,;\n\t{\n\t\tty=n;\n\t\tsd=1,fr:b;\n\t\tst=1,18:00;\n\t\tcy=1,(1,m);\n"
        '\t\tunit=K,,a,;{ty=j;te="l.sh";}\n\t}\n}\n'
    )
    src = tmp_path / "week.txt"
    src.write_text(text)
    assert _import(src, tmp_path / "out") == 0
    nets = {n["name"]: n for n in report(tmp_path / "out")["jobNets"]}
    assert nets["W"]["schedules"][0]["cron"] == "cron(30 6 ? * MON *)"
    fridays = fire_days(tmp_path / "out", nets["L"]["schedules"][0], 2027)
    # by hand: the last Friday of each month of 2027
    last = [29, 26, 26, 30, 28, 25, 30, 27, 24, 29, 26, 31]
    assert fridays == [date(2027, m, d) for m, d in zip(range(1, 13), last, strict=True)]


def test_unknown_time_zone_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    code = run(
        [
            "job",
            "import",
            str(SRC),
            "--from",
            "jp1",
            "--timezone",
            "Mars/Olympus",
            "--out",
            str(out),
        ]
    )
    assert code == 2 and "Mars/Olympus" in capsys.readouterr().err
    assert not out.exists()


def test_open_and_closed_days_outside_a_job_group_are_reported(tmp_path: Path) -> None:
    """op/cl are read from job groups (their calendar); written on a jobnet they were taken
    as used and dropped without a word."""
    src = tmp_path / "opcl.txt"
    src.write_text(
        "unit=G,,jp1admin,;\n{\n\tty=g;\n\tcl=su;\n"
        "\tunit=NET,,jp1admin,;\n\t{\n\t\tty=n;\n\t\tel=J1,j,+0+0;\n"
        "\t\top=mo;\n\t\tcl=2026/12/31;\n\t\tsd=1,1;\n"
        '\t\tunit=J1,,jp1admin,;\n\t\t{\n\t\t\tty=j;\n\t\t\tsc="echo";\n\t\t}\n\t}\n}\n'
    )
    assert _import(src, tmp_path / "out") == 0
    reasons = {
        u["reason"].split(" (")[0]: u["source"] for u in report(tmp_path / "out")["unmapped"]
    }
    assert reasons["parameter op outside a job group"] == "line 9 (G/NET)"
    assert reasons["parameter cl outside a job group"] == "line 10 (G/NET)"
    assert not any(
        r.startswith("parameter cl outside") and "line 4" in s for r, s in reasons.items()
    )

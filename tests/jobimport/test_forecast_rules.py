"""Run dates worked out by hand (calendars of 2027 and 2028 on paper) for the rule kinds of
the vendors' manuals: the forecast's source side must give exactly these dates, and the
imported schedules must give them too or list the difference with its reason.

Calendars of the cases: WD, the working days (Mon-Fri) without 2027-01-01, 2027-05-03/04/05,
2027-12-31, 2028-02-29 and 2028-03-31 (holidays put on a month end and on the leap day);
SUMMER, every day of June to August. JP1 cases use the same closed days (cl=sa,su + dates).

Manual pages: Control-M DAYS/WDAYS/DCAL/WCAL/CONFCAL (BMC, see _forecast_source), JP1/AJS3
Command Reference 5.2.3 (sd, st, cy, sh, shd, ejn).
"""

from __future__ import annotations

import json
from datetime import date, timedelta

import pytest

from cfnops.jobimport import forecast, plan_import, read_export

_HOLIDAYS = [date(2027, 1, 1), date(2027, 5, 3), date(2027, 5, 4), date(2027, 5, 5),
             date(2027, 12, 31), date(2028, 2, 29), date(2028, 3, 31)]  # fmt: skip


def _year(year: int, working: object) -> str:
    d, out = date(year, 1, 1), []
    while d.year == year:
        out.append("Y" if working(d) else "N")  # type: ignore[operator]
        d += timedelta(days=1)
    return "".join(out)


def _defcal() -> bytes:
    def wd(d: date) -> bool:
        return d.weekday() < 5 and d not in _HOLIDAYS

    def summer(d: date) -> bool:
        return d.month in (6, 7, 8)

    cals = []
    for name, fn in (("WD", wd), ("SUMMER", summer)):
        years = "".join(
            f'<YEAR NAME="{y}" DAYS="{_year(y, fn)}"/>' for y in (2026, 2027, 2028, 2029)
        )
        cals.append(f'<CALENDAR NAME="{name}" TYPE="Regular">{years}</CALENDAR>')
    return f"<DEFCAL>{''.join(cals)}</DEFCAL>".encode()


def _xml(attrs: str) -> bytes:
    return (
        '<DEFTABLE><FOLDER FOLDER_NAME="F" DATACENTER="x">'
        f'<JOB JOBNAME="J" TASKTYPE="Dummy" TIMEFROM="0700" {attrs}/></FOLDER></DEFTABLE>'
    ).encode()


def _json(when: dict[str, object], **folder: object) -> bytes:
    return json.dumps({"F": {"Type": "Folder", "When": when, **folder,
                             "J": {"Type": "Job:Dummy"}}}).encode()  # fmt: skip


_CLOSED = ",".join(d.strftime("%Y/%m/%d") for d in _HOLIDAYS)


def _jp1(rules: str, other: str = "") -> bytes:
    return (
        f"unit=G,,a,;\n{{\n\tty=g;\n\tcl=sa,su;\n\tcl={_CLOSED};\n"
        f"\tunit=N,,a,;\n\t{{\n\t\tty=n;\n{rules}"
        '\t\tunit=J,,a,;\n\t\t{\n\t\t\tty=j;\n\t\t\tte="x";\n\t\t\tex="h";\n\t\t}\n\t}\n'
        f"{other}}}\n"
    ).encode()


def _r(*lines: str) -> str:
    return "".join(f"\t\t{line};\n" for line in lines)


_OTHER_15 = (
    "\tunit=B,,a,;\n\t{\n\t\tty=n;\n\t\tsd=1,15;\n\t\tst=1,09:00;\n\t\tsh=1,no;\n"
    '\t\tunit=K,,a,;\n\t\t{\n\t\t\tty=j;\n\t\t\tte="k";\n\t\t\tex="h";\n\t\t}\n\t}\n'
)

# (id, product, export, first day, last day, expected runs "YYYY-MM-DD HH:MM"), by hand
CASES = [
    ("ctm-days-numbers", "controlm", _xml('DAYS="1,15"'), "2027-01-01", "2027-03-31",
     ["01-01", "01-15", "02-01", "02-15", "03-01", "03-15"], "2027", "07:00"),
    ("ctm-days-L1-leap", "controlm", _xml('DAYS="L1"'), "2028-01-01", "2028-03-31",
     ["01-31", "02-29", "03-31"], "2028", "07:00"),
    ("ctm-days-L2", "controlm", _xml('DAYS="L2"'), "2028-02-01", "2028-03-31",
     ["02-28", "03-30"], "2028", "07:00"),
    ("ctm-days-31-short-months", "controlm", _xml('DAYS="31"'), "2027-01-01", "2027-06-30",
     ["01-31", "03-31", "05-31"], "2027", "07:00"),
    ("ctm-weekdays", "controlm", _xml('WEEKDAYS="1,3"'), "2027-03-01", "2027-03-14",
     ["03-01", "03-03", "03-08", "03-10"], "2027", "07:00"),
    ("ctm-weekdays-all-leap", "controlm", _xml('WEEKDAYS="ALL"'), "2028-02-27", "2028-03-02",
     ["02-27", "02-28", "02-29", "03-01", "03-02"], "2028", "07:00"),
    ("ctm-days-or-weekdays", "controlm", _xml('DAYS="1" WEEKDAYS="5" DAYS_AND_OR="O"'),
     "2027-10-01", "2027-10-31", ["10-01", "10-08", "10-15", "10-22", "10-29"], "2027", "07:00"),
    ("ctm-days-and-weekdays", "controlm",
     _xml('DAYS="1,2,3,4,5,6,7" WEEKDAYS="1" DAYS_AND_OR="A"'), "2027-01-01", "2027-03-31",
     ["01-04", "02-01", "03-01"], "2027", "07:00"),
    ("ctm-months", "controlm", _xml('DAYS="10" JAN="1"'), "2027-01-01", "2027-12-31",
     ["01-10"], "2027", "07:00"),
    ("ctm-dayscal-alone", "controlm", _xml('DAYSCAL="WD"'), "2027-05-01", "2027-05-09",
     ["05-06", "05-07"], "2027", "07:00"),
    ("ctm-D1-dayscal", "controlm", _xml('DAYS="D1" DAYSCAL="WD"'), "2027-01-01", "2027-05-31",
     ["01-04", "02-01", "03-01", "04-01", "05-06"], "2027", "07:00"),
    ("ctm-L1-dayscal-month-ends", "controlm", _xml('DAYS="L1" DAYSCAL="WD"'), "2028-01-01",
     "2028-03-31", ["01-31", "02-28", "03-30"], "2028", "07:00"),
    ("ctm-day-and-dayscal", "controlm", _xml('DAYS="15" DAYSCAL="WD"'), "2027-01-01",
     "2027-05-31", ["01-15", "02-15", "03-15", "04-15"], "2027", "07:00"),
    ("ctm-weekscal", "controlm", _xml('WEEKDAYS="1" WEEKSCAL="SUMMER"'), "2027-05-20",
     "2027-06-30", ["06-07", "06-14", "06-21", "06-28"], "2027", "07:00"),
    ("ctm-confcal-ignore", "controlm", _xml('DAYS="1" CONFCAL="WD" SHIFT="Ignore Job"'),
     "2027-01-01", "2027-05-31", ["02-01", "03-01", "04-01"], "2027", "07:00"),
    ("ctm-confcal-next", "controlm", _xml('DAYS="1" CONFCAL="WD" SHIFT="&gt;"'),
     "2027-01-01", "2027-05-31", ["01-04", "02-01", "03-01", "04-01", "05-06"], "2027", "07:00"),
    ("ctm-confcal-prev", "controlm", _xml('DAYS="1" CONFCAL="WD" SHIFT="&lt;"'),
     "2027-01-01", "2027-05-31", ["02-01", "03-01", "04-01", "04-30"], "2027", "07:00"),
    ("ctm-confcal-anyway", "controlm", _xml('DAYS="1" CONFCAL="WD" SHIFT="@"'),
     "2027-01-01", "2027-05-31", ["01-01", "02-01", "03-01", "04-01", "05-01"], "2027", "07:00"),
    ("ctm-confcal-next-shift-plus-2", "controlm",
     _xml('DAYS="1" CONFCAL="WD" SHIFT="Next Day" SHIFTNUM="+02"'), "2027-01-01", "2027-05-31",
     ["01-06", "02-03", "03-03", "04-05", "05-10"], "2027", "07:00"),
    ("ctm-specific-dates", "controlm", _json({"SpecificDates": ["0229", "1231"]}),
     "2027-01-01", "2028-12-31", ["2027-12-31", "2028-02-29", "2028-12-31"], "", "00:00"),
    ("ctm-rule-based-calendar", "controlm",
     _json({"RuleBasedCalendars": {"Included": ["LASTDAY"]}, "FromTime": "2200"},
           RuleBasedCalendars={"Included": ["LASTDAY"], "LASTDAY": {
               "Type": "Calendar:RuleBased", "When": {"MonthDays": ["L1"]}}}),
     "2028-01-01", "2028-03-31", ["01-31", "02-29", "03-31"], "2028", "22:00"),
    ("ctm-never", "controlm", _json({"Schedule": "Never"}), "2027-01-01", "2028-12-31",
     [], "", "00:00"),
    ("ctm-time-zone", "controlm", _json({"WeekDays": ["SUN"], "FromTime": "2330"},
                                         TimeZone="JST"),
     "2028-02-27", "2028-03-06", ["02-27", "03-05"], "2028", "23:30"),
    ("jp1-day-15-cancel", "jp1", _jp1(_r("sd=1,15", "st=1,08:00", "sh=1,ca")), "2027-01-01",
     "2027-05-31", ["01-15", "02-15", "03-15", "04-15"], "2027", "08:00"),
    ("jp1-last-day-no-shift", "jp1", _jp1(_r("sd=1,b", "st=1,08:00", "sh=1,no")),
     "2028-01-01", "2028-03-31", ["01-31", "02-29", "03-31"], "2028", "08:00"),
    ("jp1-last-open-day", "jp1", _jp1(_r("sd=1,*b", "st=1,08:00")), "2028-01-01",
     "2028-03-31", ["01-31", "02-28", "03-30"], "2028", "08:00"),
    ("jp1-first-open-day", "jp1", _jp1(_r("sd=1,*1", "st=1,08:00")), "2027-01-01",
     "2027-05-31", ["01-04", "02-01", "03-01", "04-01", "05-06"], "2027", "08:00"),
    ("jp1-second-last-open-day", "jp1", _jp1(_r("sd=1,*b-1", "st=1,08:00")), "2028-01-01",
     "2028-03-31", ["01-28", "02-25", "03-29"], "2028", "08:00"),
    ("jp1-day-before-last", "jp1", _jp1(_r("sd=1,b-1", "st=1,08:00", "sh=1,no")),
     "2027-02-01", "2027-03-31", ["02-27", "03-30"], "2027", "08:00"),
    ("jp1-last-friday-before", "jp1", _jp1(_r("sd=1,fr:b", "st=1,08:00", "sh=1,be")),
     "2027-12-01", "2028-01-31", ["2027-12-30", "2028-01-28"], "", "08:00"),
    ("jp1-second-monday", "jp1", _jp1(_r("sd=1,mo:2", "st=1,08:00", "sh=1,no")),
     "2027-01-01", "2027-03-31", ["01-11", "02-08", "03-08"], "2027", "08:00"),
    ("jp1-daily-from-date", "jp1",
     _jp1(_r("sd=1,2027/01/04", "st=1,08:00", "cy=1,(1,d)", "sh=1,ca")), "2027-05-01",
     "2027-05-09", ["05-06", "05-07"], "2027", "08:00"),
    ("jp1-every-2-days", "jp1",
     _jp1(_r("sd=1,2027/01/04", "st=1,08:00", "cy=1,(2,d)", "sh=1,no")), "2027-01-01",
     "2027-01-10", ["01-04", "01-06", "01-08", "01-10"], "2027", "08:00"),
    ("jp1-weekly", "jp1", _jp1(_r("sd=1,2027/01/06", "st=1,08:00", "cy=1,(1,w)")),
     "2027-01-01", "2027-01-31", ["01-06", "01-13", "01-20", "01-27"], "2027", "08:00"),
    ("jp1-after-within-2-days", "jp1", _jp1(_r("sd=1,1", "st=1,08:00", "sh=1,af", "shd=1,2")),
     "2027-01-01", "2027-05-31", ["02-01", "03-01", "04-01"], "2027", "08:00"),
    ("jp1-after-within-5-days", "jp1", _jp1(_r("sd=1,1", "st=1,08:00", "sh=1,af", "shd=1,5")),
     "2027-01-01", "2027-05-31", ["01-04", "02-01", "03-01", "04-01", "05-06"], "2027", "08:00"),
    ("jp1-before", "jp1", _jp1(_r("sd=1,1", "st=1,08:00", "sh=1,be", "shd=1,2")),
     "2027-01-01", "2027-05-31", ["02-01", "03-01", "04-01", "04-30"], "2027", "08:00"),
    ("jp1-exclusive-schedule", "jp1",
     _jp1(_r("sd=1,2027/01/01", "st=1,08:00", "cy=1,(1,d)", "sh=1,no", "ejn=B"), _OTHER_15),
     "2027-01-13", "2027-01-17", ["01-13", "01-14", "01-16", "01-17"], "2027", "08:00"),
    ("jp1-leap-day-every-year", "jp1", _jp1(_r("sd=1,02/29", "st=1,08:00", "sh=1,no")),
     "2027-01-01", "2028-12-31", ["2028-02-29"], "", "08:00"),
]  # fmt: skip


# kinds whose imported schedule differs from the source, with the report's reason:
# shd (at most N days of shift) is not a cfnops day rule
_REPORTED_DIFFERENCES = {"jp1-after-within-2-days"}


def _expected(days: list[str], year: str, at: str) -> list[str]:
    return [f"{year + '-' if year else ''}{d} {at}" for d in days]


@pytest.mark.parametrize(
    ("kind", "product", "export", "first", "last", "days", "year", "at"),
    CASES,
    ids=[c[0] for c in CASES],
)
def test_hand_derived_run_dates(
    kind: str,
    product: str,
    export: bytes,
    first: str,
    last: str,
    days: list[str],
    year: str,
    at: str,
) -> None:
    name = "x.txt" if product == "jp1" else "x.json" if export.startswith(b"{") else "x.xml"
    cal = _defcal() if name == "x.xml" else None
    model = read_export(
        export, name, product, today=date(2027, 1, 1), timezone="Asia/Tokyo", calendars=cal
    )
    plan_import(model, name)
    start = date.fromisoformat(first)
    rows = forecast(model, start, (date.fromisoformat(last) - start).days + 1)
    (row,) = [r for r in rows if r["job"].endswith("/J")]
    expected = _expected(days, year, at)
    assert row["source"] == expected
    if kind not in _REPORTED_DIFFERENCES:
        assert row["imported"] == expected and row["equal"]
    else:  # the difference is listed with its reason
        assert row["imported"] != expected and not row["equal"] and row["reasons"], row
        assert "no report entry" not in row["reasons"][0], row


def test_there_are_at_least_25_rule_kinds() -> None:
    assert len({c[0] for c in CASES}) >= 25

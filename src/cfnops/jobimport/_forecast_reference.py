"""``--forecast-reference FILE``: the vendor's own run-date forecast as the reference.

The forecast's source side (:mod:`cfnops.jobimport._forecast_source`) evaluates the rules as
cfnops reads them; this module reads what the *vendor's scheduler* computed, so a migration
lead can compare the imported job-nets with the dates the old system itself announces.

JP1/AJS3 — ``ajsschedule -b START -e END ROOT-JOBNET`` (Command Reference, ajsschedule,
https://itpfdoc.hitachi.co.jp/manuals/3021/30213D2830e/AJSO0129.HTM) prints the schedule
for the period "according to the format of the schedule information parameter" (5.4.1
Format of the schedule information file,
https://itpfdoc.hitachi.co.jp/manuals/3021/30213D2830e/AJSO0249.HTM; Japanese edition
https://itpfdoc.hitachi.co.jp/manuals/3021/30213D2830/AJSO0250.HTM):

- a comment is enclosed in ``/*`` and ``*/`` and never shares a line with a parameter;
- a jobnet's parameter: information-1 the jobnet name (1 to 30 bytes), information-2 the
  start ``YYYYMMDDHHMM`` (HH 0 to 47: 24 and later is the next day), information-3 ``h``
  (hold) or ``n``, then the optional delay-monitoring and other items;
- a job's parameter: the job name, then ``h`` or ``n``.

The manual draws the separators in a figure (an image) and shows no sample output; this
reader takes the items of a line separated by commas (blanks around them ignored) or, on a
line with no comma, by blanks, so that neither layout is misread. A line whose second item is a
``YYYYMMDDHHMM`` is a jobnet's run; a line of a name alone or a name and ``h``/``n`` is a
job's (a job runs when its jobnet runs); anything else is refused naming its line.

Control-M — the forecast (Control-M/Forecast's "View Schedule", or the ``ctmrpln`` job
plan report where Forecast is not licensed: Control-M Help, Calendar management,
https://documents.bmc.com/supportu/ctrlm9/help/Main_help/en-US/Tools_Calendars.htm) lists,
per job, the days it is ordered. BMC documents no file layout for either (no sample of the
``ctmrpln`` report or of a Forecast export was found in BMC's public pages, 2 December
2026), so the layout read here is cfnops's own: CSV with a header row naming at least the
folder (or table), the job name and the order date (``YYYYMMDD``, ``YYYY-MM-DD`` or
``YYYY/MM/DD``), and optionally the time (``HHMM`` / ``HH:MM``, the job's
``FromTime``/``TIMEFROM``), made by the user from the forecast. The column names accepted
are listed in :data:`CTM_COLUMNS`.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from datetime import date, timedelta

from cfnops.jobimport.errors import ImportInputError

__all__ = ["CTM_COLUMNS", "Reference", "read_reference"]

Run = tuple[date, str]

# header name (lower case, blanks, "_" and "-" removed) -> field
CTM_COLUMNS = {
    "folder": "folder", "foldername": "folder", "table": "folder", "tablename": "folder",
    "smartfolder": "folder", "smarttable": "folder",
    "job": "job", "jobname": "job", "memname": "job", "membername": "job",
    "date": "date", "orderdate": "date", "odate": "date", "rundate": "date",
    "scheduleddate": "date",
    "time": "time", "fromtime": "time", "timefrom": "time", "starttime": "time",
}  # fmt: skip


@dataclass
class Reference:
    """Runs the vendor announces: by Control-M ``FOLDER/JOB`` or by JP1 jobnet name."""

    product: str
    file: str
    runs: dict[str, set[Run]] = field(default_factory=dict)

    def add(self, key: str, run: Run) -> None:
        self.runs.setdefault(key, set()).add(run)


def _text(data: bytes) -> str:
    for enc in ("utf-8-sig", "cp932"):  # JP1 writes Shift_JIS on Japanese systems
        try:
            return data.decode(enc)
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1")


def read_reference(data: bytes, name: str, product: str) -> Reference:
    """The vendor's forecast file: JP1 ``ajsschedule`` output or a Control-M forecast CSV."""
    text = _text(data)
    if product == "jp1":
        return _read_jp1(text, name)
    return _read_ctm(text, name)


# -- JP1/AJS3 ajsschedule ----------------------------------------------------------------
_STAMP = re.compile(r"^\d{12}$")
_NAME_MAX = 30  # bytes, information-1


def _bad(name: str, line: int, problem: str, fix: str) -> ImportInputError:
    return ImportInputError(name, f"line {line}", problem, fix)


def _read_jp1(text: str, name: str) -> Reference:
    ref = Reference("jp1", name)
    in_comment = False
    fix = (
        "give the output of ajsschedule -b START -e END ROOT-JOBNET "
        "(schedule information parameters)"
    )
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if in_comment:
            in_comment = "*/" not in line
            if not in_comment and line.split("*/", 1)[1].strip():
                raise _bad(name, n, "text after a comment's */", fix)
            continue
        if not line:
            continue
        if line.startswith("/*"):
            in_comment = "*/" not in line[2:]
            if not in_comment and line[2:].split("*/", 1)[1].strip():
                raise _bad(name, n, "a comment shares its line with a parameter", fix)
            continue
        # commas, or blanks on a line with none: a blank-separated run must not pass for
        # a job line (a name alone) and be dropped
        items = [i.strip() for i in line.split(",")] if "," in line else line.split()
        unit = items[0]
        if not unit or len(unit.encode("cp932", "replace")) > _NAME_MAX or "/" in unit:
            raise _bad(name, n, f"{unit!r} is not a unit name (1 to 30 bytes)", fix)
        if len(items) == 1 or (len(items) == 2 and items[1] in ("h", "n")):
            continue  # a job's parameter: it runs when its jobnet runs
        stamp = items[1]
        if not _STAMP.match(stamp):
            raise _bad(name, n, f"start {stamp!r} is not YYYYMMDDHHMM", fix)
        if len(items) > 2 and items[2] not in ("h", "n", ""):
            raise _bad(name, n, f"information-3 {items[2]!r} is neither h nor n", fix)
        ref.add(unit, _jp1_run(stamp, name, n, fix))
    if in_comment:
        raise _bad(name, len(text.splitlines()), "a comment is not closed with */", fix)
    if not ref.runs:
        raise _bad(name, 1, "no jobnet run listed", fix)
    return ref


def _jp1_run(stamp: str, name: str, n: int, fix: str) -> Run:
    y, mo, d, hh, mm = (int(stamp[i:j]) for i, j in ((0, 4), (4, 6), (6, 8), (8, 10), (10, 12)))
    try:
        day = date(y, mo, d)
    except ValueError:
        raise _bad(name, n, f"start {stamp}: no such day", fix) from None
    if hh > 47 or mm > 59:
        raise _bad(name, n, f"start {stamp}: hours 0-47 and minutes 0-59", fix)
    extra, hh = divmod(hh, 24)  # 24:00 and later: that time of the next day
    return (day + timedelta(days=extra), f"{hh:02d}:{mm:02d}")


# -- Control-M forecast CSV ------------------------------------------------------------
_DATE = re.compile(r"^(\d{4})[-/]?(\d{2})[-/]?(\d{2})$")
_TIME = re.compile(r"^(\d{1,2}):?(\d{2})$")


def _read_ctm(text: str, name: str) -> Reference:
    ref = Reference("controlm", name)
    fix = (
        "export the Control-M forecast as CSV with a header row naming the folder, the job "
        "and the order date (and optionally the time)"
    )
    sample = text[:4096]
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(sample, delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    rows = csv.reader(io.StringIO(text), dialect)
    header: dict[str, int] | None = None
    for n, row in enumerate(rows, 1):
        cells = [c.strip() for c in row]
        if not any(cells):
            continue
        if header is None:
            header = {}
            for i, c in enumerate(cells):
                key = CTM_COLUMNS.get(re.sub(r"[\s_\-]", "", c.lower()))
                if key and key not in header:
                    header[key] = i
            missing = [k for k in ("folder", "job", "date") if k not in header]
            if missing:
                raise _bad(name, n, f"the header names no {', '.join(missing)} column", fix)
            continue
        if len(cells) <= max(header.values()):
            raise _bad(name, n, f"{len(cells)} cells, the header has {len(header)}+", fix)
        folder, job = cells[header["folder"]], cells[header["job"]]
        if not folder or not job:
            raise _bad(name, n, "no folder or no job name", fix)
        m = _DATE.match(cells[header["date"]])
        if m is None:
            raise _bad(name, n, f"date {cells[header['date']]!r} is not YYYYMMDD", fix)
        try:
            day = date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            raise _bad(name, n, f"date {cells[header['date']]}: no such day", fix) from None
        at = "00:00"
        if "time" in header and cells[header["time"]]:
            t = _TIME.match(cells[header["time"]])
            if t is None or int(t.group(1)) > 23 or int(t.group(2)) > 59:
                raise _bad(name, n, f"time {cells[header['time']]!r} is not HHMM", fix)
            at = f"{int(t.group(1)):02d}:{t.group(2)}"
        ref.add(f"{folder}/{job}", (day, at))
    if header is None:
        raise _bad(name, 1, "empty file", fix)
    if not ref.runs:
        raise _bad(name, 2, "no job run listed", fix)
    return ref

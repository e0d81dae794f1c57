"""Control-M XML exports (``exportdeftable`` DEFTABLE, ``exportdefcal`` DEFCAL) → model.

Elements (BMC Control-M "Scheduling definitions XML" / DEFTABLE DTD): DEFTABLE with
FOLDER, SMART_FOLDER (with SUB_FOLDER and RULE_BASED_CALENDAR), SCHED_TABLE (7.x), JOB
with CMDLINE / MEMLIB+MEMNAME, NODEID, RUN_AS (OWNER), TASKTYPE, CONFIRM, MAXRERUN +
INTERVAL, DAYS / WEEKDAYS / DAYS_AND_OR / JAN..DEC / DAYSCAL / WEEKSCAL / CONFCAL /
SHIFT / SHIFTNUM / TIMEFROM / TIMEZONE, and children INCOND, OUTCOND, QUANTITATIVE,
CONTROL, SHOUT, ON/DO*, VARIABLE. Paths in messages are XML paths such as
``/DEFTABLE/FOLDER[@FOLDER_NAME='FIN']/JOB[@JOBNAME='A']``. Attributes this reader does
not know are reported once per name, with a count and the first place.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import date, timedelta

from cfnops.jobimport._controlm_common import EventBook, substitute, timezone_of
from cfnops.jobimport._controlm_mail import Mail, add_mail, is_yes
from cfnops.jobimport._controlm_order import Entry, order_jobs
from cfnops.jobimport._controlm_when import CtmWhen, month_numbers, policy_of
from cfnops.jobimport._days import ALL_WEEKDAYS
from cfnops.jobimport._model import CalendarSpec, ImportModel, Job, JobNet, NotifyRule, Rerun
from cfnops.jobimport.errors import ImportInputError

__all__ = ["read_controlm_xml", "read_defcal"]

_FOLDERS = {
    "FOLDER": "FOLDER_NAME",
    "SMART_FOLDER": "FOLDER_NAME",
    "SCHED_TABLE": "TABLE_NAME",
    "SCHED_GROUP": "TABLE_NAME",
    "TABLE": "TABLE_NAME",
}
_MONTH_ATTRS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
_SCHED = {
    "DAYS",
    "WEEKDAYS",
    "DAYS_AND_OR",
    "DAYSCAL",
    "WEEKSCAL",
    "CONFCAL",
    "SHIFT",
    "SHIFTNUM",
    "TIMEFROM",
    "TIMEZONE",
    *_MONTH_ATTRS,
}
_USED = _SCHED | {
    "JOBNAME",
    "MEMNAME",
    "MEMLIB",
    "CMDLINE",
    "TASKTYPE",
    "NODEID",
    "RUN_AS",
    "OWNER",
    "DESCRIPTION",
    "CONFIRM",
    "MAXRERUN",
    "INTERVAL",
    "CYCLIC",
    "FOLDER_NAME",
    "TABLE_NAME",
    "VERSION",
    "TIMETO",
    "INSTREAM_JCL",
    "USE_INSTREAM_JCL",
    "PRIORITY",
    "CRITICAL",
}
_QUIET = {  # bookkeeping attributes with no run-time effect
    "APPLICATION",
    "SUB_APPLICATION",
    "APPL_TYPE",
    "APPL_VER",
    "APPL_FORM",
    "CREATED_BY",
    "CREATION_USER",
    "CREATION_DATE",
    "CREATION_TIME",
    "CHANGE_USERID",
    "CHANGE_DATE",
    "CHANGE_TIME",
    "JOBISN",
    "DATACENTER",
    "PLATFORM",
    "PARENT_FOLDER",
    "PARENT_TABLE",
    "REAL_FOLDER_ID",
    "REAL_TABLEID",
    "USED_BY",
    "USED_BY_CODE",
    "MODIFIED",
    "LAST_UPLOAD",
    "FOLDER_ORDER_METHOD",
    "TABLE_USERDAILY",
    "GROUP",
    "MEMNAME_",
    "DOCMEM",
    "DOCLIB",
    "IS_CURRENT_VERSION",
    "ORDERING_MODE",
    "TYPE",
    "AUTOARCH",
    "SYSDB",
    "MAXDAYS",
    "MAXRUNS",
    "RETRO",
    "MAXWAIT",
    "ACTIVE_FROM",
    "ACTIVE_TILL",
    "IND_CYCLIC",
    "CREATION_DATE_",
    "SUB_APPLICATION_",
    "MULTY_AGENT",
    "RULE_BASED_CALENDAR_RELATIONSHIP",
    "APR_",
    "DAYS_KEEP_ACTIVE",
    "ADJUST_COND",
    "DEPLOYMENT_TYPE",
    "TABLE_DSN",
    "USER_DAILY",
}
_WEEKNUM = {"0": "SUN", "1": "MON", "2": "TUE", "3": "WED", "4": "THU", "5": "FRI", "6": "SAT"}
_FIX = "export the folder again with exportdeftable and import the whole file"


def _parse(text: str | bytes, source: str, root_names: set[str], what: str) -> ET.Element:
    """Parse bytes (the XML declaration's encoding, e.g. ISO-8859-1, is honoured) or text."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        line, col = getattr(exc, "position", (0, 0))
        truncated = "no element found" in str(exc) or "unclosed token" in str(exc)
        raise ImportInputError(
            source,
            f"line {line} column {col}",
            "the XML ends early (truncated?)" if truncated else f"not well-formed XML: {exc}",
            _FIX,
        ) from None
    if root.tag not in root_names:
        raise ImportInputError(
            source, f"/{root.tag}", f"root element <{root.tag}>: not a Control-M {what}", _FIX
        )
    return root


def read_defcal(text: str | bytes, source: str, model: ImportModel) -> None:
    """Regular calendars of a DEFCAL export: each year's DAYS string, Y = a working day."""
    root = _parse(text, source, {"DEFCAL"}, "calendar export (DEFCAL)")
    for i, cal in enumerate(root.iter("CALENDAR"), 1):
        name = cal.get("NAME", f"calendar{i}")
        where = f"/DEFCAL/CALENDAR[@NAME='{name}']"
        spec = CalendarSpec(name, closed_weekdays=set(ALL_WEEKDAYS), source=where)
        for year in cal.iter("YEAR"):
            try:
                day = date(int(year.get("NAME", "")), 1, 1)
            except ValueError:
                model.note("calendar", where, f"YEAR NAME={year.get('NAME')!r} is not a year")
                continue
            for flag in year.get("DAYS", ""):
                if flag.upper() == "Y":
                    spec.open.add(day)
                day += timedelta(days=1)
        years = sorted({d.year for d in spec.open})
        spec.comment = f"working days of {', '.join(map(str, years))} (from DEFCAL)"
        model.calendars[name] = spec


def read_controlm_xml(
    text: str | bytes, source: str, tz: str, today: date, calendars: str | bytes | None = None
) -> ImportModel:
    root = _parse(text, source, {"DEFTABLE", "DEFCAL"}, "DEFTABLE export")
    if root.tag == "DEFCAL":
        raise ImportInputError(
            source,
            "/DEFCAL",
            "a calendar export (DEFCAL) holds no jobs",
            "import the DEFTABLE export and give this file with --calendars",
        )
    return _XmlReader(source, tz, today).read(root, calendars)


def _version_ok(value: str) -> bool:
    digits = value.strip()
    return (
        bool(digits)
        and digits[0] in "6789"
        and (len(digits) == 1 or not digits[1].isdigit() or len(digits) == 3)
    )


class _XmlReader:
    def __init__(self, source: str, tz: str, today: date) -> None:
        self.model = ImportModel("controlm")
        self.source, self.tz, self.today = source, tz, today
        self.events = EventBook()
        self.rules: dict[str, CtmWhen] = {}
        self.unknown: dict[str, list[str]] = {}  # attribute -> where each use is
        self.pending: list[tuple[JobNet, list[Entry]]] = []
        self.platform = ""

    def read(self, root: ET.Element, calendars: str | bytes | None) -> ImportModel:
        if calendars:
            read_defcal(calendars, "--calendars", self.model)
        folders = [c for c in root if c.tag in _FOLDERS]
        if not folders:
            raise ImportInputError(
                self.source, "/DEFTABLE", "no FOLDER, SMART_FOLDER or SCHED_TABLE element", _FIX
            )
        for child in root:
            if child.tag not in _FOLDERS:
                self.model.note("keyword", f"/DEFTABLE/{child.tag}", "element not mapped")
        for folder in folders:
            self._folder(folder)
        self.events.resolve(self.model)
        for net, entries in self.pending:
            order_jobs(net, entries, self.model, self.rules, self.today)
        for attr, places in sorted(self.unknown.items()):
            self.model.note(
                "keyword",
                places[0],
                f"attribute {attr} ({len(places)}x): not mapped"
                + (f" (also {'; '.join(places[1:])})" if len(places) > 1 else ""),
            )
        return self.model

    def _attrs(self, el: ET.Element, where: str, known: set[str]) -> None:
        for attr in el.attrib:
            if attr in known or attr in _QUIET:
                continue
            self.unknown.setdefault(attr, []).append(f"{where}/@{attr}")

    def _folder(self, el: ET.Element) -> None:
        key = _FOLDERS[el.tag]
        name = el.get(key) or el.get("JOBNAME") or "folder"
        where = f"/DEFTABLE/{el.tag}[@{key}='{name}']"
        version = el.get("VERSION")
        if version is not None and not _version_ok(version):
            raise ImportInputError(
                self.source,
                f"{where}/@VERSION",
                f"Control-M version {version!r} is not one this importer reads (6.x to 9.x)",
                "export from Control-M 9 (or give the Automation API JSON)",
            )
        net = JobNet(name, where, timezone=self.tz)
        self.platform = el.get("PLATFORM", "")
        if el.get("TIMEZONE"):
            net.timezone = timezone_of(el.get("TIMEZONE", ""), self.model, where) or self.tz
        self.model.jobnets.append(net)
        self._attrs(el, where, _USED)
        whens: list[Entry] = []
        if el.tag == "SMART_FOLDER" and _has_schedule(el):
            whens.append((self._when(el, where), None))
        for rbc in el.findall("RULE_BASED_CALENDAR"):
            rname = rbc.get("NAME", "")
            self.rules[rname] = self._when(rbc, f"{where}/RULE_BASED_CALENDAR[@NAME='{rname}']")
        self._children(net, el, where, name, whens, folder_level=True)
        if not whens:
            self.model.note("schedule", where, "no scheduling criteria: no schedule made")
        elif not el.get("FOLDER_ORDER_METHOD"):
            # BMC, "SMART Folder parameters" / "Regular folder parameters" (documents.bmc.com/
            # supportu/ctrlm9/help/Main_help/en-US/2226.htm): Order Method is Automatic (New
            # Day orders the folder), None (Manual Order: not ordered automatically) or a
            # user daily name. The page does not say which the XML writes when the attribute
            # is absent (an Automatic folder exports FOLDER_ORDER_METHOD="SYSTEM"), so the
            # schedule is kept and reported.
            self.model.note(
                "schedule",
                f"{where}/@FOLDER_ORDER_METHOD",
                "no order method: taken as Automatic (ordered by New Day); Control-M's "
                "None (Manual Order) folders are not ordered automatically: if this folder "
                "is ordered by hand, delete its schedule and start it with cfnops job run",
            )
        elif el.get("FOLDER_ORDER_METHOD", "").upper() != "SYSTEM":
            self.model.note(
                "schedule",
                f"{where}/@FOLDER_ORDER_METHOD",
                f"folder ordered by the user daily {el.get('FOLDER_ORDER_METHOD')!r}, not by "
                "New Day: the schedule starts at the jobs' own times; check when that user "
                "daily job runs",
            )
        self.pending.append((net, whens))

    def _children(
        self,
        net: JobNet,
        el: ET.Element,
        where: str,
        prefix: str,
        whens: list[Entry],
        folder_level: bool,
    ) -> None:
        before = set(net.jobs)
        conds: list[ET.Element] = []
        for child in el:
            tag = child.tag
            if tag == "JOB":
                self._job(net, child, where, prefix, whens)
            elif tag == "SUB_FOLDER":
                sub = child.get("JOBNAME") or child.get("FOLDER_NAME") or "sub"
                swhere = f"{where}/SUB_FOLDER[@JOBNAME='{sub}']"
                self._children(net, child, swhere, f"{prefix}/{sub}", whens, False)
            elif tag in ("INCOND", "OUTCOND"):
                conds.append(child)
            elif tag in ("SHOUT", "ON") and folder_level:
                self._notify(net, child, where)
            elif tag in ("RULE_BASED_CALENDAR", "RULE_BASED_CALENDARS", "VARIABLE"):
                continue
            else:
                self.model.note("keyword", f"{where}/{tag}", "element not mapped")
        unit = tuple(p for p in net.jobs if p not in before)
        for cond in conds:  # the smart folder's / sub-folder's own conditions
            self._cond(net, unit, cond, where)

    def _when(self, el: ET.Element, where: str) -> CtmWhen:
        when = CtmWhen(source=where)
        days = el.get("DAYS", "").strip()
        if days:
            when.month_days = [t.strip() for t in days.split(",") if t.strip()]
        weekdays = el.get("WEEKDAYS", "").strip()
        for t in (t.strip() for t in weekdays.split(",") if t.strip()):
            if t.upper() == "ALL":
                when.week_days = ["ALL"]
            elif t in _WEEKNUM:
                when.week_days.append(_WEEKNUM[t])
            else:
                self.model.note("value", f"{where}/@WEEKDAYS", f"week day {t!r} not mapped")
        if not days and not weekdays:
            when.month_days = ["ALL"]
        when.relation = "AND" if el.get("DAYS_AND_OR", "O").upper().startswith("A") else "OR"
        months = [m for m in _MONTH_ATTRS if el.get(m) == "1"]
        if any(el.get(m) is not None for m in _MONTH_ATTRS):
            when.months = month_numbers(months) if len(months) < 12 else []
        when.from_time = el.get("TIMEFROM") or None
        when.days_calendar = el.get("DAYSCAL") or None
        when.weeks_calendar = el.get("WEEKSCAL") or None
        when.conf_calendar = el.get("CONFCAL") or None
        shift = el.get("SHIFT", "")
        policy = policy_of(shift)
        if policy is None:
            self.model.note("value", f"{where}/@SHIFT", f"SHIFT {shift!r} not known: not shifted")
        when.policy = policy or "open"
        shiftnum = el.get("SHIFTNUM", "").replace("+", "").strip()
        when.shift_by = int(shiftnum) if shiftnum.lstrip("-").isdigit() else 0
        if el.get("TIMEZONE"):
            when.timezone = timezone_of(el.get("TIMEZONE", ""), self.model, where)
        when.rule_calendars = [r.get("NAME", "") for r in el.findall("RULE_BASED_CALENDARS")]
        if el.get("TIMETO") not in (None, "", ">"):
            self.model.note(
                "keyword", f"{where}/@TIMETO", "end of the submission window: not mapped"
            )
        return when

    def _job(
        self,
        net: JobNet,
        el: ET.Element,
        parent: str,
        prefix: str,
        whens: list[Entry],
    ) -> None:
        name = el.get("JOBNAME") or el.get("MEMNAME") or "job"
        where = f"{parent}/JOB[@JOBNAME='{name}']"
        self._attrs(el, where, _USED)
        path = net.path_for(prefix, name)  # a JOBNAME may repeat in a folder
        job = Job(name, path, source=where, description=el.get("DESCRIPTION", ""))
        job.host = el.get("NODEID") or None
        job.windows = self.platform.upper() in ("WINDOWS", "NT", "WIN", "WINDOWS_NT")
        job.run_as = el.get("RUN_AS") or el.get("OWNER") or None
        self._command(job, el, where)
        job.confirm = el.get("CONFIRM", "0") in ("1", "Y")
        self._rerun(job, el, where)
        if el.get("PRIORITY", "AA") not in ("", "AA", "00") or el.get("CRITICAL") in ("1", "Y"):
            self.model.note("keyword", where, "PRIORITY/CRITICAL: no priorities in cfnops")
        net.add_job(job)
        if _has_schedule(el):
            whens.append((self._when(el, where), path))
        for child in el:
            cwhere = f"{where}/{child.tag}[@NAME='{child.get('NAME', '')}']"
            if child.tag in ("INCOND", "OUTCOND"):
                self._cond(net, job, child, where)
            elif child.tag == "QUANTITATIVE":
                self._quantitative(job, child, cwhere)
            elif child.tag == "CONTROL":
                if child.get("TYPE", "E").upper().startswith("E"):
                    self.model.pools[child.get("NAME", "")] = 1
                    job.pools.append(child.get("NAME", ""))
                else:
                    self.model.note("resource", cwhere, "shared control resource: not mapped")
            elif child.tag in ("SHOUT", "ON"):
                self._notify(net, child, where, job)
            elif child.tag in ("VARIABLE", "AUTOEDIT2", "AUTOEDIT", "RULE_BASED_CALENDARS"):
                continue
            else:
                self.model.note("keyword", cwhere, "element not mapped")

    def _command(self, job: Job, el: ET.Element, where: str) -> None:
        """The job's command by its TASKTYPE, with the job's variables substituted (a
        failing command for a type not mapped)."""
        task = el.get("TASKTYPE", "Job").strip().upper()
        variables = {
            v.get("NAME", "").lstrip("%"): v.get("VALUE", "")
            for v in el.iter()
            if v.tag in ("VARIABLE", "AUTOEDIT2", "AUTOEDIT")
        }
        if task in ("DUMMY",):
            job.kind = "dummy"
        elif task in ("COMMAND",):
            job.command = el.get("CMDLINE", "")
        elif task in ("JOB", "DETACHED", "EMBEDDED SCRIPT", "SCRIPT"):
            if el.get("USE_INSTREAM_JCL") == "Y" and el.get("INSTREAM_JCL"):
                job.command = el.get("INSTREAM_JCL", "")
            else:
                lib = el.get("MEMLIB", "").rstrip("/")
                job.command = f"{lib}/{el.get('MEMNAME', '')}" if lib else el.get("MEMNAME", "")
        else:
            job.command = f"echo 'TASKTYPE {task} was not imported' >&2; exit 1"
            self.model.note(
                "job",
                where,
                f"TASKTYPE {task!r} not mapped: its Task fails until you replace the command",
            )
        if job.command:
            job.command = substitute(job.command, variables, self.model, where, variables)

    def _rerun(self, job: Job, el: ET.Element, where: str) -> None:
        """MAXRERUN/INTERVAL → a Retry; a cyclic job runs once per schedule."""
        maxrerun = el.get("MAXRERUN", "0").strip()
        if el.get("CYCLIC") == "1":
            self.model.note("job", where, "cyclic job (CYCLIC=1): run once per schedule")
            return
        if not (maxrerun.isdigit() and int(maxrerun) > 0):
            return
        job.rerun = Rerun(int(maxrerun), _interval(el.get("INTERVAL", "")))
        asks = any(
            do.tag in ("DORERUN", "DOIFRERUN")
            or (do.tag == "DOACTION" and do.get("ACTION", "").upper() == "RERUN")
            for on in el.findall("ON")
            for do in on
        )
        if not asks:
            self.model.note(
                "job",
                f"{where}/@MAXRERUN",
                "Control-M reruns a non-cyclic job only when an ON statement says DO "
                f"RERUN; imported as a Retry of {maxrerun} (remove it if not wanted)",
            )

    def _quantitative(self, job: Job, child: ET.Element, cwhere: str) -> None:
        """A QUANTITATIVE resource: a pool as large as the largest QUANT asked."""
        pool, quant = child.get("NAME", ""), child.get("QUANT", "1")
        q = int(quant) if quant.isdigit() else 1
        self.model.pools[pool] = max(self.model.pools.get(pool, 0), q)
        job.pools.append(pool)
        self.model.note(
            "resource",
            cwhere,
            f"quantitative resource {pool}: pool "
            f"capacity {self.model.pools[pool]} (the largest QUANT asked; set "
            "the real maximum with cfnops job pool set); a Task takes one "
            "slot",
        )

    def _cond(self, net: JobNet, job: Job | tuple[str, ...], el: ET.Element, where: str) -> None:
        name = el.get("NAME", "")
        cwhere = f"{where}/{el.tag}[@NAME='{name}']"
        if el.get("ODATE", "ODAT").upper() not in ("ODAT", "STAT", "****", "$$$$"):
            self.model.note(
                "dependency",
                cwhere,
                f"condition date {el.get('ODATE')}: cfnops counts successes since the last start",
            )
        if el.tag == "INCOND":
            if el.get("AND_OR", "A").upper().startswith("O") or el.get("OP") in ("|", "O"):
                self.model.note("dependency", cwhere, "OR between conditions: all are waited for")
            self.events.wait(name, net, job, cwhere)
        elif el.get("SIGN", "+").upper() in ("+", "ADD", "A"):
            self.events.add(name, net, job)

    def _notify(self, net: JobNet, el: ET.Element, where: str, job: Job | None = None) -> None:
        if el.tag == "SHOUT":
            kind, limit = el.get("WHEN", "").upper(), el.get("TIME", "").strip()
            swhere = f"{where}/SHOUT[@WHEN='{kind}']"
            if kind == "EXECTIME" and limit[:1] == ">" and limit[1:].isdigit():
                net.watch("expected", f"{int(limit[1:])}m", self.model, swhere)
            elif kind == "LATETIME" and limit.lstrip(">").isdigit() and len(limit.lstrip(">")) == 4:
                t = limit.lstrip(">")
                net.watch("deadline", f"{int(t[:2]) % 24:02d}:{t[2:]}", self.model, swhere)
            elif kind in ("EXECTIME", "LATETIME", "LATESUB"):
                self.model.note(
                    "notify",
                    swhere,
                    f"{kind} {limit!r}: not mapped (--start-grace, --deadline, --expected by hand)",
                )
            when = {"NOTOK": "failed", "OK": "succeeded"}.get(kind, "late")
            self.model.notify.append(
                NotifyRule(
                    net.name, when, el.get("DEST", ""), el.get("MESSAGE", ""), f"{where}/SHOUT"
                )
            )
            return
        code = (el.get("CODE") or el.get("CODES") or "").upper()  # CODES: z/OS exports
        for do in el:
            dwhere = f"{where}/ON[@CODE='{code}']/{do.tag}"
            if do.tag in ("DOSHOUT", "DOMAIL"):
                when = "failed" if code == "NOTOK" else "succeeded" if code == "OK" else "always"
                add_mail(self.model, net.name, when, _mail(do), dwhere)
            elif do.tag == "DOFORCEJOB" and code == "OK":
                self.events.forced.append((do.get("TABLE_NAME", ""), net, dwhere))
            elif do.tag == "DOFORCEJOB":
                self.model.note(
                    "dependency",
                    dwhere,
                    f"forces job {do.get('NAME')} of {do.get('TABLE_NAME')} on {code or 'a code'}: "
                    "give that job-net a schedule --after this one by hand",
                )
            elif job is not None and (
                do.tag in ("DORERUN", "DOIFRERUN")
                or (do.tag == "DOACTION" and do.get("ACTION", "").upper() == "RERUN")
            ):
                job.rerun = job.rerun or Rerun(1, 0)
                if do.tag == "DOIFRERUN":
                    self.model.note("job", dwhere, "restart from a step: the whole job is retried")
            elif (
                do.tag == "DOCOND"
                and code == "NOTOK"
                and job is not None
                and do.get("SIGN", "+").upper() in ("+", "ADD", "A")
            ):
                self.events.added_on_failure(do.get("NAME", ""), net, job)
            else:
                self.model.note(
                    "keyword",
                    dwhere,
                    f"{do.tag} on {code or 'a code'}: not mapped (add a Catch by hand)",
                )


def _mail(do: ET.Element) -> Mail:
    """A ``DOMAIL`` (or a ``DOSHOUT``: destination, message and urgency only)."""
    return Mail(
        to=do.get("DEST") or do.get("TO") or "",
        cc=do.get("CC_DEST", ""),
        subject=do.get("SUBJECT", ""),
        message=do.get("MESSAGE", ""),
        urgency=do.get("URGENCY", ""),
        attach_output=is_yes(do.get("ATTACH_SYSOUT", "")),
    )


def _has_schedule(el: ET.Element) -> bool:
    """Days to run on: without DAYS/WEEKDAYS/a calendar a job is only ordered by hand
    (or forced); months, times and shifts alone select no day."""
    days = ("DAYS", "WEEKDAYS", "DAYSCAL", "WEEKSCAL")
    return any(el.get(a) for a in days) or el.find("RULE_BASED_CALENDARS") is not None


def _interval(text: str) -> int:
    t = text.strip().upper()
    if not t:
        return 0
    unit = {"M": 60, "H": 3600, "D": 86400}.get(t[-1], 60)
    digits = t[:-1] if t[-1] in "MHD" else t
    return int(digits) * unit if digits.isdigit() else 0

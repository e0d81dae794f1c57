"""Every keyword of each of the project's exports is mapped, or reported naming its job.

The walk is the test's own: it reads each export with the standard library (json,
ElementTree, a line scan for ajsprint), and for every keyword of every job (and folder /
jobnet) checks that it is one the importer maps (the tables below, from docs/migrate.md)
or that the report has an entry whose source or reason names that job. Scheduling
keywords of a job must have made a schedule, or be the same as criteria that did (jobs of
one folder sharing their criteria), or be reported.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from jobimport_helpers import DATA

from cfnops.jobimport import plan_import, read_export

# keywords with a run-time meaning the importer maps (docs/migrate.md, "What a job becomes")
_JSON_MAPPED = {
    "Type", "Command", "Host", "RunAs", "FileName", "FilePath", "Arguments", "Path",
    "SearchInterval", "Confirm", "Variables", "PreCommand", "PostCommand", "Script",
    "Description",
}  # fmt: skip
_JSON_OBJECTS = {"WaitForEvents", "AddEvents", "DeleteEvents", "Resource:Semaphore",
                 "Resource:Pool", "Resource:Mutex", "If", "Notify:NotOK", "Notify:OK",
                 "Notify:ExecutionTime"}  # fmt: skip
# organisational keywords with no run-time effect (Control-M: grouping and bookkeeping)
_JSON_BOOKKEEPING = {"Application", "SubApplication", "ControlmServer", "CreatedBy"}
_XML_MAPPED = {
    "JOBNAME", "TASKTYPE", "CMDLINE", "NODEID", "RUN_AS", "CONFIRM", "MAXRERUN", "INTERVAL",
    "MEMLIB", "MEMNAME", "DESCRIPTION", "CYCLIC", "PRIORITY",
}  # fmt: skip
_XML_BOOKKEEPING = {"APPLICATION", "SUB_APPLICATION", "CREATED_BY", "JOBISN"}
_XML_SCHEDULING = {"DAYS", "WEEKDAYS", "TIMEFROM", "DAYSCAL", "WEEKSCAL", "CONFCAL", "SHIFT",
                   "SHIFTNUM", "MONTHS", "DAYS_AND_OR", "JAN", "FEB", "MAR", "APR", "MAY",
                   "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}  # fmt: skip
_XML_CHILDREN = {"INCOND", "OUTCOND", "QUANTITATIVE", "CONTROL", "SHOUT", "ON", "VARIABLE"}
_JP1_MAPPED = {
    "ty", "sc", "te", "prm", "un", "ex", "ha", "abr", "rec", "rei", "cm", "el", "ar", "sz",
    "sd", "st", "cy", "sh", "ejn", "op", "cl", "evid", "evhst", "wkp", "env", "ev", "si",
    "so", "se", "soa", "sea", "etm", "jd",
}  # fmt: skip


def _names_job(report: dict[str, Any], where: str, job: str) -> bool:
    return any(
        u["source"].startswith(where) or job in u["reason"] or job in u["source"]
        for u in report["unmapped"]
    )


def _plan(name: str, product: str, calendars: bytes | None = None) -> dict[str, Any]:
    data = (DATA / name).read_bytes()
    model = read_export(data, name, product, calendars=calendars)
    return plan_import(model, name).report  # type: ignore[no-any-return]


def test_every_keyword_of_the_json_export() -> None:
    report = _plan("controlm_fin.json", "controlm")
    doc = json.loads((DATA / "controlm_fin.json").read_text())
    silent = []
    for fname, folder in doc.items():
        if not isinstance(folder, dict) or folder.get("Type") != "Folder":
            continue
        for jname, job in folder.items():
            if not (isinstance(job, dict) and str(job.get("Type", "")).startswith("Job")):
                continue
            where, path = f"$.{fname}.{jname}", f"{fname}/{jname}"
            for key, value in job.items():
                if isinstance(value, dict) and value.get("Type") in _JSON_OBJECTS:
                    continue
                if key in _JSON_MAPPED | _JSON_BOOKKEEPING and not _typed(job, key):
                    continue
                if not _names_job(report, f"{where}.{key}", path) and not _names_job(
                    report, where, path
                ):
                    silent.append(f"{where}.{key}")
    assert silent == []


def _typed(job: dict[str, Any], key: str) -> bool:
    """A key of a job type the importer does not map (its settings must be reported)."""
    return key not in ("Type", "Description") and job.get("Type") not in (
        "Job:Command", "Job:Script", "Job:EmbeddedScript", "Job:Dummy", "Job:FileWatcher:Create",
    )  # fmt: skip


def test_every_keyword_of_the_xml_export() -> None:
    cal = (DATA / "controlm_defcal.xml").read_bytes()
    report = _plan("controlm_payroll.xml", "controlm", cal)
    root = ET.parse(DATA / "controlm_payroll.xml").getroot()
    schedule_sources = {s["source"] for n in report["jobNets"] for s in n["schedules"]}
    silent = []
    for folder in root:
        fname = folder.get("FOLDER_NAME", "")
        made: list[dict[str, str]] = []
        for job in folder.iter("JOB"):
            jname = job.get("JOBNAME", "")
            where = f"/DEFTABLE/{folder.tag}[@FOLDER_NAME='{fname}']/JOB[@JOBNAME='{jname}']"
            path = f"{fname}/{jname}"
            crit = {k: v for k, v in job.attrib.items() if k in _XML_SCHEDULING}
            if crit:
                if where in schedule_sources:
                    made.append(crit)
                elif crit not in made and not _names_job(report, where, path):
                    silent.append(f"{where} (its scheduling criteria)")
            for attr in job.attrib:
                if attr in _XML_MAPPED | _XML_BOOKKEEPING | _XML_SCHEDULING:
                    continue
                if not _names_job(report, where, path):
                    silent.append(f"{where}/@{attr}")
            for child in job:
                if child.tag not in _XML_CHILDREN and not _names_job(report, where, path):
                    silent.append(f"{where}/{child.tag}")
    assert silent == []


_UNIT = re.compile(r"^\s*unit=([^,]+),")
_PARAM = re.compile(r"^\s*([a-z0-9]+)=")


def test_every_parameter_of_the_jp1_export() -> None:
    report = _plan("jp1_sales.txt", "jp1")
    stack: list[str] = []
    silent = []
    pending: str | None = None
    for line in (DATA / "jp1_sales.txt").read_text().splitlines():
        unit = _UNIT.match(line)
        if unit:
            pending = unit.group(1)
            continue
        if line.strip() == "{":
            stack.append(pending or "?")
            continue
        if line.strip() == "}":
            stack.pop()
            continue
        param = _PARAM.match(line)
        if not param or param.group(1) in _JP1_MAPPED:
            continue
        path = "/".join(stack)
        if not any(path in u["source"] or path[len(stack[0]) + 1 :] in u["reason"]
                   for u in report["unmapped"]):  # fmt: skip
            silent.append(f"{path}: {param.group(1)}")
    assert silent == []


@pytest.mark.parametrize("name", ["controlm_fin.json", "controlm_payroll.xml", "jp1_sales.txt"])
def test_the_exports_are_the_projects_own(name: str) -> None:
    # the walk needs the real files (a missing export must fail, not skip)
    assert (DATA / name).stat().st_size > 1000

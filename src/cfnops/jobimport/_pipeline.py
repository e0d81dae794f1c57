"""Read an export, lay out each job-net, check it, and write the files (all or nothing).

``read → layout → build ASL → check`` runs fully in memory. Every definition is walked
(:mod:`cfnops.jobimport._verify`) and must keep every dependency of the source, and must
pass ``cfnops.asl.validate(strict=True)``; only then are files written: first into a
temporary folder next to ``--out``, then moved into place.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from cfnops.jobimport._asl import HostTarget, build_definition, pool_name
from cfnops.jobimport._days import calendar_toml
from cfnops.jobimport._graph import find_cycle, layout
from cfnops.jobimport._loops import Loop, collapse_cycles
from cfnops.jobimport._model import ImportModel, JobNet, ScheduleSpec
from cfnops.jobimport._report import render_markdown, render_text
from cfnops.jobimport._verify import added_order, dependency_problems
from cfnops.jobimport.errors import ImportInputError, JobImportError

__all__ = ["ImportPlan", "plan_import", "read_export", "write_plan"]

# Unicode letters are fine in file and state machine names (JP1 names are often Japanese)
_SAFE = re.compile(r"[^\w.-]+")


def safe_name(name: str) -> str:
    return _SAFE.sub("-", name).strip("-.")[:80] or "jobnet"


@dataclass
class ImportPlan:
    """What an import writes: files by relative path, the report, definitions by job-net."""

    model: ImportModel
    files: dict[str, str] = field(default_factory=dict)
    definitions: dict[str, dict[str, Any]] = field(default_factory=dict)
    report: dict[str, Any] = field(default_factory=dict)

    def text(self) -> str:
        return render_text(self.report)


def _decode(data: bytes, source: str, product: str) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if product == "jp1":
            try:
                return data.decode("cp932")  # Shift_JIS as JP1 on Windows writes it
            except UnicodeDecodeError:
                pass
        line = data[: exc.start].count(b"\n") + 1
        raise ImportInputError(
            source,
            f"line {line}",
            "neither UTF-8 nor Shift_JIS text (a binary file?)",
            "give the export as written by ajsprint / Control-M",
        ) from None


def read_export(
    data: bytes,
    source: str,
    product: str,
    *,
    timezone: str = "UTC",
    today: date | None = None,
    calendars: bytes | None = None,
) -> ImportModel:
    """The neutral model of an export (``product``: controlm or jp1).

    ``calendars``: a Control-M DEFCAL export the XML's CONFCAL/DAYSCAL names refer to.
    """
    today = today or date.today()
    _check_product(data, source, product)
    if product == "controlm" and data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
        from cfnops.jobimport._controlm_xml import read_controlm_xml

        # bytes: the parser reads the declared encoding (exports say ISO-8859-1 or UTF-8)
        return read_controlm_xml(data, source, timezone, today, calendars)
    text = _decode(data, source, product)
    if not text.strip():
        raise ImportInputError(source, "line 1", "the file is empty", "give a whole export")
    if product == "controlm":
        from cfnops.jobimport._controlm_json import read_controlm_json

        return read_controlm_json(text, source, timezone, today)
    if product == "jp1":
        from cfnops.jobimport._jp1 import read_jp1

        return read_jp1(text, source, timezone, today)
    raise ImportInputError(source, "--from", f"unknown product {product!r}", "use controlm or jp1")


_JP1_START = re.compile(rb"^(?:\s|/\*.*?\*/)*unit\s*=", re.S)
_CTM_JSON = re.compile(rb'^\s*\{.*"Type"\s*:\s*"(?:Folder|SimpleFolder|Job:)', re.S)


def _looks_like(data: bytes) -> str | None:
    """The product an export's first bytes say it comes from (None: neither)."""
    head = data[:65536].lstrip(b"\xef\xbb\xbf")
    if _JP1_START.match(head):
        return "jp1"
    if head.lstrip().startswith(b"<") and (b"<DEFTABLE" in head or b"<FOLDER" in head):
        return "controlm"
    if _CTM_JSON.match(head):
        return "controlm"
    return None


def _check_product(data: bytes, source: str, product: str) -> None:
    seen = _looks_like(data)
    if seen is None or seen == product or product not in ("controlm", "jp1"):
        return
    names = {"controlm": "a Control-M export", "jp1": "a JP1/AJS3 ajsprint -a output"}
    raise ImportInputError(
        source,
        "line 1",
        f"this is {names[seen]}, not {names[product]}",
        f"import it with --from {seen}",
    )


def _rename(model: ImportModel) -> dict[str, str]:
    names: dict[str, str] = {}
    for net in model.jobnets:
        base, n = safe_name(net.name), 2
        name = base
        while name in names.values():
            name, n = f"{base}-{n}", n + 1
        names[net.name] = name
    return names


def plan_import(
    model: ImportModel,
    source: str,
    hosts: Mapping[str, HostTarget] | None = None,
    *,
    poll_seconds: int = 30,
) -> ImportPlan:
    """Lay out, build and check every job-net; nothing is written here."""
    names = _rename(model)
    _check_cycles(model, source, names)
    _dedupe_notify(model)
    plan = ImportPlan(model)
    hosts = hosts or {}
    nets_json = []
    unmapped_hosts: set[str] = set()
    for net in model.jobnets:
        nets_json.append(_plan_net(plan, net, names, source, hosts, poll_seconds))
        unmapped_hosts |= _note_hosts(model, net, hosts)
    for host in sorted(unmapped_hosts):
        model.note(
            "value",
            f"host {host}",
            f"no --hosts entry: its commands go to instances tagged Name={host}",
        )
    _write_report(plan, source, nets_json)
    return plan


def _dedupe_notify(model: ImportModel) -> None:
    """Keep one notify rule per job-net, whatever number of jobs repeat it."""
    seen_rules: set[tuple[str, str, str, str]] = set()
    rules = []
    for rule in model.notify:
        key = (rule.job_net, rule.when, rule.destination, rule.message)
        if key not in seen_rules:
            seen_rules.add(key)
            rules.append(rule)
    model.notify = rules


def _plan_net(
    plan: ImportPlan,
    net: JobNet,
    names: Mapping[str, str],
    source: str,
    hosts: Mapping[str, HostTarget],
    poll_seconds: int,
) -> dict[str, Any]:
    """Lay out, build and check one job-net, add its definition to ``plan``; its report
    entry."""
    model = plan.model
    name = names[net.name]
    rescue = {p for chain in net.recovery.values() for p in chain}
    nodes = [p for p in net.jobs if p not in rescue]
    outer, outer_edges, loops = collapse_cycles(nodes, net.edges, net.jobs)
    shape = layout(outer, outer_edges)
    inner = {
        k: (layout(list(lp.members), set(lp.edges)).root, lp.rounds) for k, lp in loops.items()
    }
    for job in net.jobs.values():  # the names the schedules are registered under
        if job.ordered_by is not None:
            job.ordered_by = tuple(safe_name(n) for n in job.ordered_by)
    definition, notes = build_definition(net, shape.root, hosts, poll_seconds, inner)
    for kind, where, reason in notes:
        model.note(kind, where, reason)
    back = {e for lp in loops.values() for e in lp.back_edges}
    _self_check(definition, net, source, net.edges - back)
    _note_loops(model, net, loops)
    added = _note_added_waits(model, net, definition, nodes, net.edges - back)
    path = f"{name}.asl.json"
    # compact: indenting deeply nested Parallels costs time quadratic in the depth
    plan.files[path] = json.dumps(definition, ensure_ascii=False) + "\n"
    plan.definitions[name] = definition
    cals = sorted({s.calendar for s in net.schedules if s.calendar})
    notify = any(r.job_net == net.name for r in model.notify)
    return {
        "name": name,
        "source": net.source,
        "definition": path,
        "jobs": len(net.jobs),
        "schedules": [
            {**_schedule_json(s, names, notify), **net.monitor, "exclusive": net.exclusive}
            for s in net.schedules
        ],
        "calendars": [f"calendars/{safe_name(c)}.toml" for c in cals],
        "jobPaths": list(net.jobs),
        "dependencies": sorted([a, b] for a, b in net.edges),
        "addedWaits": added,
        "loops": [{"jobs": list(lp.members), "rounds": lp.rounds} for lp in loops.values()],
    }


def _note_hosts(model: ImportModel, net: JobNet, hosts: Mapping[str, HostTarget]) -> set[str]:
    """Note the jobs that hold pools while their command is only sent and polled; the
    hosts of ``net``'s commands that ``hosts`` does not map."""
    unmapped: set[str] = set()
    for job in net.jobs.values():
        if job.host and job.host not in hosts and job.kind in ("command", "filewatch"):
            unmapped.add(job.host)
        if (
            job.pools
            and job.kind in ("command", "filewatch")
            and not (job.host is not None and job.host in hosts and hosts[job.host].function)
        ):
            model.note(
                "resource",
                job.source,
                f"{job.path} holds pool(s) {', '.join(job.pools)} while its command is sent "
                "and polled, not between polls: map its host to a function for exact "
                "exclusion",
            )
    return unmapped


def _write_report(plan: ImportPlan, source: str, nets_json: list[dict[str, Any]]) -> None:
    """Add the calendars, notify.toml and the report (JSON and Markdown) to ``plan``."""
    model = plan.model
    for cal in model.calendars.values():
        plan.files[f"calendars/{safe_name(cal.name)}.toml"] = calendar_toml(cal)
    plan.report = {
        "product": model.product,
        "source": source,
        "jobNets": nets_json,
        "calendars": sorted(f"calendars/{safe_name(c)}.toml" for c in model.calendars),
        "pools": {pool_name(k): v for k, v in sorted(model.pools.items())},
        "notify": [r.to_json() for r in model.notify],
        "unmapped": [u.to_json() for u in model.unmapped],
    }
    if model.notify:
        plan.files["notify.toml"] = notify_toml(model)
    plan.files["report.json"] = json.dumps(plan.report, indent=2, ensure_ascii=False) + "\n"
    plan.files["report.md"] = render_markdown(plan.report)


def _schedule_json(spec: ScheduleSpec, names: Mapping[str, str], notify: bool) -> dict[str, Any]:
    out = spec.to_json(f"calendars/{safe_name(spec.calendar)}.toml" if spec.calendar else None)
    out["notify"] = notify
    out["name"] = safe_name(spec.name)
    out["after"] = [names.get(a, safe_name(a)) for a in spec.after]
    return out


def notify_toml(model: ImportModel) -> str:
    """A ``[notify]`` section for cfnops.toml: the channels, and the source's rules."""
    lines = [
        "# [notify] for cfnops.toml, from the notifications of the export.",
        "# Schedules of these job-nets are made with --notify: one notification per run.",
        "# Destinations in the source (map each to SNS or Slack by hand):",
    ]
    for r in model.notify:
        lines.append(f"#   {r.job_net}: on {r.when} -> {r.destination!r}: {r.message[:80]!r}")
    failures_only = all(r.when == "failed" for r in model.notify)
    lines += [
        "[notify]",
        "console = true",
        '# sns_topic_arn = "arn:aws:sns:REGION:ACCOUNT:TOPIC"',
        "",
        "[notify.slack]",
        f"mention_on = {json.dumps(['failure'] if failures_only else ['always'])}",
    ]
    return "\n".join(lines) + "\n"


def _check_cycles(model: ImportModel, source: str, names: Mapping[str, str]) -> None:
    edges = [(a, net.name) for net in model.jobnets for s in net.schedules for a in s.after]
    cycle = find_cycle([n.name for n in model.jobnets], edges)
    if cycle:
        raise ImportInputError(
            source,
            " -> ".join(cycle),
            "the job-nets wait for each other (a dependency cycle between folders/jobnets)",
            "remove one of these conditions in the source and export again",
        )


def _note_loops(model: ImportModel, net: JobNet, loops: Mapping[str, Loop]) -> None:
    for n, lp in enumerate(loops.values(), 1):
        closing = ", ".join(f"{a} -> {b}" for a, b in sorted(lp.back_edges))
        model.note(
            "dependency",
            net.jobs[lp.members[0]].source,
            f"job train {', '.join(lp.members)} (a dependency cycle: {closing}) runs as a loop "
            f"of at most {lp.rounds} rounds (Choice 'Train {n} again?'); Control-M repeats it "
            "until its conditions stop: set the bound, or end the loop on a condition, by hand",
        )


def _note_added_waits(
    model: ImportModel,
    net: JobNet,
    definition: dict[str, Any],
    nodes: list[str],
    edges: set[tuple[str, str]],
) -> dict[str, list[str]]:
    """Every pair the ASL orders that the source does not (read from the definition itself,
    so no added wait goes unreported), one line per waiting job."""
    added = added_order(definition, nodes, edges)
    for waiting, extra in added.items():
        model.note(
            "dependency",
            net.jobs[waiting].source,
            f"{waiting} also waits for {', '.join(extra)} (added: the source does not order "
            "them; the graph is not series-parallel and ASL branches cannot wait for each "
            "other)",
        )
    return added


def _self_check(
    definition: dict[str, Any], net: JobNet, source: str, edges: set[tuple[str, str]]
) -> None:
    from cfnops.asl import validate

    problems = dependency_problems(definition, net.jobs, edges)
    problems += [str(f) for f in validate(definition, strict=True)]
    if problems:  # a bug in the importer, not in the export
        raise JobImportError(
            f"{source}: job-net {net.name}: the generated definition is wrong: "
            + "; ".join(problems[:5]),
            hint="nothing was written; please report this with the export",
        )


def write_plan(plan: ImportPlan, out: str | Path) -> list[str]:
    """Write every file under ``out`` (staged in a temporary folder, then moved in)."""
    target = Path(out)
    target.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=".import-", dir=target))
    try:
        for rel, text in plan.files.items():
            path = stage / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        written = []
        for rel in plan.files:
            dest = target / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            os.replace(stage / rel, dest)
            written.append(str(dest))
        return written
    finally:
        shutil.rmtree(stage, ignore_errors=True)

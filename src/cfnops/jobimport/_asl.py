"""A flattened job-net → an ASL definition (JSONata) that ``job validate --strict`` accepts.

Each job is a block of states tagged ``cfnops:job=PATH`` in their ``Comment``; the
block's first state is named after the job (or after its path where names repeat):

- a command on a host (``--hosts`` maps the host to instance ids, or to tags; unmapped
  hosts are targeted by their ``Name`` tag) is SSM Run Command, waited for as the
  web-system job-nets do: ``sendCommand`` → ``Wait`` → ``listCommands`` → ``Choice``
  (Pending/InProgress/Delayed: poll again; Success: go on; anything else: ``Fail``
  with ``Job.Failed``). A rerun rule wraps the block in a one-branch ``Parallel``
  whose ``Retry`` runs the whole job again;
- a host mapped to a function is one ``lambda:invoke`` Task (its ``Retry`` is the rerun);
- a dummy job is a ``Pass``; a time-wait job a ``Wait``; a file watcher a command that
  polls for the file;
- a confirmation (Control-M ``Confirm``, JP1 hold) is a ``sns:publish.waitForTaskToken``
  Task before the job: the run waits for ``cfnops job send-task-success TOKEN``.

The order comes from :func:`cfnops.jobimport._graph.layout`: a sequence is states in a
row, a parallel group is a ``Parallel`` state with one branch per group member.
"""

from __future__ import annotations

import hashlib
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from cfnops.jobimport._graph import Node, Par, Seq
from cfnops.jobimport._model import Job, JobNet

__all__ = ["HostTarget", "build_definition", "state_names"]

_RUNNING = ["Pending", "InProgress", "Delayed", "Cancelling"]
_POOL_CHARS = re.compile(r"[^A-Za-z0-9_.\-]")


@dataclass(frozen=True)
class HostTarget:
    """Where a host's commands run: instance ids, a tag, or a function."""

    instances: tuple[str, ...] = ()
    tag_key: str | None = None
    tag_values: tuple[str, ...] = ()
    function: str | None = None


def pool_name(name: str) -> str:
    return _POOL_CHARS.sub("-", name)[:60] or "pool"


def state_names(net: JobNet) -> dict[str, str]:
    """Job path → state name: the job's name, or its path where names repeat or do not fit."""
    counts: dict[str, int] = {}
    for job in net.jobs.values():
        counts[job.name] = counts.get(job.name, 0) + 1
    out: dict[str, str] = {}
    used: set[str] = set()
    for path, job in net.jobs.items():
        name = _clean(job.name)
        if counts[job.name] > 1 or not name or len(name) > 64 or name != job.name:
            rel = path.split("/", 1)[1] if "/" in path else path
            name = _clean(rel)
            if len(name) > 64 or name in used:
                digest = hashlib.sha1(path.encode()).hexdigest()[:8]
                name = f"{name[:55]}~{digest}"
        out[path] = name
        used.add(name)
    return out


def _clean(text: str) -> str:
    return "".join(ch if ch.isprintable() else " " for ch in text).strip()


@dataclass
class _Ctx:
    net: JobNet
    names: dict[str, str]
    hosts: Mapping[str, HostTarget]
    parallel_count: int = 0
    loops: Mapping[str, tuple[Node | None, int]] = field(default_factory=dict)
    needs_confirm: bool = False
    needs_order: bool = False
    filled: dict[str, list[str]] = field(default_factory=dict)  # default -> job paths
    notes: list[tuple[str, str, str]] = field(default_factory=list)  # (kind, source, reason)


def build_definition(
    net: JobNet,
    root: Node | None,
    hosts: Mapping[str, HostTarget] | None = None,
    poll_seconds: int = 30,
    loops: Mapping[str, tuple[Node | None, int]] | None = None,
) -> tuple[dict[str, Any], list[tuple[str, str, str]]]:
    """The ASL definition of ``net`` laid out as ``root``, and notes for the report.

    ``loops``: a node of the layout that stands for a job train → its own layout and the
    number of rounds (:mod:`cfnops.jobimport._loops`)."""
    ctx = _Ctx(net, state_names(net), hosts or {}, loops=loops or {})
    states: dict[str, Any] = {}
    entry = _build(ctx, root, None, states) if root is not None else None
    _filled_notes(ctx)
    assign: dict[str, Any] = {
        "pollSeconds": "{% $exists($states.input.pollSeconds) ? $states.input.pollSeconds : "
        + f"{int(poll_seconds)} %}}"
    }
    if ctx.needs_confirm:
        assign["confirmTopicArn"] = (
            "{% $exists($states.input.confirmTopicArn) ? $states.input.confirmTopicArn : '' %}"
        )
    if ctx.needs_order:
        assign["orderedBy"] = (
            "{% $exists($states.input.cfnopsSchedule) ? $states.input.cfnopsSchedule : '' %}"
        )
    init: dict[str, Any] = {"Type": "Pass", "Assign": assign}
    if entry is None:
        init["End"] = True
    else:
        init["Next"] = entry
    definition = {
        "Comment": f"{net.name}: imported by cfnops job import from {net.source}"[:2000],
        "QueryLanguage": "JSONata",
        "StartAt": "Init",
        "States": {"Init": init, **states},
    }
    return definition, ctx.notes


def _link(state: dict[str, Any], nxt: str | None) -> dict[str, Any]:
    if nxt is None:
        state["End"] = True
    else:
        state["Next"] = nxt
    return state


def _build(ctx: _Ctx, node: Node, nxt: str | None, states: dict[str, Any]) -> str:
    if isinstance(node, str) and node in ctx.loops:
        return _loop(ctx, node, nxt, states)
    if isinstance(node, str):
        return _job(ctx, ctx.net.jobs[node], nxt, states)
    if isinstance(node, Seq):
        entry = nxt
        for item in reversed(node.items):
            entry = _build(ctx, item, entry, states)
        assert entry is not None
        return entry
    assert isinstance(node, Par)
    ctx.parallel_count += 1
    name = f"Parallel {ctx.parallel_count}"
    branches = []
    for item in node.items:
        inner: dict[str, Any] = {}
        start = _build(ctx, item, None, inner)
        branches.append({"StartAt": start, "States": inner})
    states[name] = _link({"Type": "Parallel", "Branches": branches, "Output": {}}, nxt)
    return name


def _loop(ctx: _Ctx, key: str, nxt: str | None, states: dict[str, Any]) -> str:
    """A job train: its jobs, then a Choice that runs them again up to the bound."""
    body, rounds = ctx.loops[key]
    n = key.removeprefix("\x00loop")
    var, again, done = f"trainRound{n}", f"Train {n} again?", f"Train {n} done"
    exit_to = nxt if nxt is not None else done
    if nxt is None:
        states[done] = {"Type": "Pass", "End": True}
    entry = _build(ctx, body, again, states) if body is not None else again
    states[again] = {
        "Type": "Choice",
        "Comment": f"job train {n}: at most {rounds} rounds (set the bound here)",
        "Choices": [{"Condition": f"{{% ${var} < {rounds} %}}", "Next": f"Train {n} next"}],
        "Default": exit_to,
    }
    states[f"Train {n} next"] = {
        "Type": "Pass",
        "Assign": {var: f"{{% ${var} + 1 %}}"},
        "Next": entry,
    }
    states[f"Train {n}"] = {"Type": "Pass", "Assign": {var: 1}, "Next": entry}
    return f"Train {n}"


def _tag(job: Job) -> str:
    """``cfnops:job=PATH``; spaces and control characters percent-encoded (one token)."""
    return "cfnops:job=" + quote(job.path, safe="/#~.-_:@!$&'()*+,;=[]{}|^`")


def _comment(job: Job, pools: bool = True) -> str:
    parts = [_tag(job)]
    if pools:
        parts.extend(f"cfnops:pool={pool_name(p)}" for p in job.pools)
    if job.description:
        parts.append(job.description.replace("\n", " ")[:200])
    return " ".join(parts)


def _recovery(ctx: _Ctx, job: Job, states: dict[str, Any]) -> str | None:
    """The recovery jobs of ``job`` in a row, then a Fail: the entry a Catch goes to."""
    chain = ctx.net.recovery.get(job.path)
    if not chain:
        return None
    base = ctx.names[job.path]
    entry = f"{base}.Recovered"
    states[entry] = {
        "Type": "Fail",
        "Comment": f"{_tag(job)} (ended abnormally; its recovery ran)",
        "Error": "Job.Failed",
        "Cause": f"job {job.path} ended abnormally; its recovery ran"[:256],
    }
    for path in reversed(chain):
        entry = _job(ctx, ctx.net.jobs[path], entry, states)
    return entry


def _catch(target: str) -> list[dict[str, Any]]:
    return [{"ErrorEquals": ["States.ALL"], "Next": target}]


def _job(ctx: _Ctx, job: Job, nxt: str | None, states: dict[str, Any]) -> str:
    base = ctx.names[job.path]
    tag = _comment(job)
    catch = _recovery(ctx, job, states)
    if catch is not None and job.kind in ("dummy", "wait"):
        ctx.notes.append(("job", job.source, f"{job.path} cannot fail: its recovery never runs"))
    if job.kind == "dummy":
        entry = base
        states[base] = _link({"Type": "Pass", "Comment": tag}, nxt)
    elif job.kind == "wait":
        entry = base
        states[base] = _link({"Type": "Wait", "Comment": tag, "Seconds": job.wait_seconds}, nxt)
    else:
        target = ctx.hosts.get(job.host or "")
        if target is not None and target.function:
            entry = base
            states[base] = _link(_function_task(job, target.function, tag), nxt)
            if catch is not None:
                states[base]["Catch"] = _catch(catch)
        else:
            entry = _runcommand(ctx, job, base, target, tag, nxt, states, catch)
    if job.confirm:
        ctx.needs_confirm = True
        states[f"{base}.Confirm"] = {
            "Type": "Task",
            "Comment": _comment(job, pools=False),
            "Resource": "arn:aws:states:::sns:publish.waitForTaskToken",
            "Arguments": {
                "TopicArn": "{% $confirmTopicArn %}",
                "Message": "{% 'Confirm job "
                + _jsonata_text(job.path)
                + ": cfnops job send-task-success ' & $states.context.Task.Token %}",
            },
            "Next": entry,
        }
        entry = f"{base}.Confirm"
    if job.ordered_by is not None:
        entry = _ordered(ctx, job, base, entry, nxt, states)
    return entry


def _ordered(
    ctx: _Ctx, job: Job, base: str, entry: str, nxt: str | None, states: dict[str, Any]
) -> str:
    """Run the job only in the runs one of its own schedules started (``cfnopsSchedule`` in
    the run input, set by ``--apply``); a run started by hand runs every job."""
    assert job.ordered_by is not None
    ctx.needs_order = True
    names = ", ".join("'" + _jsonata_text(n) + "'" for n in job.ordered_by)
    states[f"{base}.Skipped"] = _link(
        {"Type": "Pass", "Comment": f"{_tag(job)} (not ordered in this run)"}, nxt
    )
    states[f"{base}.Ordered"] = {
        "Type": "Choice",
        "Comment": _tag(job),
        "Choices": [
            {"Condition": f"{{% $orderedBy = '' or $orderedBy in [{names}] %}}", "Next": entry}
        ],
        "Default": f"{base}.Skipped",
    }
    return f"{base}.Ordered"


def _jsonata_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace("'", "\\'").replace("%}", "% }")


def _function_task(job: Job, function: str, tag: str) -> dict[str, Any]:
    state: dict[str, Any] = {
        "Type": "Task",
        "Comment": tag,
        "Resource": "arn:aws:states:::lambda:invoke",
        "Arguments": {
            "FunctionName": function,
            "Payload": {
                "job": job.path,
                "command": job.command or "",
                "user": job.run_as or "",
                "host": job.host or "",
            },
        },
        "Output": "{% $states.result.Payload %}",
    }
    if job.rerun:
        state["Retry"] = [_retrier(job)]
    return state


def _retrier(job: Job) -> dict[str, Any]:
    assert job.rerun is not None
    return {
        "ErrorEquals": ["States.ALL"],
        "IntervalSeconds": max(1, job.rerun.interval_seconds),
        "MaxAttempts": job.rerun.max_attempts,
        "BackoffRate": 1,
    }


def shell_command(job: Job) -> str:
    """The command line the instance runs (the user switched with ``su`` where given)."""
    if job.kind == "filewatch":
        path = shlex.quote(job.watch_path or "")
        every = max(1, job.wait_seconds or 10)
        command = f"while [ ! -e {path} ]; do sleep {every}; done"
    else:
        command = job.command or "true"
    if job.run_as and not job.windows and job.run_as != "root":
        return f"su - {shlex.quote(job.run_as)} -c {shlex.quote(command)}"
    return command


_WINDOWS_COMMAND = re.compile(r"^\s*(?:[A-Za-z]:\\|\\\\|\S+\.(?:bat|cmd|ps1|exe)\b)", re.I)


def _filled_in(ctx: _Ctx, job: Job, target: HostTarget | None) -> None:
    """Report every value the source did not give and the importer chose (command, host,
    shell, user), and send Windows command lines to PowerShell."""
    note = ctx.notes.append
    if job.kind == "command" and not (job.command or "").strip():
        note(
            (
                "value",
                job.source,
                f"job {job.path} has no command: 'true' is run (it always "
                "succeeds); write the command in the definition",
            )
        )
    if not job.host and target is None:
        ctx.filled.setdefault(_NO_HOST, []).append(job.path)
    if not job.windows and job.command and _WINDOWS_COMMAND.match(job.command):
        job.windows = True
        note(
            (
                "value",
                job.source,
                f"job {job.path}: {job.command.split()[0]!r} is a Windows "
                "command line: sent with AWS-RunPowerShellScript (check the host is Windows)",
            )
        )
    if job.windows and job.run_as:
        note(
            (
                "value",
                job.source,
                f"job {job.path}: run-as user {job.run_as!r} not applied "
                "(AWS-RunPowerShellScript runs as the SSM agent's account, LocalSystem); use a "
                "scheduled task or credentials in the script",
            )
        )
    elif not job.windows and job.run_as and job.run_as != "root":
        ctx.filled.setdefault(_SU, []).append(job.path)
    elif not job.windows:
        ctx.filled.setdefault(_ROOT, []).append(job.path)


_NO_HOST = (
    "name no host: their commands go to instances tagged Name=localhost; map them with --hosts"
)
_SU = "run as their run-as user through su - USER -c (a login shell, from AWS-RunShellScript)"
_ROOT = (
    "name no run-as user: they run as root under /bin/sh (AWS-RunShellScript); set the user "
    "in the definition"
)


def _filled_notes(ctx: _Ctx) -> None:
    """One report line per default the importer filled in, naming every job it applies to."""
    for what, paths in ctx.filled.items():
        ctx.notes.append(("value", ctx.net.source, f"jobs {', '.join(sorted(paths))}: {what}"))


def _runcommand(
    ctx: _Ctx,
    job: Job,
    base: str,
    target: HostTarget | None,
    tag: str,
    nxt: str | None,
    states: dict[str, Any],
    catch: str | None = None,
) -> str:
    _filled_in(ctx, job, target)
    wrap = job.rerun is not None or catch is not None
    done = nxt if (nxt is not None and not wrap) else f"{base}.Done"
    block = _command_states(job, base, _send_arguments(job, target), tag, done)
    if not wrap:
        states.update(block)
        return base
    name = f"{base}.Rerun" if job.rerun is not None else f"{base}.Recovery"
    states[name] = _link(
        {
            "Type": "Parallel",
            "Comment": f"{_tag(job)} (its rerun rule and recovery)",
            "Branches": [{"StartAt": base, "States": block}],
            "Output": {},
        },
        nxt,
    )
    if job.rerun is not None:
        states[name]["Retry"] = [_retrier(job)]
    if catch is not None:
        states[name]["Catch"] = _catch(catch)
    return name


def _send_arguments(job: Job, target: HostTarget | None) -> dict[str, Any]:
    """The ssm:SendCommand arguments that run ``job``'s command on its host's instances."""
    args: dict[str, Any] = {
        "DocumentName": "AWS-RunPowerShellScript" if job.windows else "AWS-RunShellScript",
        "Comment": f"cfnops job {job.path}"[:100],
        "Parameters": {"commands": [shell_command(job)]},
    }
    if job.working_dir:  # AWS-RunShellScript / AWS-RunPowerShellScript parameters
        args["Parameters"]["workingDirectory"] = [job.working_dir]
    if job.timeout_seconds:
        args["Parameters"]["executionTimeout"] = [str(job.timeout_seconds)]
    if target is not None and target.instances:
        args["InstanceIds"] = list(target.instances)
    elif target is not None and target.tag_key:
        args["Targets"] = [{"Key": f"tag:{target.tag_key}", "Values": list(target.tag_values)}]
    else:
        args["Targets"] = [{"Key": "tag:Name", "Values": [job.host or "localhost"]}]
    return args


def _command_states(
    job: Job, base: str, args: dict[str, Any], tag: str, done: str
) -> dict[str, Any]:
    """Send the command, then wait, poll and check its status until it ends: on to
    ``done`` (a Succeed state of its own when named ``<base>.Done``) or Fail."""
    block: dict[str, Any] = {}
    block[base] = {
        "Type": "Task",
        "Comment": tag,
        "Resource": "arn:aws:states:::aws-sdk:ssm:sendCommand",
        "Arguments": args,
        "Output": {"CommandId": "{% $states.result.Command.CommandId %}"},
        "Next": f"{base}.Wait",
    }
    block[f"{base}.Wait"] = {
        "Type": "Wait",
        "Comment": _tag(job),
        "Seconds": "{% $pollSeconds %}",
        "Next": f"{base}.Poll",
    }
    block[f"{base}.Poll"] = {
        "Type": "Task",
        "Comment": tag,
        "Resource": "arn:aws:states:::aws-sdk:ssm:listCommands",
        "Arguments": {"CommandId": "{% $states.input.CommandId %}"},
        "Output": {
            "CommandId": "{% $states.input.CommandId %}",
            "Status": "{% $states.result.Commands[0].Status %}",
        },
        "Next": f"{base}.Check",
    }
    running = ", ".join(f"'{s}'" for s in _RUNNING)
    block[f"{base}.Check"] = {
        "Type": "Choice",
        "Comment": _tag(job),
        "Choices": [
            {"Condition": f"{{% $states.input.Status in [{running}] %}}", "Next": f"{base}.Wait"},
            {"Condition": "{% $states.input.Status = 'Success' %}", "Next": done},
        ],
        "Default": f"{base}.Failed",
    }
    block[f"{base}.Failed"] = {
        "Type": "Fail",
        "Comment": _tag(job),
        "Error": "Job.Failed",
        "Cause": "{% 'job " + _jsonata_text(job.path) + " ended ' & $states.input.Status %}",
    }
    if done == f"{base}.Done":
        block[done] = {"Type": "Succeed", "Comment": _tag(job)}
    return block

"""JP1/AJS3 UNIX/PC job settings → the Run Command job (JP1/AJS3 Command Reference,
Version 12, 5.2.6 "UNIX/PC job definition",
https://itpfdoc.hitachi.co.jp/manuals/3021/30213D2830e/AJSO0217.HTM).

Mapped onto the command line or the ``AWS-RunShellScript`` / ``AWS-RunPowerShellScript``
parameters (``workingDirectory``, ``executionTimeout``; AWS Systems Manager documents,
https://docs.aws.amazon.com/systems-manager/latest/userguide/documents-command-ssm-plugin-reference.html#aws-runShellScript):

- ``te`` command text and ``sc`` script file with its ``prm`` parameters: both given,
  the command text runs, then the script with its parameters (each part kept);
- ``wkp`` work path → ``workingDirectory``; ``etm`` time-out minutes →
  ``executionTimeout``;
- ``env`` variables → ``export`` (``$env:`` on a PC job) before the command; ``ev``
  variable file → ``.`` (sourced) on a UNIX job;
- ``si`` / ``so`` / ``se`` with ``soa`` / ``sea`` → redirections (``<``, ``>``/``>>``,
  ``2>``/``2>>``);
- ``jd`` end judgment: ``nm`` always normal, ``ab`` always abnormal, ``cod`` with ``tho``
  (abnormal above the threshold) → the command's exit status; ``wth`` (warning), ``mdf``
  / ``exf`` (file judgments) and ``jdf`` are reported;
- ``fd`` (time required: end-delay monitoring), ``pr`` (priority) are reported.
"""

from __future__ import annotations

import shlex

from cfnops.jobimport._jp1_lexer import Unit, unquote
from cfnops.jobimport._model import ImportModel, Job

__all__ = ["JOB_KEYS", "UNIT_TYPES", "job_command"]

# Unit types without a job equivalent (Command Reference 5.2.1 "Attribute definition", the
# ``ty`` table): what each is, and what to do instead. An ``r`` prefix is the recovery form.
UNIT_TYPES = {
    "evwj": "JP1 event reception monitoring job: add an EventBridge trigger (cfnops job trigger)",
    "lfwj": "log file monitoring job: watch the log with CloudWatch Logs and trigger the job-net",
    "ntwj": "Windows event-log monitoring job: forward the event log and trigger the job-net",
    "mlwj": "email reception monitoring job: receive the mail with SES and trigger the job-net",
    "mqwj": "message-queue reception monitoring job: use an SQS/EventBridge trigger",
    "mswj": "MSMQ reception monitoring job: use an SQS/EventBridge trigger",
    "mlsj": "email sending job: a [notify] rule or an sns:publish Task",
    "mqsj": "message-queue sending job: an sqs:sendMessage Task",
    "mssj": "MSMQ sending job: an sqs:sendMessage Task",
    "cmsj": "OpenView status report job: a notification Task",
    "pwlj": "local power control job: an ec2:startInstances/stopInstances Task",
    "pwrj": "remote power control job: an ec2:startInstances/stopInstances Task",
    "htpj": "HTTP connection job: an HTTP Task (arn:aws:states:::http:invoke)",
    "qj": "QUEUE job: a Run Command job on the queue's host",
    "fxj": "flexible job: a Run Command job on the destination agents",
    "hln": "hostlink jobnet: runs on another JP1 host; import that jobnet there",
    "mg": "manager job group: import the manager's definitions",
    "mn": "manager jobnet: import the manager's definitions",
    "rr": "root remote jobnet: import it on its remote host",
}

JOB_KEYS = {
    "te", "sc", "prm", "wkp", "env", "ev", "si", "so", "se", "soa", "sea", "etm", "fd",
    "pr", "jd", "wth", "tho", "jdf",
}  # fmt: skip


def _get(unit: Unit, key: str) -> str:
    return unquote(unit.get(key) or "")


def _q(text: str, windows: bool) -> str:
    return "'" + text.replace("'", "''") + "'" if windows else shlex.quote(text)


def job_command(unit: Unit, job: Job, model: ImportModel, where: str) -> None:
    """Set ``job.command`` (and its Run Command parameters) from the unit's settings."""
    win = job.windows
    text, script, params = _get(unit, "te"), _get(unit, "sc"), _get(unit, "prm")
    run = " ".join(x for x in (script, params) if x)
    parts = [p for p in (text, run) if p]
    if text and script:
        model.note(
            "value",
            where,
            f"job {job.path}: te and sc both given: the command text "
            "runs, then the script with its parameters",
        )
    elif text and params:
        parts = [f"{text} {params}"]
    command = "\n".join(parts)
    if not command:
        model.note(
            "value",
            where,
            f"job {job.path}: no te or sc: 'true' is run (it always "
            "succeeds); write the command in the definition",
        )
        command = "true"
    command = _redirect(unit, command, win, job, model, where)
    prefix = []
    for value, _ in unit.all("env"):
        name, _, val = unquote(value).partition("=")
        prefix.append(
            f"$env:{name} = {_q(val, True)}" if win else f"export {name}={_q(val, False)}"
        )
    if _get(unit, "ev"):
        if win:
            model.note(
                "keyword",
                where,
                f"job {job.path}: ev={_get(unit, 'ev')} (a variable file) "
                "not read on a PC job: set the variables with env=",
            )
        else:
            prefix.append(f". {_q(_get(unit, 'ev'), False)}")
    command = "\n".join([*prefix, command])
    job.command = _judge(unit, command, win, job, model, where)
    if _get(unit, "wkp"):
        job.working_dir = _get(unit, "wkp")
    if _get(unit, "etm").isdigit():
        job.timeout_seconds = int(_get(unit, "etm")) * 60
    for key, what in (("fd", "end-delay monitoring (time required, minutes)"), ("pr", "priority")):
        if _get(unit, key):
            model.note(
                "keyword",
                where,
                f"job {job.path}: {key}={_get(unit, key)} ({what}) not "
                "mapped: cfnops watches whole runs (--expected) and has no priorities",
            )


def _redirect(unit: Unit, command: str, win: bool, job: Job, model: ImportModel, where: str) -> str:
    suffix = ""
    if _get(unit, "si"):
        if win:
            model.note(
                "keyword",
                where,
                f"job {job.path}: si={_get(unit, 'si')} (standard input) "
                "not mapped: PowerShell has no < redirection; read the file in the script",
            )
        else:
            suffix += f" < {_q(_get(unit, 'si'), False)}"
    if _get(unit, "so"):
        suffix += (" >> " if _get(unit, "soa") == "add" else " > ") + _q(_get(unit, "so"), win)
    if _get(unit, "se"):
        suffix += (" 2>> " if _get(unit, "sea") == "add" else " 2> ") + _q(_get(unit, "se"), win)
    if not suffix:
        return command
    return (f"& {{ {command} }}" if win else f"{{ {command}\n}}") + suffix


def _judge(unit: Unit, command: str, win: bool, job: Job, model: ImportModel, where: str) -> str:
    jd = unit.get("jd") or "cod"
    tho, wth = unit.get("tho") or "", unit.get("wth") or ""
    if wth:
        model.note(
            "keyword",
            where,
            f"job {job.path}: warning threshold wth={wth} not mapped "
            "(cfnops has no warning end; the job ends normally)",
        )
    if jd == "nm":
        return f"{command}\nexit 0"
    if jd == "ab":
        return f"{command}\nexit 1"
    if jd == "cod" and tho.isdigit() and int(tho) > 0:
        if win:
            limit = int(tho)
            return f"{command}\nif ($LASTEXITCODE -le {limit}) {{ exit 0 }} else {{ exit 1 }}"
        return f'{command}\nrc=$?; [ "$rc" -le {int(tho)} ] || exit "$rc"'
    if jd in ("mdf", "exf") or unit.get("jdf"):
        model.note(
            "keyword",
            where,
            f"job {job.path}: end judgment jd={jd} (by a file) not "
            "mapped: the command's exit status decides; test the file in the command",
        )
    return command

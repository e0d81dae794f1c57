"""Control-M mail actions (XML ``DOMAIL``, JSON ``Action:Mail``) → ``[notify]`` rules.

The job-net sends one notification per run, so the per-job parts of a mail are carried
in the rule's message (the subject, the urgency) or reported (the job's output attached),
never dropped: rules whose message differs stay apart when the job-net's rules are folded.
"""

from __future__ import annotations

from dataclasses import dataclass

from cfnops.jobimport._model import ImportModel, NotifyRule

__all__ = ["Mail", "add_mail", "is_yes"]

# Control-M's urgency codes: R(egular) is the default and is not repeated in the message.
_URGENCY = {"U": "urgent", "V": "very urgent", "URGENT": "urgent", "VERYURGENT": "very urgent"}


@dataclass(frozen=True)
class Mail:
    """One mail action as the source writes it (both formats read into this)."""

    to: str
    cc: str = ""
    subject: str = ""
    message: str = ""
    urgency: str = ""
    attach_output: bool = False


def add_mail(model: ImportModel, job_net: str, when: str, mail: Mail, where: str) -> None:
    """Add the ``[notify]`` rule of ``mail``; report the job output it attaches."""
    dest = ";".join(d for d in (mail.to, mail.cc) if d)
    parts = []
    urgency = _URGENCY.get(mail.urgency.strip().upper().replace(" ", ""), "")
    if urgency:
        parts.append(f"[{urgency}]")
    if mail.subject:
        parts.append(f"subject: {mail.subject}")
    if mail.message:
        parts.append(f"message: {mail.message}" if mail.subject else mail.message)
    model.notify.append(NotifyRule(job_net, when, dest, " | ".join(parts), where))
    if mail.attach_output:
        model.note(
            "notify",
            where,
            "the mail attaches the job's output (sysout): a [notify] notification carries no "
            "attachment; point the message at the run's RunCommand output by hand",
        )


def is_yes(value: object) -> bool:
    """Control-M's booleans: ``Y``/``YES``/``true`` (XML) or ``true`` (JSON)."""
    return value is True or str(value).strip().upper() in ("Y", "YES", "TRUE")

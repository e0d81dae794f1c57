"""CR002: a physical id built from per-invocation values on the Update path.

The log stream name, the request id, the time and random values differ on every
invocation. A PhysicalResourceId that differs on Update is a replacement, and
CloudFormation sends Delete for the old id (AWS docs, "Update request":
https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/crpg-ref-requesttypes-update.html).
A call that only ever answers FAILED is a warning, not an error: a failed update
replaces nothing, but the id it reports is what rollback and Delete work with.
"""

from __future__ import annotations

from cfnops.guard._facts import UPDATE, VOLATILE, VOLATILE_WHY, HandlerFacts
from cfnops.guard._model import Finding, RuleInfo, Severity
from cfnops.guard.rules._context import UPDATE_DOC, RuleContext

RULE = RuleInfo(
    id="CR002",
    name="volatile-physical-id",
    summary="physical id built from per-invocation values on Update",
    severity=Severity.ERROR,
    help_uri=UPDATE_DOC,
    detail=(
        "A physical id built from the request id, the time, random values or the log stream "
        "differs on every Update: CloudFormation treats it as a replacement and sends a "
        "Delete for the old id. Return the incoming event['PhysicalResourceId'] on Update, or"
        " an id derived only from stable properties."
    ),
)


def check(facts: HandlerFacts, ctx: RuleContext) -> list[Finding]:
    findings = []
    for sink in facts.sinks:
        if sink.kind == "crhelper_return" or sink.request_type != UPDATE:
            continue
        volatile = sorted(sink.value.labels & VOLATILE)
        if not volatile:
            continue
        why = " / ".join(VOLATILE_WHY[label] for label in volatile)
        message = (
            f"On Update the PhysicalResourceId sent to CloudFormation is built from {why}, "
            "which is different on every invocation. CloudFormation sees a new id, treats the "
            "update as a replacement and sends Delete for the old id, after every stack "
            "update that touches this custom resource."
        )
        message += ctx.delete_consequence(facts)
        # A FAILED answer replaces nothing (the update fails and rolls back), as for CR001.
        failed_only = sink.status == {"FAILED"}
        if failed_only:
            message += (
                " This call reports FAILED; answer with the incoming id anyway so rollback "
                "and later Delete requests keep the real id."
            )
        fallback = (
            "event.get('PhysicalResourceId') or new_id"
            if ctx.source.language == "python"
            else "event.PhysicalResourceId || newId"
        )
        fix = (
            f"On Update and Delete respond with the incoming {ctx.incoming_id}; generate an id "
            f"only on Create (or when the update really created a new resource), e.g. {fallback}."
        )
        severity = Severity.WARNING if failed_only else Severity.ERROR
        findings.append(ctx.finding(RULE, sink.line, message, fix, severity))
    return findings

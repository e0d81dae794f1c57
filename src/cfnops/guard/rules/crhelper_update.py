"""CR003: crhelper ``@helper.update`` handlers that return a new id.

crhelper uses the value an update handler returns as the PhysicalResourceId and
keeps the incoming id when it returns None
(https://github.com/aws-cloudformation/custom-resource-helper). A different id
on Update is a replacement: CloudFormation sends Delete for the old id (AWS docs,
"Update request": .../crpg-ref-requesttypes-update.html).
"""

from __future__ import annotations

from cfnops.guard._facts import FROM_ID, OTHER, UPDATE, VOLATILE, VOLATILE_WHY, HandlerFacts
from cfnops.guard._model import Finding, RuleInfo, Severity
from cfnops.guard.rules._context import CRHELPER_DOC, RuleContext

RULE = RuleInfo(
    id="CR003",
    name="crhelper-update-new-id",
    summary="crhelper update handler returns a new physical id",
    severity=Severity.ERROR,
    help_uri=CRHELPER_DOC,
    detail=(
        "crhelper sends what an @helper.update function returns as the new physical id; a "
        "different value makes the update a replacement followed by a Delete of the old id. "
        "Return None (crhelper keeps the incoming id) or event['PhysicalResourceId']."
    ),
)

_FIX = (
    "Return None from the @helper.update function (crhelper then keeps the incoming id), or "
    "return event['PhysicalResourceId']; return a new id only when the update really created "
    "a new resource that replaces the old one."
)


def check(facts: HandlerFacts, ctx: RuleContext) -> list[Finding]:
    findings = []
    for sink in facts.sinks:
        if sink.kind != "crhelper_return" or sink.request_type != UPDATE:
            continue
        volatile = sorted(sink.value.labels & VOLATILE)
        if volatile:
            why = " / ".join(VOLATILE_WHY[label] for label in volatile)
            message = (
                f"The crhelper update handler returns an id built from {why}: crhelper sends "
                "it as the PhysicalResourceId, CloudFormation sees a new id on every update, "
                "treats it as a replacement and sends Delete for the old id."
            ) + ctx.delete_consequence(facts)
            findings.append(ctx.finding(RULE, sink.line, message, _FIX, Severity.ERROR))
        elif sink.value.labels & {OTHER, FROM_ID}:
            message = (
                "The crhelper update handler returns a value other than the incoming "
                "PhysicalResourceId: crhelper sends it as the new id, and whenever it differs "
                "CloudFormation treats the update as a replacement and sends Delete for the "
                "old id. Make sure that only happens when the resource really was replaced."
            )
            findings.append(ctx.finding(RULE, sink.line, message, _FIX, Severity.WARNING))
    return findings

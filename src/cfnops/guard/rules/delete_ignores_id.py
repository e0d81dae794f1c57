"""CR004: Delete handling that acts without looking at the physical id.

CloudFormation sends Delete not only when the stack or the resource goes away,
but also for the *old* id after an update returned a new one, and when rolling
back a failed Create (AWS docs, "Delete request":
https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/crpg-ref-requesttypes-delete.html).
A handler that deletes what its properties name, without checking the id it is
asked to delete, can remove the resource that is still in use, or one the stack
never created.
"""

from __future__ import annotations

from cfnops.guard._facts import HandlerFacts
from cfnops.guard._model import Finding, RuleInfo, Severity
from cfnops.guard.rules._context import DELETE_DOC, RuleContext

RULE = RuleInfo(
    id="CR004",
    name="delete-ignores-physical-id",
    summary="Delete handler acts without looking at the physical id",
    severity=Severity.WARNING,
    help_uri=DELETE_DOC,
    detail=(
        "After a replacement CloudFormation sends Delete for the old physical id; a Delete "
        "handler that deletes what its properties name, without reading "
        "event['PhysicalResourceId'], can remove the resource the update just kept. Delete "
        "exactly the resource the incoming physical id names."
    ),
)


def check(facts: HandlerFacts, ctx: RuleContext) -> list[Finding]:
    if not facts.delete_actions or facts.delete_id_reads:
        return []
    first = facts.delete_actions[0]
    calls = ", ".join(dict.fromkeys(a.what for a in facts.delete_actions))
    message = (
        f"On Delete the handler calls {calls} without reading {ctx.incoming_id}. Delete "
        "requests also arrive for the old id after an update returned a new one, and when a "
        "failed Create is rolled back; acting on the resource properties alone can delete the "
        "resource still in use, or one this stack never created."
    )
    fix = (
        f"Decide what to delete from {ctx.incoming_id} (the id your Create returned), and do "
        "nothing when it is not an id you issued (for example the log stream name left by a "
        "failed Create)."
    )
    return [ctx.finding(RULE, first.line, message, fix, RULE.severity)]

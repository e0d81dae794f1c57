"""CR001: cfn-response ``send`` without a physical id on the Update path.

cfn-response's ``physicalResourceId`` argument is optional and defaults to the
Lambda function's log stream name (AWS docs, "cfn-response module":
https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cfn-lambda-function-code-cfnresponsemodule.html).
The log stream changes when the function is updated or a new execution
environment starts, and a different PhysicalResourceId on Update is a
replacement: CloudFormation sends Delete for the old id (AWS docs, "Update
request": .../crpg-ref-requesttypes-update.html).
"""

from __future__ import annotations

from cfnops.guard._facts import NONE, UPDATE, HandlerFacts
from cfnops.guard._model import Finding, RuleInfo, Severity
from cfnops.guard.rules._context import CFN_RESPONSE_DOC, RuleContext

RULE = RuleInfo(
    id="CR001",
    name="cfn-response-default-id",
    summary="cfn-response send without an explicit physical id on Update",
    severity=Severity.ERROR,
    help_uri=CFN_RESPONSE_DOC,
    detail=(
        "cfn-response sends the Lambda log stream name as the physical id when none is given;"
        " the stream changes with every code or configuration update, so the next Update "
        "reports a new id and CloudFormation deletes the old resource. Pass the incoming "
        "event['PhysicalResourceId'] (or a stable name) as the physical id on Update."
    ),
)


def check(facts: HandlerFacts, ctx: RuleContext) -> list[Finding]:
    findings = []
    for sink in facts.sinks:
        if sink.kind != "cfn_response" or sink.request_type != UPDATE:
            continue
        if not sink.value.has(NONE):
            continue
        failed_only = sink.status == {"FAILED"}
        message = (
            f"{ctx.send_call} is called on the Update path without a physicalResourceId, so "
            "cfn-response sends the Lambda log stream name. The log stream name changes when "
            f"function {ctx.function} is updated (or runs in a new execution environment); "
            "CloudFormation then sees a new PhysicalResourceId, treats the update as a "
            "replacement and sends Delete for the old id."
        )
        message += ctx.delete_consequence(facts)
        if failed_only:
            message += (
                " This call reports FAILED; pass the id anyway so rollback and later Delete "
                "requests keep the real id."
            )
        fix = (
            f"Pass the incoming id as the fifth argument on Update and Delete, e.g. "
            f"send(event, context, status, data, {ctx.incoming_id}); on Create pass a stable "
            "id of what you created."
        )
        severity = Severity.WARNING if failed_only else Severity.ERROR
        findings.append(ctx.finding(RULE, sink.line, message, fix, severity))
    return findings

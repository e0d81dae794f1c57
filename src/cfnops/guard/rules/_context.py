"""What a rule gets besides the handler facts: whose code it is and where it lives."""

from __future__ import annotations

from dataclasses import dataclass

from cfnops.guard._facts import HandlerFacts
from cfnops.guard._model import Finding, RuleInfo, Severity
from cfnops.guard._template import CodeSource

CFN_RESPONSE_DOC = (
    "https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/"
    "cfn-lambda-function-code-cfnresponsemodule.html"
)
UPDATE_DOC = "https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/crpg-ref-requesttypes-update.html"
DELETE_DOC = "https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/crpg-ref-requesttypes-delete.html"
CRHELPER_DOC = "https://github.com/aws-cloudformation/custom-resource-helper"


@dataclass(frozen=True)
class RuleContext:
    resource: str  # the custom resource's logical id
    function: str  # the Lambda function's logical id
    source: CodeSource

    def finding(
        self, rule: RuleInfo, code_line: int, message: str, fix: str, severity: Severity
    ) -> Finding:
        return Finding(
            resource=self.resource,
            file=self.source.file,
            line=self.source.file_line(code_line),
            rule=rule.id,
            severity=severity,
            message=message,
            fix=fix,
        )

    @staticmethod
    def delete_consequence(facts: HandlerFacts) -> str:
        """What the Delete for the old id does, as far as the analysis can tell."""
        if facts.delete_actions:
            calls = ", ".join(dict.fromkeys(a.what for a in facts.delete_actions))
            return (
                f" This handler's Delete path calls {calls}: the live resource is removed, "
                "and no new Create follows."
            )
        return (
            " No changing call was found on this handler's Delete path: if that is right, "
            "that Delete is a no-op today, but Delete logic added later will remove the live "
            "resource."
        )

    @property
    def send_call(self) -> str:
        if self.source.language == "python":
            return "cfnresponse.send(event, context, status, data)"
        return "response.send(event, context, status, data)"

    @property
    def incoming_id(self) -> str:
        if self.source.language == "python":
            return "event['PhysicalResourceId']"
        return "event.PhysicalResourceId"

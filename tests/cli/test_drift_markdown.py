"""``cfnops drift --output markdown``: the report renderer (pure)."""

from __future__ import annotations

from cfnops.cli._drift_markdown import report_markdown
from cfnops.heal import PropertyDrift, ResourceDrift, StackDriftReport

STACK_ID = (
    "arn:aws:cloudformation:eu-west-1:123456789012:stack/web/0a1b2c3d-aaaa-bbbb-cccc-1234567890ab"
)


def test_markdown_lists_not_checked_and_nested() -> None:
    child = StackDriftReport(
        "web-Child",
        STACK_ID,
        "DRIFTED",
        resources=(
            ResourceDrift(
                "P",
                "AWS::SSM::Parameter",
                "MODIFIED",
                properties=(PropertyDrift("/Value", "a|b", None, "NOT_EQUAL"),),
            ),
        ),
    )
    report = StackDriftReport(
        "web",
        STACK_ID,
        "IN_SYNC",
        resources=(
            ResourceDrift("Fn", "AWS::Lambda::Function", "NOT_CHECKED", reason="unsupported"),
        ),
        nested=(child,),
    )
    md = report_markdown([report])
    assert "## Stack `web`: DRIFTED" in md
    assert "| Fn | AWS::Lambda::Function | NOT_CHECKED: unsupported |" in md
    assert "## Nested stack `web-Child`: DRIFTED" in md
    assert "| P | AWS::SSM::Parameter | MODIFIED | `/Value` | a\\|b | — | NOT_EQUAL |" in md

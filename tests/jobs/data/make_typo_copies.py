"""Regenerate the copies of the web-system job-nets that carry the trailing-dot typo.

Each copy reads the target group from a parent execution's input in a JSONPath Pass state
placed before ``Init``: ``$.Execution.Input.Input.TargetAlb.TargetGroup.`` (trailing dot).
The other states keep JSONata by declaring it per state (the top level is JSONPath).

    python tests/jobs/data/make_typo_copies.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
EXAMPLES = HERE.parents[2] / "examples" / "jobnets"
TYPO = "$.Execution.Input.Input.TargetAlb.TargetGroup."


def typo_copy(definition: dict[str, Any], path: str = TYPO) -> dict[str, Any]:
    copy = {k: v for k, v in definition.items() if k != "QueryLanguage"}
    states = {name: {**state, "QueryLanguage": "JSONata"} for name, state in copy["States"].items()}
    read = {
        "Type": "Pass",
        "Comment": "the parent execution passes the ALB's target group",
        "Parameters": {"targetGroupArn.$": path},
        "ResultPath": "$.parent",
        "Next": copy["StartAt"],
    }
    copy["States"] = {"ReadTargetGroup": read, **states}
    copy["StartAt"] = "ReadTargetGroup"
    return copy


def main() -> None:
    for name in ("webapp-stop", "webapp-start"):
        definition = json.loads((EXAMPLES / f"{name}.asl.json").read_text())
        out = HERE / f"{name}-typo.asl.json"
        out.write_text(json.dumps(typo_copy(definition), indent=2) + "\n")
        print(out)


if __name__ == "__main__":
    main()

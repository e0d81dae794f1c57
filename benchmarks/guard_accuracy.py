"""Recall and precision of ``cfnops guard`` on labelled custom-resource handlers.

Each entry of ``benchmarks/data/guard_accuracy/handlers.yaml`` (provenance in the
folder's README) is written to a temporary folder with a small template (the function
plus one custom resource served by it) and checked with ``cfnops.guard.check_template``.
A handler counts as flagged when the guard reports an error-severity finding of an
unstable-id rule (CR001-CR003). Prints recall (unstable handlers flagged), precision
(flagged handlers that are unstable), the misses and false alarms, and the handlers the
guard could not analyse. Nothing is asserted.

    python benchmarks/guard_accuracy.py [-v]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

DATA = Path(__file__).resolve().parent / "data" / "guard_accuracy" / "handlers.yaml"
TEMPLATE = """\
Parameters:
  Module: {{Type: String, Default: index}}
Resources:
  Fn:
    Type: AWS::Lambda::Function
    Properties:
      Runtime: {runtime}
      Handler: {handler}
      Role: arn:aws:iam::123456789012:role/custom-resource
      Code: {{S3Bucket: artifacts, S3Key: fn.zip}}
  Resource:
    Type: Custom::Resource
    Properties:
      ServiceToken: !GetAtt Fn.Arn
      Name: example
"""
UNSTABLE_RULES = {"CR001", "CR002", "CR003"}


def _check(entry: dict[str, Any], folder: Path) -> tuple[bool, list[str], int]:
    from cfnops.guard import Severity, check_template

    code = folder / "code"
    code.mkdir()
    for name, text in entry["files"].items():
        (code / name).write_text(text, encoding="utf-8")
    template = folder / "template.yaml"
    template.write_text(
        TEMPLATE.format(
            runtime=entry.get("runtime", "python3.12"),
            handler=entry.get("template_handler") or entry.get("handler", "index.handler"),
        ),
        encoding="utf-8",
    )
    report = check_template(template, code)
    errors = [
        f"{f.rule}@{f.line}"
        for f in report.findings
        if f.severity is Severity.ERROR and f.rule in UNSTABLE_RULES
    ]
    return bool(errors), errors, len(getattr(report, "not_checked", ()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="cfnops guard recall and precision")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    entries = yaml.safe_load(DATA.read_text(encoding="utf-8"))
    tp = fp = fn = tn = unchecked = 0
    for entry in entries:
        with tempfile.TemporaryDirectory() as folder:
            flagged, errors, not_checked = _check(entry, Path(folder))
        unchecked += not_checked
        unstable = entry["label"] == "unstable"
        tp += flagged and unstable
        fp += flagged and not unstable
        fn += (not flagged) and unstable
        tn += (not flagged) and not unstable
        if args.verbose or flagged != unstable:
            verdict = "ok  " if flagged == unstable else "MISS" if unstable else "FALSE ALARM"
            print(f"  {verdict} {entry['id']} ({entry['label']}): {', '.join(errors) or '-'}")
    languages = {("nodejs" if "node" in e.get("runtime", "") else "python") for e in entries}
    print(
        f"{len(entries)} handlers ({tp + fn} unstable, {tn + fp} stable; "
        f"{', '.join(sorted(languages))}), {unchecked} not checked"
    )
    recall = tp / (tp + fn) if tp + fn else 1.0
    precision = tp / (tp + fp) if tp + fp else 1.0
    print(f"recall {100 * recall:.1f} % ({tp}/{tp + fn})")
    print(f"precision {100 * precision:.1f} % ({tp}/{tp + fp}), false positives {fp}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

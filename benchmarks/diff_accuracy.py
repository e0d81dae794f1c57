"""How often is ``cfnops diff`` right about real template edits, next to cdk's template diff?

Reads the labelled edit pairs of ``benchmarks/data/diff_accuracy/cases.yaml`` (OLD: a
public template of ``../shared/corpus/cfn-templates``; NEW: OLD with the listed edits;
the expected outcome per resource labelled from CloudFormation's documentation — see the
file's header for provenance and labelling rules), runs ``cfnops.diff.diff_templates`` and,
when Node.js and npm are present, ``fullDiff`` of ``@aws-cdk/cloudformation-diff`` on the
same parsed templates, and prints for each tool the share of resources whose verdict
matches the label:

* **all resources**: every resource of OLD or NEW (unchanged ones included);
* **touched resources**: those the label or either tool says change.

A tool's verdict for a resource is the impact it reports (NO_CHANGE when it reports
none). cfnops also counts the resources it lists under ``value_changes`` (updated
because a resource they refer to is replaced) as WILL_UPDATE. Nothing is asserted.

    python benchmarks/diff_accuracy.py [--corpus DIR] [--cdk-dir DIR] [--no-cdk] [-v]
"""

from __future__ import annotations

import argparse
import copy
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml
from _cdk import install_cdk

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "benchmarks" / "data" / "diff_accuracy" / "cases.yaml"
CORPUS = ROOT.parent / "shared" / "corpus" / "cfn-templates"
NODE_SCRIPT = """
const fs = require('fs');
const { fullDiff } = require('@aws-cdk/cloudformation-diff');
const pairs = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const out = {};
for (const pair of pairs) {
  const verdicts = {};
  try {
    const diff = fullDiff(pair.old, pair.new);
    diff.resources.forEachDifference((id, change) => { verdicts[id] = change.changeImpact; });
  } catch (err) {
    verdicts['!error'] = String(err);
  }
  out[pair.id] = verdicts;
}
process.stdout.write(JSON.stringify(out));
"""


def _apply(template: dict[str, Any], edits: list[dict[str, Any]]) -> dict[str, Any]:
    new = copy.deepcopy(template)
    for edit in edits:
        pointer = edit.get("set") or edit.get("delete")
        parts = [p for p in str(pointer).split("/") if p]
        node: Any = new
        for part in parts[:-1]:
            node = node[int(part)] if isinstance(node, list) else node[part]
        last = parts[-1]
        key: Any = int(last) if isinstance(node, list) else last
        if "set" in edit:
            node[key] = copy.deepcopy(edit["value"])
        else:
            del node[key]
    return new


def _cfnops(old: dict[str, Any], new: dict[str, Any]) -> dict[str, str]:
    from cfnops.diff import diff_templates

    result = diff_templates(old, new)
    verdicts = {r.logical_id: r.impact.value for r in result.resources}
    for change in result.value_changes:
        if change.kind == "resource":
            verdicts.setdefault(change.name, "WILL_UPDATE")
    return verdicts


def _install_cdk(folder: Path | None) -> Path | None:
    target = folder or Path(tempfile.mkdtemp(prefix="cfnops-cdk-diff-"))
    found = install_cdk(target)
    if found is None:
        return None
    (target / "accuracy.js").write_text(NODE_SCRIPT, encoding="utf-8")
    print(f"peer: {found}")
    return target


def _cdk(folder: Path, pairs: list[dict[str, Any]]) -> dict[str, dict[str, str]]:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(pairs, handle)
    proc = subprocess.run(
        ["node", str(folder / "accuracy.js"), handle.name],
        capture_output=True,
        text=True,
        cwd=folder,
        check=True,
    )
    Path(handle.name).unlink()
    result: dict[str, dict[str, str]] = json.loads(proc.stdout)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="cfnops diff accuracy vs cdk on real edits")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--cdk-dir", type=Path, default=None, help="reuse an npm folder")
    parser.add_argument("--no-cdk", action="store_true")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every mismatch")
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"corpus not found: {args.corpus} (pass --corpus)")
        return 2
    from cfnops.diff import load_template

    cases = yaml.safe_load(CASES.read_text(encoding="utf-8"))
    pairs = []
    for case in cases:
        old = dict(load_template(args.corpus / case["template"]))
        pairs.append({"id": case["id"], "old": old, "new": _apply(old, case["edits"])})
    cdk_dir = None if args.no_cdk else _install_cdk(args.cdk_dir)
    cdk = _cdk(cdk_dir, pairs) if cdk_dir is not None else None
    tools = ["cfnops"] + (["cdk"] if cdk is not None else [])
    hits = {t: [0, 0] for t in tools}  # all resources: matched, total
    touched = {t: [0, 0] for t in tools}
    for case, pair in zip(cases, pairs, strict=True):
        expected: dict[str, str] = case.get("expected") or {}
        verdicts = {"cfnops": _cfnops(pair["old"], pair["new"])}
        if cdk is not None:
            verdicts["cdk"] = cdk[case["id"]]
        ids = set(pair["old"].get("Resources", {})) | set(pair["new"].get("Resources", {}))
        changed = set(expected) | {r for v in verdicts.values() for r in v if r in ids}
        for tool in tools:
            for rid in sorted(ids):
                want = expected.get(rid, "NO_CHANGE")
                got = verdicts[tool].get(rid, "NO_CHANGE")
                ok = want == got
                hits[tool][0] += ok
                hits[tool][1] += 1
                if rid in changed:
                    touched[tool][0] += ok
                    touched[tool][1] += 1
                if not ok and args.verbose:
                    print(f"  {tool:6} {case['id']}: {rid} expected {want}, got {got}")
    print(f"{len(cases)} edit pairs from {len({c['template'] for c in cases})} public templates")
    print(f"{'tool':8} {'all resources':>22} {'touched resources':>22}")
    for tool in tools:
        a, t = hits[tool], touched[tool]
        print(
            f"{tool:8} {a[0]:>5}/{a[1]:<5} {100 * a[0] / a[1]:6.1f} % "
            f"{t[0]:>5}/{t[1]:<5} {100 * t[0] / t[1]:6.1f} %"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

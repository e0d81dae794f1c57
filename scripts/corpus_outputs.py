"""Record ``cfnops diff`` and ``cfnops guard`` outputs on a template corpus, to compare.

For every template under CORPUS (default ``../shared/corpus/cfn-templates``) this writes,
into OUT, the exit code, stdout and stderr of:

- ``diff T T`` (a template against itself),
- ``diff T E`` and ``diff E T`` where E is a small deterministic edit of T,
- ``guard T``,

each as text and as ``--output json``. Run it on two commits and compare the two output
folders byte for byte (``diff -r OUT1 OUT2``); a change that should not alter what the
commands say must leave no difference.

The edited templates are written once into EDITS (default ``OUT/../corpus-edits``) and
reused when they exist, so both runs compare against the same edits whatever loader is in
use. An edit changes the first property of the first resource (by logical id) that has
one, removes the last resource and adds an SNS topic, and is written as JSON.

Commands run in this process (``cfnops.cli.main.run``) so the ~2,400 invocations take
minutes, not an hour; ``--subprocess`` runs each as its own ``cfnops`` process instead.

    python scripts/corpus_outputs.py /tmp/speed-golden/base
    python scripts/corpus_outputs.py /tmp/speed-golden/after
    diff -r /tmp/speed-golden/base /tmp/speed-golden/after
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

_DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "cfn-templates"
_SUFFIXES = (".yaml", ".yml", ".json", ".template")


def _edit(template: dict[str, Any]) -> dict[str, Any]:
    edited = json.loads(json.dumps(template, default=str))
    resources = edited.get("Resources")
    if not isinstance(resources, dict):
        resources = edited["Resources"] = {}
    for logical_id in sorted(resources):
        props = (
            resources[logical_id].get("Properties")
            if isinstance(resources[logical_id], dict)
            else None
        )
        if isinstance(props, dict) and props:
            first = sorted(props)[0]
            props[first] = (
                "cfnops-edit" if not isinstance(props[first], str) else props[first] + "-edit"
            )
            break
    if len(resources) > 1:
        del resources[sorted(resources)[-1]]
    resources["CfnopsAddedTopic"] = {"Type": "AWS::SNS::Topic"}
    return edited


def _make_edit(template: Path, target: Path) -> bool:
    from cfnops.diff import load_template

    try:
        body = load_template(template)
    except Exception:  # an unloadable template has no edit; its error is recorded instead
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(_edit(body), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return True


def _run_inprocess(argv: list[str]) -> tuple[int, str, str]:
    from cfnops.cli.main import run

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = run(argv)
        except SystemExit as exc:  # pragma: no cover - run() returns codes
            code = int(exc.code or 0)
        except Exception as exc:
            code, _ = -1, err.write(f"crashed: {type(exc).__name__}: {exc}\n")
    return code, out.getvalue(), err.getvalue()


def _run_subprocess(argv: list[str]) -> tuple[int, str, str]:
    exe = Path(sys.executable).with_name("cfnops")
    proc = subprocess.run([str(exe), *argv], capture_output=True, text=True, check=False)
    return proc.returncode, proc.stdout, proc.stderr


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--corpus", type=Path, default=_DEFAULT_CORPUS)
    parser.add_argument("--edits", type=Path, default=None)
    parser.add_argument("--subprocess", action="store_true")
    parser.add_argument("--limit", type=int, default=0, help="only the first N templates")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        print(f"corpus not found: {args.corpus}", file=sys.stderr)
        return 2
    os.environ.setdefault("COLUMNS", "100")
    os.environ.setdefault("NO_COLOR", "1")
    edits: Path = args.edits or args.out.parent / "corpus-edits"
    runner = _run_subprocess if args.subprocess else _run_inprocess
    templates = sorted(p for p in args.corpus.rglob("*") if p.suffix in _SUFFIXES)
    if args.limit:
        templates = templates[: args.limit]
    for template in templates:
        rel = template.relative_to(args.corpus)
        edit = edits / rel.with_suffix(rel.suffix + ".edit.json")
        has_edit = edit.exists() or _make_edit(template, edit)
        cases: dict[str, list[str]] = {"guard": ["guard", str(template)]}
        cases["diff-self"] = ["diff", str(template), str(template)]
        if has_edit:
            cases["diff-edit"] = ["diff", str(template), str(edit)]
            cases["diff-back"] = ["diff", str(edit), str(template)]
        target = args.out / rel
        target.mkdir(parents=True, exist_ok=True)
        for name, argv in cases.items():
            for fmt in ("text", "json"):
                code, stdout, stderr = runner([*argv, "--output", fmt])
                # paths in messages name the corpus/edits folders: keep them relative
                stdout = stdout.replace(str(args.corpus), "CORPUS").replace(str(edits), "EDITS")
                stderr = stderr.replace(str(args.corpus), "CORPUS").replace(str(edits), "EDITS")
                (target / f"{name}.{fmt}.out").write_text(
                    f"exit {code}\n--- stdout\n{stdout}--- stderr\n{stderr}", encoding="utf-8"
                )
    print(f"{len(templates)} templates -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

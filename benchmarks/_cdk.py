"""The cdk peer of the diff benchmarks: ``@aws-cdk/cloudformation-diff`` installed by npm.

Installed once into a folder outside the repository (npm registry), then reused.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

CDK_PACKAGE = "@aws-cdk/cloudformation-diff"


def install_cdk(target: Path) -> str | None:
    """Install the package into ``target`` unless present; a line naming its version and
    node's, or None (with the reason printed) when node/npm are missing or npm fails."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        print("node/npm not found: no cdk peer figures")
        return None
    if not (target / "node_modules" / CDK_PACKAGE).is_dir():
        print(f"installing {CDK_PACKAGE} into {target} (npm registry) ...", flush=True)
        target.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run(
            [
                npm,
                "install",
                "--prefix",
                str(target),
                "--no-audit",
                "--no-fund",
                "--silent",
                CDK_PACKAGE,
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            print(f"npm install failed: no cdk peer figures\n{proc.stderr[-800:]}")
            return None
    package = json.loads((target / "node_modules" / CDK_PACKAGE / "package.json").read_text())
    node_version = subprocess.run(
        [node, "--version"], capture_output=True, text=True, check=False
    ).stdout.strip()
    return f"{CDK_PACKAGE} {package['version']}, node {node_version}"

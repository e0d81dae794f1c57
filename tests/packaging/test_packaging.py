"""Packaging: ``python -m build`` makes an sdist and a wheel that ``twine check`` accepts and
that install and run ``cfnops diff`` in a clean virtualenv (the Lambda package:
test_lambda_package.py)."""

from __future__ import annotations

import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def _run(*argv: str | Path, cwd: Path = ROOT, timeout: float = 900) -> str:
    done = subprocess.run(
        [str(a) for a in argv], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, f"{argv}: {done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def test_sdist_and_wheel_build_check_install_and_run(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    _run(sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", dist, ROOT)
    [wheel] = dist.glob("cfnops-*.whl")
    [sdist] = dist.glob("cfnops-*.tar.gz")
    assert "PASSED" in _run(sys.executable, "-m", "twine", "check", "--strict", wheel, sdist)
    names = zipfile.ZipFile(wheel).namelist()
    assert "cfnops/schemas/data/" in "".join(names) and "cfnops/py.typed" in names
    assert not [n for n in names if n.startswith(("tests/", "examples/", "benchmarks/"))]
    metadata = (
        zipfile.ZipFile(wheel)
        .read(next(n for n in names if n.endswith(".dist-info/METADATA")))
        .decode()
    )
    for field in (
        "License-Expression: Apache-2.0",
        "Classifier: Typing :: Typed",
        "Description-Content-Type: text/markdown",
        "Provides-Extra: sam",
        "Project-URL: Homepage, https://github.com/cfnops/cfnops",
        "Project-URL: Documentation, https://github.com/cfnops/cfnops/tree/main/docs",
        "Project-URL: Source, https://github.com/cfnops/cfnops",
        "Project-URL: Issues, https://github.com/cfnops/cfnops/issues",
        "Project-URL: Changelog, https://github.com/cfnops/cfnops/releases",
    ):
        assert field in metadata, field

    env_dir = tmp_path / "clean"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    _run(python, "-m", "pip", "install", "--quiet", wheel)
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old.write_text("Resources:\n  B:\n    Type: AWS::S3::Bucket\n    Properties: {BucketName: a}\n")
    new.write_text(old.read_text().replace("BucketName: a", "BucketName: b"))
    out = _run(env_dir / "bin" / "cfnops", "diff", old, new, "--output", "json")
    assert '"WILL_REPLACE"' in out
    # the clean install has no test or sandbox dependency
    missing = subprocess.run([python, "-c", "import moto"], capture_output=True, check=False)
    assert missing.returncode != 0

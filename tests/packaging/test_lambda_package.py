"""The Lambda package of deploy/: built for the runtime the templates declare, it holds only
what the handlers import and both handlers import from it with nothing else on the path."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow
ELF_MACHINE = 0x3E  # x86_64: deploy/*.yaml leave Architectures at Lambda's default


def _declared_runtime() -> str:
    found = {
        m
        for t in (ROOT / "deploy").glob("*.yaml")
        for m in re.findall(r"Runtime:\s*(python3\.\d+)", t.read_text(encoding="utf-8"))
    }
    assert len(found) == 1, found
    return found.pop()


def _interpreter(version: str) -> str | None:
    """A CPython of exactly ``version`` on this machine, if there is one."""
    candidates = [shutil.which(f"python{version}"), f"/usr/bin/python{version}"]
    candidates += sorted(
        str(p) for p in Path.home().glob(f".pyenv/versions/{version}*/bin/python3")
    )
    for candidate in (c for c in candidates if c and Path(c).is_file()):
        probe = subprocess.run(
            [candidate, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            check=False,
        )
        if probe.returncode == 0 and probe.stdout.strip() == version:
            return candidate
    return None


def _build(tmp_path: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    script = ROOT / "scripts" / "build_lambda.py"
    return subprocess.run(
        [sys.executable, str(script), "--out", str(tmp_path / "lambda.zip"), *flags],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


def _abi_problems(package: Path, abi: str) -> tuple[int, list[str]]:
    """(compiled modules checked, those whose ABI tag or ELF machine is not the runtime's)."""
    checked, problems = 0, []
    with zipfile.ZipFile(package) as zf:
        for name in zf.namelist():
            if not re.search(r"\.so(\.\d+)*$", name):
                continue
            checked += 1
            head = zf.open(name).read(20)
            if head[:4] != b"\x7fELF" or int.from_bytes(head[18:20], "little") != ELF_MACHINE:
                problems.append(f"{name}: not x86_64 ELF")
            tag = re.search(r"\.cpython-(\d+)-", name)
            if tag and f"cp{tag.group(1)}" != abi:
                problems.append(name)
    return checked, problems


def test_package_for_the_declared_runtime_imports_both_handlers_alone(tmp_path: Path) -> None:
    runtime = _declared_runtime()
    version = runtime.removeprefix("python")
    built = _build(tmp_path)
    assert built.returncode == 0, built.stderr[-3000:]
    assert f"{runtime} x86_64" in built.stdout and "MB unzipped" in built.stdout
    package = tmp_path / "lambda.zip"
    names = zipfile.ZipFile(package).namelist()
    tops = {n.split("/")[0] for n in names}
    for absent in ("starlette", "uvicorn", "sse_starlette", "moto", "flask", "werkzeug", "cfnlint"):
        assert absent not in tops, absent
    assert {"greenlet", "sqlalchemy", "psycopg_binary", "msgspec"} <= tops  # DBOS's extras
    cfnops = {n.split("/")[1] for n in names if n.startswith("cfnops/") and n.count("/") > 1}
    assert {"lambda_handlers", "heal", "ami", "durable"} <= cfnops
    assert not cfnops & {"console", "sandbox", "cli", "demo"}
    # every compiled module carries the runtime's ABI tag (the check for a machine without it)
    abi = "cp" + version.replace(".", "")
    checked, problems = _abi_problems(package, abi)
    assert checked > 5 and problems == []
    assert any(re.match(rf"msgspec/_core\.cpython-{abi[2:]}-x86_64", n) for n in names)

    python = _interpreter(version)
    if python is None:
        return  # no CPython {version} here: the ABI tags above are what can be checked
    unpacked = tmp_path / "task"
    zipfile.ZipFile(package).extractall(unpacked)
    # as the Lambda runtime would: the package alone (-I: no user or env paths, -S: no site)
    code = (
        f"import sys; sys.path.insert(0, {str(unpacked)!r});"
        "import cfnops.lambda_handlers.heal as h, cfnops.lambda_handlers.ami as a;"
        "import sqlalchemy.ext.asyncio, greenlet;"
        "print(h.__file__); print(a.__file__); print(sys.version_info[:2])"
    )
    done = subprocess.run(
        [python, "-I", "-S", "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    heal, ami, info = done.stdout.splitlines()
    assert heal.startswith(str(unpacked)) and ami.startswith(str(unpacked))
    assert info == str(tuple(int(p) for p in version.split(".")))


def test_a_runtime_the_templates_do_not_declare_is_refused(tmp_path: Path) -> None:
    runtime = _declared_runtime()
    other = "python3.11" if runtime != "python3.11" else "python3.12"
    built = _build(tmp_path, "--runtime", other)
    assert built.returncode == 2
    assert f"--runtime {other}: deploy/*.yaml declare {runtime}" in built.stderr
    assert not (tmp_path / "lambda.zip").exists()

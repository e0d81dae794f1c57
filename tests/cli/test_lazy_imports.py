"""Commands that need no engine and no AWS start without importing them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from cfnops.cli.main import MODULES

if TYPE_CHECKING:
    from cfnops.sandbox import Sandbox

HEAVY = ("dbos", "sqlalchemy", "boto3", "aws_durable_execution_sdk_python", "cfnlint", "esprima")
TEMPLATE = "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Properties: {QueueName: !Ref N}\n"
JOB = {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}


def _imported(argv: list[str], watched: tuple[str, ...] = HEAVY) -> list[str]:
    code = (
        "import sys\n"
        "from cfnops.cli.main import run\n"
        f"code = run({argv!r})\n"
        f"print(','.join(m for m in {watched!r} if m in sys.modules))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    return [m for m in last.split(",") if m in watched]


@pytest.mark.parametrize(
    "command",
    ["diff", "guard", "job validate", "job check", "ami check"],
)
def test_no_heavy_imports(command: str, tmp_path: Path) -> None:
    template = tmp_path / "t.yaml"
    template.write_text(TEMPLATE, encoding="utf-8")
    job = tmp_path / "j.asl.json"
    job.write_text(json.dumps(JOB), encoding="utf-8")
    argv = {
        "diff": ["diff", str(template), str(template)],
        "guard": ["guard", str(template)],
        "job validate": ["job", "validate", str(job)],
        "job check": ["job", "check", str(job)],
        "ami check": ["ami", "check", str(template)],
    }[command]
    assert _imported(argv) == []


def test_root_help_imports_no_command_module() -> None:
    assert _imported(["--help"], (*HEAVY, *MODULES)) == []


def test_a_command_help_imports_only_that_command() -> None:
    assert _imported(["diff", "--help"], (*HEAVY, *MODULES)) == ["cfnops.cli.diff"]


def test_an_offline_job_run_imports_no_aws_sdk_nor_postgresql_driver(tmp_path: Path) -> None:
    """A Pass-only job-net, no AWS configuration anywhere, SQLite: no boto3/botocore,
    no Durable Execution SDK, no heal/ami, no psycopg, no jsonata (docs/cli.md)."""
    import os

    job = tmp_path / "j.asl.json"
    job.write_text(json.dumps(JOB), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(HOME=str(tmp_path), CFNOPS_DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite'}")
    watched = (
        "boto3",
        "botocore",
        "aws_durable_execution_sdk_python",
        "cfnops.heal",
        "cfnops.ami._stack_workflow",
        "psycopg",
        "jsonata",
    )
    code = (
        "import sys\n"
        "from cfnops.cli.main import run\n"
        f"code = run(['--output', 'json', 'job', 'run', {str(job)!r}])\n"
        f"print(code, [m for m in {watched!r} if m in sys.modules])\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert '"status": "SUCCEEDED"' in proc.stdout
    assert proc.stdout.strip().splitlines()[-1] == "0 []"


def test_job_run_imports_no_pydantic(tmp_path: Path) -> None:
    """The settings are msgspec structs: a job run (settings from a file and the
    environment) loads no pydantic, pydantic_core nor pydantic_settings (~0.1 s)."""
    job = tmp_path / "j.asl.json"
    job.write_text(json.dumps(JOB), encoding="utf-8")
    (tmp_path / "cfnops.toml").write_text("[worker]\nconcurrency = 4\n", encoding="utf-8")
    code = (
        "import os, sys\n"
        f"os.chdir({str(tmp_path)!r})\n"
        f"os.environ['CFNOPS_DATABASE_URL'] = 'sqlite:///{tmp_path / 'db.sqlite'}'\n"
        "os.environ['CFNOPS_HEAL__DRIFT_POLL_SECONDS'] = '5'\n"
        "from cfnops.cli.main import run\n"
        f"code = run(['--output', 'json', 'job', 'run', {str(job)!r}])\n"
        "print(code, 'dbos' in sys.modules, sorted({m.split('.')[0] for m in sys.modules\n"
        "    if m.split('.')[0] in ('pydantic', 'pydantic_core', 'pydantic_settings')}))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    # durable (DBOS ran the job-net), without the validation library it does not need
    assert proc.stdout.strip().splitlines()[-1] == "0 True []"


def test_the_aws_type_stubs_never_load_when_cfnops_runs(
    tmp_path: Path, cfnops_sandbox: Sandbox
) -> None:
    """The ``mypy_boto3_*`` packages type ``AwsClients.client`` for mypy only (the test
    extra): every cfnops module imported, then a drift scan calling CloudFormation in the
    sandbox, loads none of them. They are installed here, so a stray runtime import
    would succeed and show up."""
    import os

    import mypy_boto3_cloudformation

    assert mypy_boto3_cloudformation.__name__ == "mypy_boto3_cloudformation"  # installed
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(cfnops_sandbox.environment())
    env.update(HOME=str(tmp_path), CFNOPS_DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite'}")
    code = (
        "import importlib, pkgutil, sys\n"
        "import cfnops\n"
        "for found in pkgutil.walk_packages(cfnops.__path__, 'cfnops.'):\n"
        "    importlib.import_module(found.name)\n"
        "from cfnops.cli.main import run\n"
        "code = run(['--output', 'json', 'drift', 'scan'])\n"
        "stubs = [m for m in sys.modules if m.split('.')[0].startswith('mypy_boto3')]\n"
        "print(code, 'botocore' in sys.modules, sorted(stubs))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=180
    )
    assert proc.returncode == 0, proc.stderr
    assert '"stacks"' in proc.stdout
    assert proc.stdout.strip().splitlines()[-1] == "0 True []"


def test_job_run_loads_no_cfnops_module_a_pass_does_not_need(tmp_path: Path) -> None:
    """A one-Pass job run loads neither the data-flow check, nor the TestState API, nor
    reruns, audit entries, the Lambda backend's registry and history, the old-key grammar
    (only for a database that still has the old table) nor schedule expressions
    (docs/cli.md)."""
    job = tmp_path / "j.asl.json"
    job.write_text(json.dumps(JOB), encoding="utf-8")
    watched = (
        "cfnops.asl._flowcheck",
        "cfnops.asl._flowcheck_model",
        "cfnops.asl._flowcheck_results",
        "cfnops.asl._teststate",
        "cfnops.asl._teststate_checks",
        "cfnops.jobs._rerun",
        "cfnops.jobs._legacy_keys",
        "cfnops.durable._audit",
        "cfnops.durable._lambda_functions",
        "cfnops.durable._lambda_store",
        "cfnops.durable._run_history",
        "cfnops.schedules._expressions",
    )
    code = (
        "import sys\n"
        f"import os; os.environ['CFNOPS_DATABASE_URL'] = 'sqlite:///{tmp_path / 'db.sqlite'}'\n"
        "from cfnops.cli.main import run\n"
        f"code = run(['--output', 'json', 'job', 'run', {str(job)!r}])\n"
        f"print(code, 'cfnops.jobs._runner' in sys.modules,\n"
        f"      [m for m in {watched!r} if m in sys.modules])\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert '"status": "SUCCEEDED"' in proc.stdout
    assert proc.stdout.strip().splitlines()[-1] == "0 True []"


def test_a_text_diff_imports_no_rich_table_nor_toml_parser_nor_resources(tmp_path: Path) -> None:
    """``diff`` prints trees, not tables (the console no longer imports Rich's tables),
    without a ``cfnops.toml`` it needs no TOML parser (with one, it reads it), and the
    schema table is read with pkgutil, not importlib.resources (tempfile, zipfile)."""
    template, changed = tmp_path / "t.yaml", tmp_path / "t2.yaml"
    template.write_text(TEMPLATE, encoding="utf-8")
    changed.write_text(TEMPLATE.replace("QueueName", "DelaySeconds: 5, QueueName"), "utf-8")
    watched = ("rich.table", "cfnops.cli._table", "tomllib", "importlib.resources")
    code = (
        "import sys\n"
        "from cfnops.cli.main import run\n"
        f"code = run(['diff', {str(template)!r}, {str(changed)!r}])\n"
        "print(code, 'rich.console' in sys.modules,\n"
        f"      [m for m in {watched!r} if m in sys.modules])\n"
    )

    def last_line() -> str:
        proc = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        assert "DelaySeconds" in proc.stdout and "(update behaviour: " in proc.stdout  # read
        return proc.stdout.strip().splitlines()[-1]

    assert last_line() == "0 True []"
    (tmp_path / "cfnops.toml").write_text('region = "eu-west-1"\n', encoding="utf-8")
    assert last_line() == "0 True ['tomllib']"

"""CDK cloud assemblies: two ``cdk.out`` folders diffed stack by stack (examples/cdk)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cfnops.cli.main import run
from cfnops.diff import (
    Impact,
    StackChange,
    TemplateLoadError,
    diff_assemblies,
    diff_templates,
    is_assembly,
    load_assembly,
)

ROOT = Path(__file__).resolve().parents[2]
V1 = ROOT / "examples" / "cdk" / "v1" / "cdk.out"
V2 = ROOT / "examples" / "cdk" / "v2" / "cdk.out"


def _by_id(doc: dict) -> dict[str, dict]:
    out: dict[str, dict] = {}

    def walk(items: list[dict]) -> None:
        for item in items:
            out[item["artifactId"]] = item
            walk(item["nested"])

    walk(doc["stacks"])
    return out


def test_assembly_pair_end_to_end(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["diff", str(V1), str(V2), "-o", "json"]) == 0
    stacks = _by_id(json.loads(capsys.readouterr().out))
    assert {k: v["change"] for k, v in stacks.items()} == {
        "AlarmsStack": "ADDED",
        "AppStack": "MODIFIED",
        "AppStack/DbNested": "MODIFIED",
        "DataStack": "MODIFIED",
        "LegacyStack": "REMOVED",
    }
    app = stacks["AppStack"]["diff"]["resources"]
    # Fn's code changed: its asset hash is a code update. Worker was re-bundled under a
    # new hash with the same files, and DbNested's TemplateURL hash follows its nested
    # template (diffed on its own): neither counts.
    assert {k: v["impact"] for k, v in app.items()} == {"Fn": "WILL_UPDATE"}
    assert "Code" in app["Fn"]["properties"]
    nested = stacks["AppStack/DbNested"]["diff"]["resources"]
    assert nested["Table"]["impact"] == "MAY_REPLACE"
    assert stacks["LegacyStack"]["diff"]["resources"]["Topic"]["impact"] == "WILL_DESTROY"
    assert stacks["AppStack"]["stackName"] == "app-prod"


def test_text_output_is_grouped_by_stack(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["diff", str(V1), str(V2)]) == 0
    out = capsys.readouterr().out
    heads = [line for line in out.splitlines() if line.startswith("Stack ")]
    assert heads == [
        "Stack AlarmsStack (alarms): new stack",
        "Stack AppStack (app-prod): changed",
        "Stack AppStack/DbNested (DbNested): changed",
        "Stack DataStack (data-prod): changed",
        "Stack LegacyStack (legacy): stack removed",
    ]


def test_markdown_has_a_table_of_stacks(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["diff", str(V1), str(V2), "-o", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "| `AppStack/DbNested` | changed | 1 |" in out
    assert "### Stack LegacyStack: 1 difference" in out


def test_fail_on_replace_trips_on_a_nested_stack(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["diff", str(V1), str(V2), "--fail-on", "replace"]) == 1
    err = capsys.readouterr().err
    assert "Table (MAY_REPLACE)" in err and "Topic (WILL_DESTROY)" in err


def test_same_assembly_has_no_differences() -> None:
    result = diff_assemblies(load_assembly(V1), load_assembly(V1), diff_templates)
    assert result.difference_count == 0
    assert {s.change for s in result.walk()} == {StackChange.UNCHANGED}


def test_changed_code_under_the_same_hash_name_counts(tmp_path: Path) -> None:
    """Worker's re-bundled asset counts once its files differ."""
    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(V1, old)
    shutil.copytree(V2, new)
    worker = next(p for p in new.glob("asset.*") if "None" in (p / "index.py").read_text())
    (worker / "index.py").write_text("def handler(event, context):\n    return 1\n")
    result = diff_assemblies(load_assembly(old), load_assembly(new), diff_templates)
    app = next(s for s in result.stacks if s.artifact_id == "AppStack")
    assert app.diff.resource("Worker") is not None
    assert app.diff.resource("Worker").impact is Impact.WILL_UPDATE  # type: ignore[union-attr]


def test_stack_option_compares_an_artifact_with_the_deployed_stack(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import boto3
    from moto import mock_aws

    for key in ("AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_CLOUDFORMATION"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    deployed = (V1 / "DataStack.template.json").read_text()
    with mock_aws():
        cfn = boto3.client("cloudformation", region_name="us-east-1")
        cfn.create_stack(StackName="data-prod", TemplateBody=deployed)
        # by the stack name the artifact deploys, or by its artifact id
        for name in ("data-prod", "DataStack"):
            assert run(["diff", "--stack", name, str(V2), "-o", "json"]) == 0
            doc = json.loads(capsys.readouterr().out)
            assert doc["resources"]["Logs"]["impact"] == "WILL_UPDATE"
            assert doc["resources"]["Logs"]["properties"]["Tags"]["new"] == [
                {"Key": "tier", "Value": "archive"}
            ]


def test_unknown_stack_in_an_assembly_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["diff", "--stack", "nope", str(V2)]) == 2
    err = capsys.readouterr().err
    assert "no stack artifact 'nope'" in err and "AppStack" in err


def test_an_assembly_against_a_template_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    template = V1 / "DataStack.template.json"
    assert run(["diff", str(template), str(V2)]) == 2
    assert "is a cloud assembly" in capsys.readouterr().err


def test_bad_manifest_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "manifest.json").write_text("{not json")
    assert is_assembly(tmp_path / "a")
    with pytest.raises(TemplateLoadError, match="manifest"):
        load_assembly(tmp_path / "a")
    assert run(["diff", str(tmp_path / "a"), str(V2)]) == 2


def test_asset_metadata_churn_folds_into_the_code_change(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A new Lambda asset changes Code and the aws:asset:* metadata: only Code is shown."""
    assert run(["diff", str(V1), str(V2)]) == 0
    out = capsys.readouterr().out
    app = out[out.index("Stack AppStack (app-prod)") : out.index("Stack AppStack/DbNested")]
    assert "Code" in app
    assert "aws:asset:" not in out

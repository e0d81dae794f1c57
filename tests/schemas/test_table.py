"""The shipped update-behaviour table and its loader."""

from __future__ import annotations

import gzip
import importlib.util
import json
import time
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from cfnops.schemas import (
    CUSTOM_RESOURCE_TYPE,
    UnknownRegionError,
    available_regions,
    load_table,
)
from cfnops.schemas._table import BASE_REGION

REPO = Path(__file__).resolve().parents[2]


def test_base_region_facts() -> None:
    table = load_table("us-east-1")
    bucket = table.get("AWS::S3::Bucket")
    assert bucket is not None
    assert ("BucketName",) in bucket.create_only
    assert ("Tags",) in bucket.unordered
    assert bucket.tag_updatable is True
    assert ("Arn",) in bucket.read_only
    instance = table.get("AWS::EC2::Instance")
    assert instance is not None and ("InstanceType",) in instance.conditional_create_only
    group = table.get("AWS::EC2::SecurityGroup")
    assert group is not None and ("SecurityGroupIngress",) in group.unordered
    assert ("Id",) in group.primary_identifier
    replicator = table.get("AWS::MSK::Replicator")
    assert replicator is not None
    assert ("ReplicationInfoList", "*", "TargetCompressionType") in replicator.create_only


def test_custom_types_use_the_custom_resource_schema() -> None:
    table = load_table()
    custom = table.get("Custom::DnsRecord")
    generic = table.get(CUSTOM_RESOURCE_TYPE)
    assert custom is not None and generic is not None
    assert custom.create_only == generic.create_only == (("ServiceToken",),)
    assert custom.type_name == "Custom::DnsRecord"
    assert "Custom::Anything" in table


def test_unknown_type_is_none() -> None:
    table = load_table()
    assert table.get("Acme::Billing::Budget") is None
    assert "Acme::Billing::Budget" not in table


def test_other_regions_load_and_differ_only_by_overlay() -> None:
    regions = available_regions()
    assert BASE_REGION in regions and "eu-west-1" in regions and len(regions) > 20
    eu, base = load_table("eu-west-1"), load_table()
    assert eu.region == "eu-west-1"
    blob = resources.files("cfnops.schemas").joinpath("data", "overlay-eu-west-1.json.gz")
    overlay = json.loads(gzip.decompress(blob.read_bytes()))
    removed, changed = set(overlay["removed"]), set(overlay["changed"])
    assert removed and changed  # eu-west-1 lacks some us-east-1 types and has others
    # the region's types are the base's, less the removed, plus the overlay's entries
    assert set(eu.type_names()) == (set(base.type_names()) - removed) | changed
    for type_name in sorted(removed - changed):
        assert base.get(type_name) is not None and eu.get(type_name) is None, type_name
    for type_name in sorted(changed):
        assert eu.get(type_name) != base.get(type_name), type_name
    # every other type behaves in eu-west-1 exactly as in us-east-1
    untouched = set(base.type_names()) - removed - changed
    assert len(untouched) > 1000
    assert [t for t in sorted(untouched) if eu.get(t) != base.get(t)] == []
    assert eu.get("AWS::S3::Bucket") == base.get("AWS::S3::Bucket") is not None


def test_unknown_region_is_a_usage_error() -> None:
    with pytest.raises(UnknownRegionError, match="xx-nowhere-1") as info:
        load_table("xx-nowhere-1")
    assert info.value.exit_code == 2
    assert "us-east-1" in (info.value.hint or "")


def test_table_records_its_source_version() -> None:
    source = load_table().source
    assert source.cfn_lint.count(".") == 2 and source.schema_date.startswith("20")


def test_loading_one_region_is_fast() -> None:
    """Reported, not asserted as a timing: prints the figure for the note."""
    load_table.cache_clear()
    start = time.perf_counter()
    table = load_table("ap-southeast-2")
    elapsed_ms = (time.perf_counter() - start) * 1000
    print(f"schema table load (ap-southeast-2): {elapsed_ms:.1f} ms, {len(table)} types")
    assert len(table) > 1000


def _build_script() -> Any:
    spec = importlib.util.spec_from_file_location(
        "build_schema_table", REPO / "scripts" / "build_schema_table.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_table_matches_the_installed_cfn_lint_schemas() -> None:
    """The shipped base table equals what the build script derives from cfn-lint now."""
    from importlib.metadata import version

    blob = resources.files("cfnops.schemas").joinpath("data", "us-east-1.json.gz").read_bytes()
    shipped = json.loads(gzip.decompress(blob))
    if shipped["source"]["cfn_lint"] != version("cfn-lint"):
        pytest.skip(
            f"table built from cfn-lint {shipped['source']['cfn_lint']}, installed "
            f"{version('cfn-lint')}: run scripts/build_schema_table.py"
        )
    import cfnlint
    from cfnlint.schema.manager import ProviderSchemaManager

    data = Path(cfnlint.__file__).resolve().parent / "data" / "schemas"
    manager = ProviderSchemaManager(data / "providers", data / "resources")
    build = _build_script()
    sample = [
        "AWS::S3::Bucket",
        "AWS::EC2::SecurityGroup",
        "AWS::MSK::Replicator",
        "AWS::VpcLattice::TargetGroup",
        "AWS::Lambda::Function",
        "AWS::IAM::Role",
    ]
    for type_name in sample:
        schema = manager.get_resource_schema("us-east-1", type_name).schema
        assert shipped["types"][type_name] == build.entry(schema), type_name


def test_entry_collects_unordered_paths_through_refs_and_stops_recursion() -> None:
    build = _build_script()
    schema = {
        "typeName": "X::Y::Z",
        "definitions": {
            "Rule": {
                "type": "object",
                "properties": {
                    "Ports": {
                        "type": "array",
                        "insertionOrder": False,
                        "items": {"type": "integer"},
                    },
                    "Next": {"$ref": "#/definitions/Rule"},
                },
            },
        },
        "properties": {
            "Rules": {"type": "array", "items": {"$ref": "#/definitions/Rule"}},
            "Names": {"type": "array", "insertionOrder": True, "items": {"type": "string"}},
        },
        "createOnlyProperties": ["/properties/Rules/*/Ports"],
        "tagging": {"tagUpdatable": False},
        "replacementStrategy": "delete_then_create",
    }
    got = build.entry(schema)
    # A recursive definition is followed once: Rules/*/Next would repeat #/definitions/Rule.
    assert got["u"] == ["Rules/*/Ports"]
    assert got["c"] == ["Rules/*/Ports"]
    assert got["tu"] is False and got["rs"] == "delete_then_create"

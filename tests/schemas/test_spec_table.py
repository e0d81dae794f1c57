"""The second data source: nested "Update requires: Replacement" paths of the resource spec."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from cfnops.diff import Impact, diff_templates
from cfnops.schemas import load_table

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "build_spec_table.py"


def _script() -> Any:
    spec = importlib.util.spec_from_file_location("build_spec_table", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_compile_keeps_nested_immutable_and_conditional_paths() -> None:
    spec = {
        "ResourceTypes": {
            "AWS::Demo::Thing": {
                "Properties": {
                    "Name": {"UpdateType": "Immutable", "PrimitiveType": "String"},
                    "Config": {"Type": "Config", "UpdateType": "Mutable"},
                    "Rules": {"Type": "List", "ItemType": "Rule", "UpdateType": "Mutable"},
                }
            }
        },
        "PropertyTypes": {
            "AWS::Demo::Thing.Config": {
                "Properties": {
                    "Port": {"UpdateType": "Immutable"},
                    "Label": {"UpdateType": "Mutable"},
                }
            },
            "AWS::Demo::Thing.Rule": {"Properties": {"Id": {"UpdateType": "Conditional"}}},
        },
    }
    assert _script().compile_spec(spec) == {
        "AWS::Demo::Thing": {"c": ["Config/Port"], "cc": ["Rules/*/Id"]}
    }


def test_table_records_the_specification_it_came_from() -> None:
    source = load_table("us-east-1").source
    assert "resource specification 177.0.0" in source.spec
    assert "cfn-lint 0.87.7" in source.spec
    assert load_table("eu-west-1").source.spec == source.spec


def test_spec_paths_never_repeat_what_the_registry_says() -> None:
    table = load_table()
    glue = table.get("AWS::Glue::Database")
    assert glue is not None and ("DatabaseInput", "Name") in glue.spec_create_only
    cache = table.get("AWS::ElastiCache::ReplicationGroup")
    # NodeGroupConfiguration is conditionally create-only in the registry: the registry decides.
    assert cache is not None and cache.spec_create_only == ()


def _glue(name: str, description: str) -> dict[str, Any]:
    return {
        "Resources": {
            "Db": {
                "Type": "AWS::Glue::Database",
                "Properties": {
                    "CatalogId": "123456789012",
                    "DatabaseInput": {"Name": name, "Description": description},
                },
            }
        }
    }


def test_diff_uses_the_spec_for_nested_paths_and_says_so() -> None:
    res = diff_templates(_glue("sales", "d"), _glue("sales_v2", "d")).resource("Db")
    assert res is not None and res.impact is Impact.WILL_REPLACE
    prop = res.property("DatabaseInput")
    assert prop is not None and prop.decided_by == "resource specification"
    assert prop.path == "/properties/DatabaseInput/Name"
    assert "resource specification" in res.reason
    same_name = diff_templates(_glue("sales", "d"), _glue("sales", "e")).resource("Db")
    assert same_name is not None and same_name.impact is Impact.WILL_UPDATE

"""Pins the public surface of cfnops.diff and cfnops.schemas."""

from __future__ import annotations

import cfnops.diff
import cfnops.diff.stack
import cfnops.schemas


def test_diff_exports() -> None:
    assert sorted(cfnops.diff.__all__) == sorted(
        [
            "CUSTOM_RESOURCE_NOTE",
            "Assembly",
            "AssemblyDiff",
            "SarifTarget",
            "StackChange",
            "StackDiff",
            "assembly_json",
            "assembly_markdown",
            "assembly_text",
            "diff_assemblies",
            "is_assembly",
            "is_sam",
            "load_assembly",
            "sam_annotations",
            "sam_origins",
            "sam_untransformed",
            "DeployFinding",
            "SamTransformError",
            "template_lines",
            "to_sarif",
            "transform_sam",
            "AttributeDiff",
            "Change",
            "ChangeSetAnswer",
            "ChangeSetError",
            "DriftEntry",
            "DriftedProperty",
            "EntryDiff",
            "FailOn",
            "Impact",
            "ParameterValue",
            "PropertyDiff",
            "ResourceDiff",
            "StackTemplateError",
            "TemplateDiff",
            "TemplateLoadError",
            "ValueChange",
            "annotate",
            "diff_templates",
            "escalate",
            "gate",
            "load_template",
            "merge_change_set",
            "name_property",
            "parameter_values",
            "parse_template",
            "render_markdown",
            "render_text",
            "to_json",
            "with_drift",
            "worst",
        ]
    )
    for name in cfnops.diff.__all__:
        assert hasattr(cfnops.diff, name), name


def test_schemas_exports() -> None:
    assert sorted(cfnops.schemas.__all__) == sorted(
        [
            "CUSTOM_RESOURCE_TYPE",
            "SchemaTable",
            "TableSource",
            "TypeBehaviour",
            "UnknownRegionError",
            "available_regions",
            "load_table",
        ]
    )
    for name in cfnops.schemas.__all__:
        assert hasattr(cfnops.schemas, name), name


def test_stack_adapter_functions() -> None:
    for name in ("fetch_stack", "change_set_answers", "diff_against_stack", "DeployedStack"):
        assert callable(getattr(cfnops.diff.stack, name)), name

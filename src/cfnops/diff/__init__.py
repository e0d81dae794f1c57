"""Offline template diff with replacement analysis.

>>> from cfnops.diff import diff_templates, parse_template
>>> old = parse_template("Resources: {B: {Type: AWS::S3::Bucket}}")
>>> new = parse_template("Resources: {B: {Type: AWS::S3::Bucket, Properties: {BucketName: x}}}")
>>> diff_templates(old, new).resource("B").impact.value
'WILL_REPLACE'

Pipeline: load (``parse_template``/``load_template``) → normalise → structural
diff with impacts from :mod:`cfnops.schemas` → replacement propagation →
renderers (``render_text``, ``render_markdown``, ``to_json``, ``to_sarif``). CDK cloud
assemblies (``load_assembly``, ``diff_assemblies``) are diffed stack by stack; SAM
templates are transformed first (``transform_sam``). The AWS adapter
(deployed template, parameters, comparison change set) is :mod:`cfnops.diff.stack`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cfnops._lazy import lazy_exports
from cfnops.diff._changeset import ChangeSetAnswer, merge_change_set
from cfnops.diff._drift import DriftedProperty, DriftEntry, with_drift
from cfnops.diff._engine import CUSTOM_RESOURCE_NOTE, diff_templates
from cfnops.diff._gate import FailOn, gate
from cfnops.diff._load import load_template, parse_template
from cfnops.diff._model import (
    AttributeDiff,
    Change,
    DeployFinding,
    EntryDiff,
    Impact,
    ParameterValue,
    PropertyDiff,
    ResourceDiff,
    TemplateDiff,
    ValueChange,
    annotate,
    escalate,
    worst,
)
from cfnops.diff._names import name_property
from cfnops.diff._params import parameter_values
from cfnops.diff._render_json import to_json
from cfnops.diff._render_markdown import render_markdown
from cfnops.diff._render_text import render_text
from cfnops.diff._sam import (
    is_sam,
    sam_annotations,
    sam_origins,
    sam_untransformed,
    transform_sam,
)
from cfnops.diff.errors import (
    ChangeSetError,
    SamTransformError,
    StackTemplateError,
    TemplateLoadError,
)

if TYPE_CHECKING:  # loaded on first use: a plain two-template diff never needs them
    from cfnops.diff._assembly import (
        Assembly,
        AssemblyDiff,
        StackChange,
        StackDiff,
        diff_assemblies,
        is_assembly,
        load_assembly,
    )
    from cfnops.diff._render_assembly import assembly_json, assembly_markdown, assembly_text
    from cfnops.diff._render_sarif import SarifTarget, template_lines, to_sarif

_LAZY = {
    **dict.fromkeys(
        (
            "Assembly",
            "AssemblyDiff",
            "StackChange",
            "StackDiff",
            "diff_assemblies",
            "is_assembly",
            "load_assembly",
        ),
        "_assembly",
    ),
    **dict.fromkeys(("assembly_json", "assembly_markdown", "assembly_text"), "_render_assembly"),
    **dict.fromkeys(("SarifTarget", "template_lines", "to_sarif"), "_render_sarif"),
}

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())


__all__ = [
    "CUSTOM_RESOURCE_NOTE",
    "Assembly",
    "AssemblyDiff",
    "AttributeDiff",
    "Change",
    "ChangeSetAnswer",
    "ChangeSetError",
    "DeployFinding",
    "DriftEntry",
    "DriftedProperty",
    "EntryDiff",
    "FailOn",
    "Impact",
    "ParameterValue",
    "PropertyDiff",
    "ResourceDiff",
    "SamTransformError",
    "SarifTarget",
    "StackChange",
    "StackDiff",
    "StackTemplateError",
    "TemplateDiff",
    "TemplateLoadError",
    "ValueChange",
    "annotate",
    "assembly_json",
    "assembly_markdown",
    "assembly_text",
    "diff_assemblies",
    "diff_templates",
    "escalate",
    "gate",
    "is_assembly",
    "is_sam",
    "load_assembly",
    "load_template",
    "merge_change_set",
    "name_property",
    "parameter_values",
    "parse_template",
    "render_markdown",
    "render_text",
    "sam_annotations",
    "sam_origins",
    "sam_untransformed",
    "template_lines",
    "to_json",
    "to_sarif",
    "transform_sam",
    "with_drift",
    "worst",
]

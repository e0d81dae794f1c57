"""Offline template diff with replacement analysis.

>>> from cfnops.diff import diff_templates, parse_template
>>> old = parse_template("Resources: {B: {Type: AWS::S3::Bucket}}")
>>> new = parse_template("Resources: {B: {Type: AWS::S3::Bucket, Properties: {BucketName: x}}}")
>>> diff_templates(old, new).resource("B").impact.value
'WILL_REPLACE'

Pipeline: load (``parse_template``/``load_template``) → normalise → structural
diff with impacts from :mod:`cfnops.schemas` → replacement propagation →
renderers (``render_text``, ``render_markdown``, ``to_json``).
"""

from __future__ import annotations

from cfnops.diff._engine import CUSTOM_RESOURCE_NOTE, diff_templates
from cfnops.diff._load import load_template, parse_template
from cfnops.diff._model import (
    AttributeDiff,
    Change,
    EntryDiff,
    Impact,
    ParameterValue,
    PropertyDiff,
    ResourceDiff,
    TemplateDiff,
    worst,
)
from cfnops.diff.errors import ChangeSetError, StackTemplateError, TemplateLoadError

__all__ = [
    "CUSTOM_RESOURCE_NOTE",
    "AttributeDiff",
    "Change",
    "ChangeSetError",
    "EntryDiff",
    "Impact",
    "ParameterValue",
    "PropertyDiff",
    "ResourceDiff",
    "StackTemplateError",
    "TemplateDiff",
    "TemplateLoadError",
    "diff_templates",
    "load_template",
    "parse_template",
    "worst",
]

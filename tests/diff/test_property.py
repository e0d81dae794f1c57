"""Properties over the shared corpus: diff(T, T) is empty; diff never crashes."""

from __future__ import annotations

from collections import defaultdict
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from diff_fixtures import CORPUS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cfnops.diff import TemplateLoadError, diff_templates, load_template, render_markdown, to_json


@cache
def corpus() -> dict[Path, dict[str, Any]]:
    out: dict[Path, dict[str, Any]] = {}
    for file in sorted(CORPUS.rglob("*")):
        if file.suffix not in (".json", ".yaml", ".yml"):
            continue
        try:
            out[file] = load_template(file)
        except TemplateLoadError:
            continue  # not a template (buildspecs, parameter files...)
    return out


@cache
def same_folder_pairs() -> list[tuple[Path, Path]]:
    folders: dict[Path, list[Path]] = defaultdict(list)
    for file in corpus():
        folders[file.parent].append(file)
    return [(a, b) for files in folders.values() for a in files for b in files if a != b]


@pytest.mark.slow
def test_every_corpus_template_equals_itself() -> None:
    templates = corpus()
    assert len(templates) > 200
    for path, template in templates.items():
        result = diff_templates(template, template)
        assert result.is_empty, f"{path}: {to_json(result)}"


@pytest.mark.slow
def test_every_ordered_pair_of_a_folder_diffs_without_error() -> None:
    """Exhaustive (about 1,600 ordered pairs, a few seconds): no exception, sane counts."""
    templates = corpus()
    pairs = same_folder_pairs()
    assert len(pairs) > 1000
    for old_path, new_path in pairs:
        result = diff_templates(templates[old_path], templates[new_path])
        assert result.difference_count >= len(result.resources), (old_path, new_path)


@pytest.mark.slow
@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_diff_of_any_two_templates_of_a_folder_never_crashes(data: st.DataObject) -> None:
    pairs = same_folder_pairs()
    assert pairs
    old_path, new_path = data.draw(st.sampled_from(pairs), label="pair")
    old, new = corpus()[old_path], corpus()[new_path]
    forward = diff_templates(old, new)
    backward = diff_templates(new, old)
    # Creation and destruction mirror each other between the two directions.
    created = {r.logical_id for r in forward.resources if r.impact.value == "WILL_CREATE"}
    removed = {
        r.logical_id
        for r in backward.resources
        if r.impact.value in ("WILL_DESTROY", "WILL_ORPHAN")
    }
    assert created == removed
    assert to_json(forward)["differenceCount"] == forward.difference_count
    render_markdown(forward)


_scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.sampled_from(["a", "10", "true", "x.y", "${A}", "${!A}", "${A.Arn}", "A"]),
)
_value = st.recursive(
    _scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.sampled_from(
                ["Ref", "Fn::GetAtt", "Fn::Sub", "Fn::If", "Key", "Value", "BucketName", "Tags"]
            ),
            inner,
            max_size=2,
        ),
    ),
    max_leaves=8,
)
_resource = st.fixed_dictionaries(
    {"Type": st.sampled_from(["AWS::S3::Bucket", "AWS::SQS::Queue", "Custom::X", "Acme::Y::Z"])},
    optional={
        "Properties": st.dictionaries(
            st.sampled_from(["BucketName", "QueueName", "Tags", "VisibilityTimeout", "Other"]),
            _value,
            max_size=3,
        ),
        "DependsOn": st.one_of(st.sampled_from(["A", "B"]), st.lists(st.sampled_from(["A", "B"]))),
        "DeletionPolicy": st.sampled_from(["Retain", "Delete", "Snapshot"]),
    },
)
_template = st.fixed_dictionaries(
    {"Resources": st.dictionaries(st.sampled_from(["A", "B", "C"]), _resource, max_size=3)}
)


@settings(max_examples=300, deadline=None)
@given(_template, _template)
def test_generated_templates(old: dict[str, Any], new: dict[str, Any]) -> None:
    assert diff_templates(old, old).is_empty
    result = diff_templates(old, new)
    assert result.difference_count == len(result.resources)
    assert all(r.impact.value != "NO_CHANGE" for r in result.resources)

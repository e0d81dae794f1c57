"""The public names of cfnops.templates, pinned (a change here is an API change)."""

from __future__ import annotations

import cfnops.templates


def test_templates_exports_are_pinned() -> None:
    assert sorted(cfnops.templates.__all__) == [
        "LocatedDict",
        "LocatedList",
        "LocatedStr",
        "NotFastJson",
        "TemplateError",
        "decode",
        "decode_json",
        "line_of",
        "load_template",
        "parse_template",
        "read_text",
    ]
    assert len(set(cfnops.templates.__all__)) == len(cfnops.templates.__all__)


def test_templates_exports_resolve() -> None:
    for name in cfnops.templates.__all__:
        assert getattr(cfnops.templates, name) is not None, name

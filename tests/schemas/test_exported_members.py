"""The public names of cfnops.schemas, pinned (a change here is an API change)."""

from __future__ import annotations

import cfnops.schemas


def test_schemas_exports_are_pinned() -> None:
    assert sorted(cfnops.schemas.__all__) == [
        "CUSTOM_RESOURCE_TYPE",
        "SchemaTable",
        "TableSource",
        "TypeBehaviour",
        "UnknownRegionError",
        "available_regions",
        "load_table",
    ]
    assert len(set(cfnops.schemas.__all__)) == len(cfnops.schemas.__all__)


def test_schemas_exports_resolve() -> None:
    for name in cfnops.schemas.__all__:
        assert getattr(cfnops.schemas, name) is not None, name

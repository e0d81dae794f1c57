"""Update-behaviour table compiled from cfn-lint's registry schemas.

>>> from cfnops.schemas import load_table
>>> table = load_table("us-east-1")
>>> table.get("AWS::S3::Bucket").create_only[0]
('BucketName',)

Regenerate with ``python scripts/build_schema_table.py`` after upgrading cfn-lint.
"""

from __future__ import annotations

from cfnops.schemas._table import (
    CUSTOM_RESOURCE_TYPE,
    SchemaTable,
    TableSource,
    TypeBehaviour,
    available_regions,
    load_table,
)
from cfnops.schemas.errors import UnknownRegionError

__all__ = [
    "CUSTOM_RESOURCE_TYPE",
    "SchemaTable",
    "TableSource",
    "TypeBehaviour",
    "UnknownRegionError",
    "available_regions",
    "load_table",
]

"""The public names of cfnops.database, pinned (a change here is an API change)."""

from __future__ import annotations

import cfnops.database


def test_database_exports_are_pinned() -> None:
    assert sorted(cfnops.database.__all__) == [
        "Database",
        "DatabaseCorrupted",
        "DatabaseError",
        "DatabaseFileGone",
        "DatabaseFull",
        "DatabaseIsDirectory",
        "DatabasePathError",
        "DatabaseReadOnly",
        "DatabaseUnreachable",
        "NotADatabase",
        "PostgresDatabase",
        "SchemaTooNew",
        "SchemaTooOld",
        "SqliteDatabase",
        "StorageError",
        "create_tables",
        "redact_url",
        "retry_while_unreachable",
        "schema_lock",
        "storage_error",
        "upsert",
    ]
    assert len(set(cfnops.database.__all__)) == len(cfnops.database.__all__)


def test_database_exports_resolve() -> None:
    for name in cfnops.database.__all__:
        assert getattr(cfnops.database, name) is not None, name

"""The run database: one handle, one SQLAlchemy engine per URL, SQLite or PostgreSQL.

Runs (DBOS's tables), job-nets, accepted drift and the audit trail share one
database. A :class:`Database` is built once per process (by
:class:`cfnops.runtime.Runtime`) and handed to every store; it owns the engine
and creates each store's tables once::

    from cfnops.database import Database

    db = Database.open("sqlite:////var/lib/cfnops/runs.db")
    engine = db.ensure(metadata)       # tables created if missing, once per handle

Errors of the drivers underneath (``sqlite3``, ``psycopg``, SQLAlchemy) become named
:class:`StorageError` subclasses through one mapping (:func:`storage_error`).

Backends are two small adapters of one base class (:class:`SqliteDatabase`,
:class:`PostgresDatabase`): URL, connection pragmas and the schema lock.
"""

from cfnops.database._base import Database, create_tables, schema_lock, upsert
from cfnops.database._postgres import PostgresDatabase
from cfnops.database._sqlite import SqliteDatabase
from cfnops.database._storage_errors import install as _install_storage_errors
from cfnops.database._storage_errors import redact_url, retry_while_unreachable, storage_error
from cfnops.database.errors import (
    DatabaseCorrupted,
    DatabaseError,
    DatabaseFileGone,
    DatabaseFull,
    DatabaseIsDirectory,
    DatabasePathError,
    DatabaseReadOnly,
    DatabaseUnreachable,
    NotADatabase,
    SchemaTooNew,
    SchemaTooOld,
    StorageError,
)

_install_storage_errors()  # every engine's errors name their database (see _storage_errors)

__all__ = [
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

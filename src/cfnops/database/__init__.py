"""The run database: one handle, one SQLAlchemy engine per URL, SQLite or PostgreSQL.

Runs (DBOS's tables), job-nets, accepted drift and the audit trail share one
database. A :class:`Database` is built once per process (by
:class:`cfnops.runtime.Runtime`) and handed to every store; it owns the engine
and creates each store's tables once::

    from cfnops.database import Database

    db = Database.open("sqlite:////var/lib/cfnops/runs.db")
    engine = db.ensure(metadata)       # tables created if missing, once per handle

Backends are two small adapters of one base class (:class:`SqliteDatabase`,
:class:`PostgresDatabase`): URL, connection pragmas and the schema lock.
"""

from cfnops.database._base import Database, create_tables, schema_lock
from cfnops.database._postgres import PostgresDatabase
from cfnops.database._sqlite import SqliteDatabase
from cfnops.database.errors import DatabaseError, DatabasePathError

__all__ = [
    "Database",
    "DatabaseError",
    "DatabasePathError",
    "PostgresDatabase",
    "SqliteDatabase",
    "create_tables",
    "schema_lock",
]

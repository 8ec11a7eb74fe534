"""Storage: the SQL store (SQLite under NEPAQA_HOME, or PostgreSQL by URL): its tables, its engine, the schema
ledger that owns every CREATE and ALTER, the leases writers hold, and long work as jobs."""
from lib.storage import jobs, leases, schema, tables
from lib.storage.engine import database_url, get_engine, upsert
from lib.storage.jobs import Job, JobCancelledError, JobContext, submit
from lib.storage.leases import Lease, held

__all__ = ["Job", "JobCancelledError", "JobContext", "Lease", "database_url", "get_engine", "held", "jobs", "leases",
           "schema", "submit", "tables", "upsert"]

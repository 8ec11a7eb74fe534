"""Storage: the SQL store (SQLite under NEPAQA_HOME, or PostgreSQL by URL): its tables, its engine, the schema
ledger that owns every CREATE and ALTER, the leases writers hold, long work as jobs, the role table (``accounts``) and
the audit record (``audit``)."""
from lib.storage import accounts, audit, job_access, jobs, leases, schema, tables
from lib.storage.engine import database_url, get_engine, upsert
from lib.storage.jobs import Job, JobCancelledError, JobContext, submit
from lib.storage.leases import Lease, held

__all__ = ["Job", "accounts", "audit", "job_access", "JobCancelledError", "JobContext", "Lease", "database_url", "get_engine", "held", "jobs", "leases",
           "schema", "submit", "tables", "upsert"]

"""Every CREATE and ALTER the store runs, as numbered steps kept in a ledger inside the database.

``upgrade`` runs when a process first opens a store: it reads the ledger (``schema_ledger``: one row per step
taken) and takes the steps the store lacks, in order, recording each. A store made before the ledger existed has
no rows and takes every step; each step looks before it changes anything and keeps every row, so it is safe on
a store of any earlier version and when two processes open one new store at once (the loser's "already exists"
is not an error: it looks again).

Changing a table in ``tables.py`` means adding a step here and updating ``TABLES_FINGERPRINT`` (a test fails
until both are done). ``add_missing_columns`` is the step for new nullable columns.

Why not Alembic: every step here is dialect-specific DDL that Alembic's operations do not abstract (an FTS5
virtual table, a tsvector column with a GIN index, SQLite's table rebuild to change a constraint), stores made
before any ledger need a catch-up step either way, two processes opening one new store at once need the
idempotent steps and retry this module has, and Alembic's runner loads its migration scripts from a folder by
path rather than by import. The ledger is a table and a list.
"""
from __future__ import annotations

import hashlib
import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import insert, inspect, select, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.schema import CreateIndex, CreateTable

from lib.core import config
from lib.core.errors import UserError
from lib.core.version import __version__
from lib.storage import tables

log = logging.getLogger(__name__)
Step = Callable[[Engine], "str | None"]  # a step may return a note for the store's user


def add_missing_columns(engine: Engine) -> None:
    """Tables the code defines and the store lacks are created; nullable columns added since a table was made are
    added to it; PostgreSQL's VARCHAR columns made narrower before are widened (SQLite does not enforce lengths)."""
    tables.metadata.create_all(engine)
    insp = inspect(engine)
    with engine.begin() as c:
        for table in tables.metadata.sorted_tables:
            have = {col["name"]: col for col in insp.get_columns(table.name)}
            for col in table.columns:
                if col.name not in have and col.nullable and not col.primary_key:
                    ddl = col.type.compile(dialect=engine.dialect)
                    c.execute(text(f'ALTER TABLE {table.name} ADD COLUMN "{col.name}" {ddl}'))
                elif col.name in have and engine.dialect.name == "postgresql":
                    old, new = getattr(have[col.name]["type"], "length", None), getattr(col.type, "length", None)
                    if old and new and old < new:
                        c.execute(text(f'ALTER TABLE {table.name} ALTER COLUMN "{col.name}" TYPE VARCHAR({new})'))


def full_text_index(engine: Engine) -> None:
    """The lexical index beside the chunks (lib/collection/lexical.py reads and writes it): SQLite's FTS5, or a
    tsvector table with a GIN index on PostgreSQL."""
    with engine.begin() as c:
        if engine.dialect.name == "sqlite":
            # doc_id is an indexed column so a scope is one more term of the MATCH (cheap), not a filter applied
            # after every matching row of the collection was ranked
            c.execute(text("CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5("
                           "body, doc_id, idx UNINDEXED, tokenize = 'unicode61')"))
        else:
            c.execute(text("CREATE TABLE IF NOT EXISTS chunk_lexemes (doc_id VARCHAR(64) NOT NULL, idx INTEGER NOT "
                           "NULL, tsv tsvector NOT NULL, PRIMARY KEY (doc_id, idx))"))
            c.execute(text("CREATE INDEX IF NOT EXISTS chunk_lexemes_tsv ON chunk_lexemes USING GIN (tsv)"))


_OLD_EXAM_KEY = re.compile(r"UNIQUE\s*\(\s*run_id\s*,\s*course\s*,\s*q_index\s*\)", re.I)


def exam_rotation_key(engine: Engine) -> None:
    """A store made before circular evaluation keys exam answers by (run, course, question) only; rotations need
    the rotation in that key. Rebuild the key, keeping every answer (SQLite cannot alter a constraint)."""
    uniques = inspect(engine).get_unique_constraints("exam_answers")
    if not any(set(u["column_names"]) == {"run_id", "course", "q_index"} for u in uniques):
        return
    if engine.dialect.name != "sqlite":
        with engine.begin() as c:
            c.execute(text("UPDATE exam_answers SET rotation = 0 WHERE rotation IS NULL"))
            c.execute(text("ALTER TABLE exam_answers DROP CONSTRAINT IF EXISTS uq_exam_answer"))
            c.execute(text("ALTER TABLE exam_answers ADD CONSTRAINT uq_exam_answer "
                           "UNIQUE (run_id, course, q_index, rotation)"))
        return
    t = tables.exam_answers
    raw = engine.raw_connection()
    con = raw.driver_connection
    if con is None:  # a pooled connection that is open holds its sqlite3 connection
        raise RuntimeError("the database connection was closed before the table could be rebuilt; try again")
    before = con.isolation_level
    con.isolation_level = None  # explicit transaction: the rebuild is all or nothing
    try:
        con.execute("BEGIN IMMEDIATE")
        sql = con.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'exam_answers'").fetchone()
        if sql and _OLD_EXAM_KEY.search(sql[0]):  # still the old key once the write lock is held
            have = {r[1] for r in con.execute("PRAGMA table_info(exam_answers)")}
            cols = ", ".join(f'"{c.name}"' for c in t.columns if c.name in have)
            con.execute("ALTER TABLE exam_answers RENAME TO exam_answers_before_rotation")
            con.execute(str(CreateTable(t).compile(dialect=engine.dialect)))
            con.execute(f"INSERT INTO exam_answers ({cols}) SELECT {cols} FROM exam_answers_before_rotation")
            con.execute("UPDATE exam_answers SET rotation = 0 WHERE rotation IS NULL")
            con.execute("DROP TABLE exam_answers_before_rotation")
            for ix in t.indexes:
                con.execute(str(CreateIndex(ix).compile(dialect=engine.dialect)))
        con.execute("COMMIT")
    except BaseException:
        if con.in_transaction:
            con.execute("ROLLBACK")
        raise
    finally:
        con.isolation_level = before
        raw.close()


def drop_exact_vectors(engine: Engine) -> str | None:
    """Earlier versions re-scored int8 search results with fp32 vectors that a second pass after each ingest
    stored in ``exact_vectors``. Searches now rank by the vectors the ingest made, so the table goes; the note says
    how many vectors were dropped (nothing else changes: the documents, chunks and their vectors stay)."""
    add_missing_columns(engine)  # the ledger's note column
    if not inspect(engine).has_table("exact_vectors"):
        return None
    try:
        with engine.begin() as c:
            n = int(c.execute(text("SELECT COUNT(*) FROM exact_vectors")).scalar() or 0)
            c.execute(text("DROP TABLE IF EXISTS exact_vectors"))
    except DBAPIError:
        if not inspect(engine).has_table("exact_vectors"):
            return None  # another process opening this store at the same time dropped it first (and says so)
        raise
    return (f"dropped {n:,} stored fp32 vectors that an earlier version's second pass ('prepare search') made; "
            "searches rank by the vectors made at ingest, and every document stays searchable")


def append_only_audit(engine: Engine) -> None:
    """The audit record takes new rows only: the database itself refuses to change or delete one (a trigger)."""
    add_missing_columns(engine)
    with engine.begin() as c:
        if engine.dialect.name == "sqlite":
            for verb in ("UPDATE", "DELETE"):
                c.execute(text(f"CREATE TRIGGER IF NOT EXISTS audit_log_no_{verb.lower()} BEFORE {verb} ON audit_log "
                               "BEGIN SELECT RAISE(ABORT, 'the audit record is append-only'); END"))
        else:
            c.execute(text("CREATE OR REPLACE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS "
                           "$$ BEGIN RAISE EXCEPTION 'the audit record is append-only'; END $$"))
            c.execute(text("DROP TRIGGER IF EXISTS audit_log_append_only ON audit_log"))
            c.execute(text("CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON audit_log "
                           "FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only()"))


def adjudicators_to_role(engine: Engine) -> str | None:
    """NEPAQA_ADJUDICATORS (names or e-mails allowed to set final labels) becomes the adjudicator role: one row
    each in the role table. The setting is not read after this step; admins change roles on the Accounts page."""
    add_missing_columns(engine)
    listed = list(dict.fromkeys(x.strip().lower() for x in (config.get("NEPAQA_ADJUDICATORS") or "").split(",")
                                if x.strip()))
    if not listed:
        return None
    emails = [x for x in listed if "@" in x.strip("@") and " " not in x]  # roles go by e-mail (or group)
    t = tables.user_roles
    with engine.begin() as c:
        have = {r[0] for r in c.execute(select(t.c.subject))}
        for who in emails:
            if who not in have:
                c.execute(insert(t).values(subject=who, role="adjudicator", source="migration",
                                           set_by="NEPAQA_ADJUDICATORS", set_at=time.time()))
    names = [x for x in listed if x not in emails]
    return (f"NEPAQA_ADJUDICATORS is no longer read: its {len(emails)} e-mail(s) now have the adjudicator role "
            "(Accounts page)" + (f"; {len(names)} typed name(s) ({', '.join(names)}) cannot be a signed-in account, "
                                 "so they got no role (without sign-in the local user adjudicates)" if names else ""))


# The ledger: (number, name, step). Numbers only grow; a released step is never removed or given another job.
# Step 1 creates the tables as tables.py defines them now (create_all) and adds the nullable columns a store made
# before the ledger lacks, so a pre-ledger store and a new one end at the same shape; every later change to the
# tables is a step of its own here, which a store at step 1 or beyond takes.
STEPS: tuple[tuple[int, str, Step], ...] = (
    (1, "tables and the columns added before the ledger", add_missing_columns),
    (2, "full-text index of the chunks", full_text_index),
    (3, "exam answers keyed by option rotation", exam_rotation_key),
    (4, "metadata confidence, evidence, and the rules' reading beside a person's value", add_missing_columns),
    (5, "the support check of each answer kept in the Ask history", add_missing_columns),
    (6, "rate-limit pauses shared by workers, and a lease's host identity", add_missing_columns),
    (7, "one pass to a final index: the second pass's vectors dropped", drop_exact_vectors),
    (8, "the pages of each document read by OCR", add_missing_columns),
    (9, "documents grouped as the volumes of one EIS", add_missing_columns),
    (10, "finished jobs dismissed from the app's job panel", add_missing_columns),
    (11, "accounts: roles, the audit record, who started each job and asked", add_missing_columns),
    (12, "the audit record is append-only", append_only_audit),
    (13, "NEPAQA_ADJUDICATORS becomes the adjudicator role", adjudicators_to_role),
)
LATEST = STEPS[-1][0]

# What tables.py defines as of step LATEST (tables_fingerprint()): a change to the tables without a new step
# fails tests/storage/test_schema.py.
TABLES_FINGERPRINT = "9b9e9f2a59849df4"


def tables_fingerprint() -> str:
    """A short hash of everything tables.py defines that DDL makes: each table's columns (name, type, nullable,
    primary key, unique, server default, foreign key with its ON DELETE), its constraints (kind and columns) and
    its indexes."""
    parts = []
    for t in sorted(tables.metadata.sorted_tables, key=lambda t: t.name):
        cols = []
        for c in t.columns:
            fks = ",".join(sorted(f"{fk.target_fullname}/{fk.ondelete}" for fk in c.foreign_keys))
            default = str(getattr(c.server_default, "arg", "")) if c.server_default is not None else ""
            cols.append(f"{c.name}:{c.type}:{int(bool(c.nullable))}:{int(bool(c.primary_key))}:{int(bool(c.unique))}"
                        f":{default}:{fks}")
        keys = sorted(f"{type(k).__name__}({','.join(sorted(col.name for col in getattr(k, 'columns', ())))})"
                      for k in t.constraints)  # every kind of constraint on these tables lists its columns
        indexes = sorted(f"{ix.name}({','.join(col.name for col in ix.columns)}):{int(bool(ix.unique))}"
                         for ix in t.indexes)
        parts.append(f"{t.name}({';'.join(cols)})[{'|'.join(keys)}]{{{'|'.join(indexes)}}}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def taken(engine: Engine) -> set[int]:
    """The steps this store has recorded (none for a new store or one made before the ledger)."""
    if not inspect(engine).has_table("schema_ledger"):
        return set()
    with engine.connect() as c:
        return {int(r[0]) for r in c.execute(select(tables.schema_ledger.c.step))}


_lock = threading.Lock()


def upgrade(engine: Engine, attempts: int = 5) -> list[int]:
    """Take the steps this store lacks, in order; returns the steps taken now (none when it is up to date)."""
    with _lock:
        for attempt in range(attempts):
            try:
                return _upgrade(engine)
            except DBAPIError as exc:
                msg = str(exc.orig).lower()
                if attempt == attempts - 1 or not any(w in msg for w in ("already exists", "duplicate", "locked")):
                    raise
                time.sleep(0.2 * (attempt + 1))
    return []


def _upgrade(engine: Engine) -> list[int]:
    have = taken(engine)
    newer = sorted(s for s in have if s > LATEST)
    if newer:
        raise UserError(f"This store ({engine.url.render_as_string(hide_password=True)}) was upgraded by a newer "
                        f"version of NEPA QA Studio (schema step {newer[-1]}; this version knows steps up to "
                        f"{LATEST}). Update the app, or point NEPAQA_HOME / NEPAQA_DATABASE_URL at another store.")
    done: list[int] = []
    for number, name, step in STEPS:
        if number in have:
            continue
        note = step(engine)
        if note:
            log.warning("store upgrade, step %d: %s", number, note)
        _record(engine, number, name, note)
        done.append(number)
    return done


def _record(engine: Engine, number: int, name: str, note: str | None = None) -> None:
    try:
        with engine.begin() as c:
            c.execute(insert(tables.schema_ledger).values(step=number, name=name, applied_at=time.time(),
                                                         app_version=__version__, note=note))
    except IntegrityError:  # another process took the same step at the same time
        pass


def notes(engine: Engine) -> list[str]:
    """What upgrades changed in this store that its user should know, oldest first ("step 7: dropped …")."""
    return [f"step {r.step}: {r.note}" for r in ledger(engine) if r.note]


@dataclass(frozen=True)
class LedgerStep:
    """A schema step this store has taken: its number and name, when (epoch seconds), by which app version, and
    what it changed that the store's user should know (None: nothing to say)."""

    step: int
    name: str
    applied_at: float
    app_version: str | None
    note: str | None


def ledger(engine: Engine) -> list[LedgerStep]:
    """The steps this store has taken, in order, with when and by which version."""
    if not inspect(engine).has_table("schema_ledger"):
        return []
    with engine.connect() as c:
        rows = c.execute(select(tables.schema_ledger).order_by(tables.schema_ledger.c.step)).mappings().all()
    return [LedgerStep(**r) for r in rows]

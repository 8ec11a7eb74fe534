"""The schema ledger (lib/storage/schema.py): every CREATE and ALTER is a numbered step recorded in the store, and a
store made by main before the ledger existed opens, upgrades step by step, and keeps every row."""
from __future__ import annotations

import gzip
import json
import os
import sqlite3
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from sqlalchemy import Index, create_engine, func, insert, inspect, select, text

from lib.collection import lexical
from lib.core.errors import UserError
from lib.evaluation import exam as ee
from lib.evaluation.benchmark.runner import summarize
from lib.review import annotations as ann
from lib.storage import schema, tables
from lib.storage.engine import get_engine
from tests.conftest import ROOT

FIXTURES = Path(__file__).parent / "fixtures"
# Rows per table in the fixtures, as main wrote them (make_store_before_ledger.py): the upgrade keeps each one.
ROWS = {"documents": 1, "pages": 3, "chunks": 4, "doc_metadata": 7, "jobs": 1, "labels": 5,
        "label_history": 5, "review_items": 2, "bench_runs": 1, "bench_answers": 4, "bench_scores": 8,
        "run_manifests": 2, "ask_history": 1, "exam_answers": 1}


def _counts(engine) -> dict[str, int]:
    with engine.connect() as c:
        return {name: c.execute(select(func.count()).select_from(tables.metadata.tables[name])).scalar()
                for name in ROWS}


def test_the_tables_match_the_ledgers_last_step():
    """A change to tables.py without a ledger step (and a new fingerprint) fails here, not in a user's store."""
    assert schema.tables_fingerprint() == schema.TABLES_FINGERPRINT, (
        "tables.py changed: add a step to schema.STEPS that makes the change in existing stores, then set "
        f"TABLES_FINGERPRINT = {schema.tables_fingerprint()!r}")
    assert [n for n, _, _ in schema.STEPS] == list(range(1, schema.LATEST + 1))


def test_the_fingerprint_sees_what_ddl_makes():
    """An index, a unique flag or an ON DELETE added to tables.py changes the fingerprint (and so needs a step)."""
    base = schema.tables_fingerprint()
    ix = Index("ix_probe", tables.labels.c.value)
    try:
        assert schema.tables_fingerprint() != base
    finally:
        tables.labels.indexes.discard(ix)
    tables.labels.c.value.unique = True
    try:
        assert schema.tables_fingerprint() != base
    finally:
        tables.labels.c.value.unique = None
    fk = next(iter(tables.chunks.c.doc_id.foreign_keys))
    fk.ondelete, before = None, fk.ondelete
    try:
        assert schema.tables_fingerprint() != base
    finally:
        fk.ondelete = before
    assert schema.tables_fingerprint() == base


def test_a_new_store_takes_every_step_once(tmp_path):
    url = f"sqlite:///{tmp_path / 'new.db'}"
    engine = get_engine(url)
    assert [r.step for r in schema.ledger(engine)] == list(range(1, schema.LATEST + 1))
    assert all(r.app_version for r in schema.ledger(engine))
    assert schema.upgrade(create_engine(url)) == []  # a second process opening it takes no step
    names = set(inspect(engine).get_table_names())
    assert set(tables.metadata.tables) <= names and "chunks_fts" in names


def test_a_store_from_a_newer_version_is_refused_with_a_reason(tmp_path):
    url = f"sqlite:///{tmp_path / 'newer.db'}"
    engine = get_engine(url)
    with engine.begin() as c:
        c.execute(insert(tables.schema_ledger).values(step=schema.LATEST + 1, name="from the future", applied_at=0.0))
    with pytest.raises(UserError, match="newer version"):
        schema.upgrade(create_engine(url))


def test_a_sqlite_store_made_by_main_before_the_ledger_opens_and_upgrades(tmp_path):
    home = tmp_path / "home"
    with tarfile.open(FIXTURES / "store_before_ledger.tar.gz") as tar:
        tar.extractall(home, filter="data")
    with sqlite3.connect(home / "nepaqa.db") as con:  # as main left it: no ledger
        assert "schema_ledger" not in {r[0] for r in con.execute("SELECT name FROM sqlite_master")}
    engine = get_engine(f"sqlite:///{home / 'nepaqa.db'}")
    assert [r.step for r in schema.ledger(engine)] == list(range(1, schema.LATEST + 1))
    assert _counts(engine) == ROWS
    # the second pass's fp32 vectors (4 rows) are dropped, and the store says so
    assert "exact_vectors" not in inspect(engine).get_table_names()
    assert schema.notes(engine) == [
        "step 7: dropped 4 stored fp32 vectors that an earlier version's second pass ('prepare search') made; "
        "searches rank by the vectors made at ingest, and every document stays searchable"]
    # what was stored reads back as before
    assert {lb.annotator for lb in ann.labels(engine)} == {"Ada Expert", "Ben Expert"}
    run = summarize("fixture-run", engine)
    assert run.answers == 4 and run.failures == 0 and set(run.scores) == {"local/extractive"}
    assert [r.run_id for r in ee.results(engine)] == ["exam-fixture"]
    engine.dispose()
    # the whole app over it: listed, searched (full-text index and Chroma), its job listed
    env = {**os.environ, "NEPAQA_HOME": str(home)}

    def cli(*args: str, said: list | None = None) -> object:
        out = subprocess.run([sys.executable, "-m", "lib", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                             timeout=300)
        assert out.returncode == 0, out.stderr[-1500:]
        if said is not None:
            said.append(out.stderr)
        return json.loads(out.stdout)

    [doc] = cli("docs")
    assert doc["name"] == "tiny_eis" and doc["chunks"] == 4
    assert doc["metadata"]["lead_agency"]["value"] == "U.S. Army Corps of Engineers"
    for method in ("lexical", "dense", "hybrid"):
        hits = cli("search", "--all", "--method", method, "-k", "2", "how many acres of wetland are restored")
        assert hits and hits[0]["doc_id"] == doc["doc_id"] and "240 acres" in hits[0]["text"], method
    assert [j["kind"] for j in cli("jobs")] == ["ingest"]
    said: list[str] = []
    [checked] = cli("check", said=said)
    assert checked["ok"] and checked["same_embedder_as_queries"], checked  # its int8 vectors are today's kind
    assert "note: this store's upgrade, step 7: dropped 4 stored fp32 vectors" in said[0]


def test_a_store_at_step_6_drops_the_second_pass_vectors_and_says_how_many(tmp_path):
    """The most common old store: one the ledger already knew (at step 6, before the ledger had notes), holding
    the second pass's fp32 vectors. Opening it takes step 7: the table goes, the note says how many rows, the
    documents stay."""
    url = f"sqlite:///{tmp_path / 'step6.db'}"
    engine = get_engine(url)
    with engine.begin() as c:  # back to step 6: the ledger without its note column, and the old table with rows
        c.execute(text("DELETE FROM schema_ledger WHERE step = 7"))
        c.execute(text("ALTER TABLE schema_ledger DROP COLUMN note"))
        c.execute(text("CREATE TABLE exact_vectors (doc_id VARCHAR(64) NOT NULL, idx INTEGER NOT NULL, model "
                       "VARCHAR(200) NOT NULL, text_sha VARCHAR(64) NOT NULL, vector BLOB NOT NULL, "
                       "PRIMARY KEY (doc_id, idx, model))"))
        for i in range(3):
            c.execute(text("INSERT INTO exact_vectors VALUES ('d1', :i, 'm (onnx)', 'sha', x'00')"), {"i": i})
    engine.dispose()
    reopened = create_engine(url)
    assert schema.upgrade(reopened) == [7]
    assert "exact_vectors" not in inspect(reopened).get_table_names()
    assert [n.split(" stored")[0] for n in schema.notes(reopened)] == ["step 7: dropped 3"]
    assert schema.upgrade(create_engine(url)) == []  # taken once


def test_a_postgresql_store_made_by_main_before_the_ledger_opens_and_upgrades(pg_url):
    dump = gzip.decompress((FIXTURES / "store_before_ledger.pg.sql.gz").read_bytes()).decode("utf-8")
    raw = create_engine(pg_url)
    with raw.begin() as c:  # the dump as psql would run it (it sets its own search path)
        c.exec_driver_sql(dump)
    raw.dispose()
    engine = get_engine(pg_url)
    assert [r.step for r in schema.ledger(engine)] == list(range(1, schema.LATEST + 1))
    assert _counts(engine) == ROWS
    assert "exact_vectors" not in inspect(engine).get_table_names()
    assert [n.split(" stored")[0] for n in schema.notes(engine)] == ["step 7: dropped 4"]
    hits = lexical.search(engine, None, "acres of wetland restored", 2)
    assert hits and hits[0][1] in range(4)
    with engine.connect() as c:
        assert c.execute(text("SELECT count(*) FROM chunk_lexemes")).scalar() == 4
    assert schema.upgrade(create_engine(pg_url)) == []

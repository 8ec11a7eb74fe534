import pytest

from lib.collection.document_store import DocumentStore
from lib.collection.maintenance import Repaired
from lib.collection.vectors import VectorIndex, make_client
from lib.core.errors import UserError
from lib.storage.engine import get_engine
from tests.conftest import SAMPLE_PDF

PARAGRAPH = (
    "The proposed action would construct an interceptor site with launch facilities, support buildings and "
    "access roads. Wetlands near the site would be avoided where possible. Noise from construction would be "
    "temporary. The agency consulted the state historic preservation office about cultural resources. "
)


@pytest.fixture
def fresh(tmp_path, services):
    """A DocumentStore on its own Chroma folder and SQLite file, sharing the session's embedder."""
    index = VectorIndex(make_client("", str(tmp_path / "chroma")), services.docs.index.embedder)
    return DocumentStore(index, get_engine(f"sqlite:///{tmp_path / 'db.sqlite'}"))


def test_sample_ingest_summary(sample_doc, services):
    assert sample_doc.pages == 74
    assert sample_doc.chunks > 50
    assert sample_doc.tokens > 10_000 and sample_doc.chars > 100_000
    assert services.docs.index.count(sample_doc.doc_id) == sample_doc.chunks
    emb = services.docs.index.embedder
    chunks = services.docs.chunks(sample_doc.doc_id)
    assert max(emb.count_tokens(c.text) for c in chunks) <= emb.max_tokens
    assert all(1 <= c.page_start <= c.page_end <= 74 for c in chunks)


def test_reingest_same_file_is_idempotent(sample_doc, services):
    again = services.docs.ingest_file(str(SAMPLE_PDF))
    assert again.skipped and again.doc_id == sample_doc.doc_id
    assert services.docs.index.count(sample_doc.doc_id) == sample_doc.chunks
    assert [d.doc_id for d in services.docs.list()].count(sample_doc.doc_id) == 1


def test_failure_halfway_leaves_nothing_and_spares_others(fresh, pdf_factory, monkeypatch):
    keep = fresh.ingest_file(str(pdf_factory("keep.pdf", [PARAGRAPH * 3])))
    before = fresh.index.count()
    real_add = fresh.index.collection.add
    calls = {"n": 0}

    def flaky_add(**kw):
        calls["n"] += 1
        real_add(**kw)  # the vectors land, then the process is interrupted
        raise KeyboardInterrupt

    monkeypatch.setattr(fresh.index.collection, "add", flaky_add)
    with pytest.raises(KeyboardInterrupt):
        fresh.ingest_file(str(pdf_factory("broken.pdf", [PARAGRAPH * 4, "other " + PARAGRAPH * 2])))
    monkeypatch.undo()
    assert calls["n"] == 1
    assert [d.doc_id for d in fresh.list()] == [keep.doc_id]
    assert fresh.index.count() == before == keep.chunks


def test_hard_kill_leftovers_are_repaired(fresh, pdf_factory):
    doc = fresh.ingest_file(str(pdf_factory("a.pdf", [PARAGRAPH * 3])))
    emb = fresh.index.embedder
    # what a kill between the vector write and the database commit leaves behind
    fresh.index.add("deadbeef0000", ["orphan-1"], ["orphan text"], emb.embed(["orphan text"]),
                    [{"gen": 1, "idx": 0, "page_start": 1, "page_end": 1}])
    assert fresh.repair() == Repaired(removed=1, skipped_live=[])
    assert fresh.index.count() == doc.chunks


def test_reindex_changes_chunks_without_stale_vectors(fresh, pdf_factory):
    doc = fresh.ingest_file(str(pdf_factory("r.pdf", [PARAGRAPH * 6, PARAGRAPH * 6])), chunk_size=200, chunk_overlap=0)
    small = fresh.reindex(doc.doc_id, 64, 8)
    assert small.chunks > doc.chunks
    assert fresh.index.count(doc.doc_id) == small.chunks == len(fresh.chunks(doc.doc_id))
    assert fresh.get(doc.doc_id).chunk_size == 64


def test_delete_removes_only_that_document(fresh, pdf_factory):
    a = fresh.ingest_file(str(pdf_factory("a.pdf", [PARAGRAPH])))
    b = fresh.ingest_file(str(pdf_factory("b.pdf", ["Different text about air quality permits. " * 20])))
    fresh.delete(a.doc_id)
    assert [d.doc_id for d in fresh.list()] == [b.doc_id]
    assert fresh.index.count(a.doc_id) == 0 and fresh.index.count(b.doc_id) == b.chunks
    assert fresh.pages(a.doc_id) == [] and fresh.chunks(a.doc_id) == []
    with pytest.raises(UserError, match="No indexed document"):
        fresh.delete(a.doc_id)


def test_bad_files_change_nothing(fresh, bad_files):
    fresh.ingest_file(str(bad_files["good"]))
    before = (fresh.index.count(), [d.doc_id for d in fresh.list()])
    for kind in ("corrupt", "encrypted", "scanned", "zero_pages", "empty", "not_pdf"):
        with pytest.raises(UserError):
            fresh.ingest_file(str(bad_files[kind]))
    assert (fresh.index.count(), [d.doc_id for d in fresh.list()]) == before


def test_partly_scanned_pdf_is_indexed_with_empty_pages_named(fresh, pdf_factory):
    res = fresh.ingest_file(str(pdf_factory("part.pdf", [PARAGRAPH, "", PARAGRAPH])))
    assert res.empty_pages == [2] and res.chunks >= 1
    assert fresh.get(res.doc_id).empty_pages == [2]

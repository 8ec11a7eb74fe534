"""Exact re-scoring (lib/retrieval/rescoring.py): dense search over int8 vectors returns the exact model's order and scores,
each chunk's exact vector is made once and follows its document, and a refused cache write loses nothing."""
from __future__ import annotations

import logging
import time

import numpy as np
import pytest
from sqlalchemy import func, select, update

from lib.collection.document_store import DocumentStore
from lib.collection.vectors import VectorIndex, make_client
from lib.models.embedding import Embedder
from lib.retrieval import rescoring
from lib.retrieval.retriever import Retriever
from lib.storage import tables
from lib.storage.engine import get_engine

QUESTIONS = [
    "What are the impacts on groundwater at the FTD site?",
    "Which wetlands would be affected by construction?",
    "What mitigation is proposed for noise during construction?",
    "How many acres of forest would be cleared?",
    "What are the potential impacts to cultural resources?",
]

PAGES = [
    "Caribou calving grounds lie north of the proposed pad. Seismic surveys would disturb calving in May and June. "
    "Helicopter traffic would be routed around the calving area.",
    "Permafrost thaw under the gravel road could change drainage. Culverts would be sized for spring breakup flows.",
    "Wetland delineation found 14 acres of emergent wetland near the access road. Fill would be avoided where "
    "possible and compensatory mitigation would replace unavoidable losses.",
    "Construction noise would reach 85 dBA at the camp. Quiet hours run from 10 p.m. to 6 a.m.",
]


def exact_scores(texts: list[str], query: str) -> np.ndarray:
    """Today's vectors (torch), the reference re-scoring must reproduce."""
    emb = Embedder()
    return emb.embed(texts) @ emb.embed_query(query)


@pytest.fixture(scope="module")
def torch_sample_scores(services, sample_doc):
    chunks = services.docs.chunks(sample_doc.doc_id)
    emb = Embedder()
    vecs = emb.embed([c.text for c in chunks])
    return {q: vecs @ emb.embed_query(q) for q in QUESTIONS}


def test_dense_search_over_int8_gives_the_exact_order_and_scores(services, sample_doc, torch_sample_scores):
    info = services.docs.get(sample_doc.doc_id)
    assert services.docs.index.embedder.backend == "onnx-int8" and rescoring.applies(services.docs.index)
    live, sizes = {info.doc_id: info.gen}, {info.doc_id: info.chunks}
    r = services.retriever
    for q in QUESTIONS:
        truth = torch_sample_scores[q]
        got = r._dense(live, sizes, q, 20, False)
        idx = [i for _, i, _ in got]
        # the 20 best by today's vectors, in today's order, with today's scores
        assert idx == [int(i) for i in np.argsort(-truth)[:20]], q
        assert np.allclose([s for _, _, s in got], truth[idx], atol=1e-4)
    # the check has teeth: without re-scoring, the int8 scores are not today's
    rescoring.ENABLED = False
    try:
        raw = r._dense(live, sizes, QUESTIONS[0], 20, False)
    finally:
        rescoring.ENABLED = True
    diffs = np.abs(np.array([s for _, _, s in raw]) - torch_sample_scores[QUESTIONS[0]][[i for _, i, _ in raw]])
    assert diffs.max() > 1e-3


@pytest.fixture
def small_store(tmp_path, services):
    index = VectorIndex(make_client("", str(tmp_path / "chroma")), services.docs.index.embedder)
    return DocumentStore(index, get_engine(f"sqlite:///{tmp_path / 's.db'}"))


def stored(engine, doc_id: str) -> int:
    ev = tables.exact_vectors
    with engine.connect() as c:
        return int(c.execute(select(func.count()).select_from(ev).where(ev.c.doc_id == doc_id)).scalar())


def test_exact_vectors_are_made_once_and_follow_the_chunks(small_store, pdf_factory, monkeypatch):
    docs = small_store
    doc = docs.ingest_file(str(pdf_factory("arctic.pdf", PAGES)), chunk_size=40, chunk_overlap=0)
    assert doc.chunks >= 4
    exact = rescoring.exact_model(docs.index)
    embedded: list[int] = []
    real = exact.embed
    monkeypatch.setattr(exact, "embed", lambda texts, **kw: embedded.append(len(texts)) or real(texts, **kw))
    r = Retriever(docs)
    rescoring._recent.clear()
    hits = r.search(doc.doc_id, "caribou calving disturbance", 3, "dense")
    assert sum(embedded) - 1 == doc.chunks == stored(docs.engine, doc.doc_id)  # the query, then every chunk
    texts = [c.text for c in docs.chunks(doc.doc_id)]
    truth = exact_scores(texts, "caribou calving disturbance")
    assert [h.chunk.index for h in hits] == [int(i) for i in np.argsort(-truth)[:3]]
    assert np.allclose([h.score for h in hits], np.sort(truth)[::-1][:3], atol=1e-4)

    embedded.clear()
    assert [h.chunk.index for h in r.search(doc.doc_id, "caribou calving disturbance", 3, "dense")] == \
        [h.chunk.index for h in hits]
    assert embedded == [1]  # the query only: the chunks' exact vectors come from the store

    # a stored vector whose text no longer matches is made again, and only that one
    ev = tables.exact_vectors
    with docs.engine.begin() as c:
        c.execute(update(ev).where((ev.c.doc_id == doc.doc_id) & (ev.c.idx == 0)).values(text_sha="stale"))
    rescoring._recent.clear()  # this process's recent vectors too: as in another process
    embedded.clear()
    r.search(doc.doc_id, "caribou calving disturbance", 3, "dense")
    assert embedded == [1, 1]

    # re-indexing replaces the chunks: their exact vectors go with them, and the next search makes the new ones
    again = docs.reindex(doc.doc_id, 60, 0)
    assert stored(docs.engine, doc.doc_id) == 0
    r.search(doc.doc_id, "wetland fill", 2, "hybrid")
    assert stored(docs.engine, doc.doc_id) == again.chunks
    docs.delete(doc.doc_id)
    assert stored(docs.engine, doc.doc_id) == 0


def test_only_the_candidates_get_exact_vectors(small_store, monkeypatch):
    """A search makes exact vectors for its 2 × 50 candidates, not for the whole document."""
    from tests.conftest import SAMPLE_PDF

    docs = small_store
    doc = docs.ingest_file(str(SAMPLE_PDF))
    assert doc.chunks > 50 * rescoring.DEPTH
    exact = rescoring.exact_model(docs.index)
    embedded: list[int] = []
    real = exact.embed
    monkeypatch.setattr(exact, "embed", lambda texts, **kw: embedded.append(len(texts)) or real(texts, **kw))
    rescoring._recent.clear()
    Retriever(docs).search(doc.doc_id, "noise from construction at the FTD site", 5, "dense")
    assert embedded == [1, 50 * rescoring.DEPTH] and stored(docs.engine, doc.doc_id) == 50 * rescoring.DEPTH


def test_a_search_while_another_writer_holds_the_database(small_store, pdf_factory, caplog):
    """SQLite locked by another writer: the search waits about a second, returns the exact results anyway, and
    the vectors are stored by a later search."""
    import sqlite3

    docs = small_store
    doc = docs.ingest_file(str(pdf_factory("arctic.pdf", PAGES)), chunk_size=40, chunk_overlap=0)
    rescoring._recent.clear()
    truth = exact_scores([c.text for c in docs.chunks(doc.doc_id)], "construction noise at the camp")
    other = sqlite3.connect(docs.engine.url.database, timeout=0)
    other.execute("BEGIN IMMEDIATE")  # holds the write lock
    try:
        with caplog.at_level(logging.WARNING, logger="lib.retrieval.rescoring"):
            started = time.perf_counter()
            hits = Retriever(docs).search(doc.doc_id, "construction noise at the camp", 2, "dense")
            waited = time.perf_counter() - started
    finally:
        other.rollback()
        other.close()
    assert "not stored (OperationalError)" in caplog.text
    assert waited < 5  # about a second for the writer, not the store's 30 s
    assert [h.chunk.index for h in hits] == [int(i) for i in np.argsort(-truth)[:2]]
    assert stored(docs.engine, doc.doc_id) == 0
    with docs.engine.connect() as c:  # the pooled connection waits as long as before for everything else
        assert c.exec_driver_sql("PRAGMA busy_timeout").scalar() == 30000
    # the next search, with the vectors still in this process's memory, writes them
    Retriever(docs).search(doc.doc_id, "a different question about caribou", 2, "dense")
    assert stored(docs.engine, doc.doc_id) == doc.chunks


def test_two_workers_reaching_the_same_new_chunks_embed_them_once(small_store, pdf_factory, monkeypatch):
    from concurrent.futures import ThreadPoolExecutor

    docs = small_store
    doc = docs.ingest_file(str(pdf_factory("arctic.pdf", PAGES)), chunk_size=40, chunk_overlap=0)
    rescoring._recent.clear()
    exact = rescoring.exact_model(docs.index)
    embedded: list[int] = []
    real = exact.embed
    monkeypatch.setattr(exact, "embed", lambda texts, **kw: embedded.append(len(texts)) or real(texts, **kw))
    r = Retriever(docs)
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda q: [h.chunk.index for h in r.search(doc.doc_id, q, 2, "dense")],
                            ["caribou calving", "caribou calving", "wetland fill", "noise at the camp"]))
    assert got[0] == got[1]
    assert sum(embedded) == 4 + doc.chunks  # four queries, each chunk once


def test_candidates_whose_chunks_vanished_go_last(small_store, pdf_factory, monkeypatch):
    docs = small_store
    doc = docs.ingest_file(str(pdf_factory("arctic.pdf", PAGES)), chunk_size=40, chunk_overlap=0)
    info = docs.get(doc.doc_id)
    real = rescoring.vectors
    monkeypatch.setattr(rescoring, "vectors", lambda engine, exact, keys: {k: v for k, v in
                                                                          real(engine, exact, keys).items() if k[1] != 0})
    got = rescoring.dense(docs, {info.doc_id: info.gen}, {info.doc_id: info.chunks}, "caribou calving", 50, False)
    assert len(got) == info.chunks and got[-1][1] == 0  # the gone chunk 0 last, the list not emptied
    assert [s for _, i, s in got[:-1]] == sorted((s for _, i, s in got[:-1]), reverse=True)


def test_a_write_for_a_deleted_document_is_dropped(small_store):
    docs = small_store
    exact = rescoring.exact_model(docs.index)
    vec = exact.embed(["x"])[0]
    # the foreign key refuses it; nothing is kept for a later retry, and nothing is stored
    assert rescoring._save(docs.engine, rescoring.label(exact), [(("no-such-doc", 0), "sha", vec)]) is True
    assert stored(docs.engine, "no-such-doc") == 0
    # a chunk that is gone (its document deleted between the vector search and the re-scoring) is left out
    assert rescoring.vectors(docs.engine, exact, [("no-such-doc", 0)]) == {}


def test_exact_vectors_in_postgresql(tmp_path, services, pdf_factory, pg_url):
    index = VectorIndex(make_client("", str(tmp_path / "chroma")), services.docs.index.embedder)
    docs = DocumentStore(index, get_engine(pg_url))
    doc = docs.ingest_file(str(pdf_factory("arctic.pdf", PAGES)), chunk_size=40, chunk_overlap=0)
    r = Retriever(docs)
    first = r.search(doc.doc_id, "permafrost thaw drainage", 2, "dense")
    assert stored(docs.engine, doc.doc_id) == doc.chunks
    again = r.search(doc.doc_id, "permafrost thaw drainage", 2, "dense")
    assert [h.chunk.index for h in again] == [h.chunk.index for h in first]
    assert [round(h.score, 5) for h in again] == [round(h.score, 5) for h in first]
    truth = exact_scores([c.text for c in docs.chunks(doc.doc_id)], "permafrost thaw drainage")
    assert [h.chunk.index for h in first] == [int(i) for i in np.argsort(-truth)[:2]]
    assert np.allclose([h.score for h in first], np.sort(truth)[::-1][:2], atol=1e-4)


def test_an_int8_export_keeps_its_fp32_model_for_rescoring(tmp_path, monkeypatch):
    """The exact model comes with the int8 export, not from a second export."""
    from pathlib import Path

    from lib.models.embedding import default_model_path
    from lib.models.embedding_onnx import cache_folder, export

    monkeypatch.setenv("NEPAQA_MODEL_CACHE", str(tmp_path / "models"))
    model = Path(default_model_path())
    int8, spent = export(model, "onnx-int8")
    assert int8.exists() and spent > 0
    fp32 = cache_folder(model, "onnx") / "model.onnx"
    assert fp32.exists() and fp32.stat().st_size > 2 * int8.stat().st_size  # fp32 weights, four bytes each
    assert export(model, "onnx") == (fp32, 0.0)
    assert not list((tmp_path / "models").rglob(".export-*"))  # no working folder left behind


def test_runs_name_the_rescoring_and_score_with_the_exact_model(services, tmp_path):
    """A run's manifest says re-scoring was on (a run made before it is not resumed with it), and semantic scores
    use the exact vectors whatever the ingest backend."""
    from lib.core.errors import UserError
    from lib.evaluation.benchmark.runner import _embed_fn
    from lib.qa import manifest

    label = manifest.embedder_name(services)
    assert label == "all-MiniLM-L6-v2 (onnx-int8, exact re-scoring)"
    assert rescoring.label(rescoring.exact_model(services.docs.index)).startswith("all-MiniLM-L6-v2 (onnx ")
    engine = get_engine(f"sqlite:///{tmp_path / 'm.db'}")
    old = {"kind": "benchmark", "embedder": "all-MiniLM-L6-v2 (onnx-int8)"}
    manifest.save("run-before", "benchmark", old, engine)
    with pytest.raises(UserError, match=r"embedder: .*onnx-int8\)\" → .*exact re-scoring\)\".*no setting turns back"):
        manifest.check_resume("run-before", "benchmark", {**old, "embedder": label}, engine)
    texts = ["Wetland fill would be avoided.", "The project would not affect caribou calving."]
    assert np.allclose(_embed_fn(services)(texts), Embedder().embed(texts), atol=1e-4)
    assert not np.allclose(services.docs.index.embedder.embed(texts), Embedder().embed(texts), atol=1e-4)


def test_prepare_search_makes_every_exact_vector_so_the_first_search_embeds_only_its_query(small_store, monkeypatch):
    """A fill (``python -m lib prepare-search``) stores the exact vector of every chunk, in steps that a caller
    may stop between (what is stored stays; the next fill goes on from there); afterwards the first search over
    the document embeds its query and nothing else, with the same order as a search that made its own."""
    from tests.conftest import SAMPLE_PDF

    docs = small_store
    doc = docs.ingest_file(str(SAMPLE_PDF))
    rescoring._recent.clear()
    steps = []
    got = rescoring.fill(docs, stop=lambda: len(steps) >= 2, progress=lambda *a: steps.append(a))
    assert got["made"] == 2 * rescoring.FILL_BATCH and got.get("stopped") == 1
    assert stored(docs.engine, doc.doc_id) == 2 * rescoring.FILL_BATCH
    got = rescoring.fill(docs)
    assert got == {"made": doc.chunks - 2 * rescoring.FILL_BATCH, "present": 2 * rescoring.FILL_BATCH,
                   "chunks": doc.chunks}
    assert stored(docs.engine, doc.doc_id) == doc.chunks and rescoring.missing(docs, doc.doc_id) == []
    assert rescoring.fill(docs)["made"] == 0  # nothing left to make
    exact = rescoring.exact_model(docs.index)
    embedded: list[int] = []
    real = exact.embed
    monkeypatch.setattr(exact, "embed", lambda texts, **kw: embedded.append(len(texts)) or real(texts, **kw))
    rescoring._recent.clear()  # as in a fresh process: the vectors come from the store
    query = "noise from construction at the FTD site"
    filled = [h.chunk.index for h in Retriever(docs).search(doc.doc_id, query, 5, "hybrid")]
    assert embedded == [1]
    texts = [c.text for c in docs.chunks(doc.doc_id)]
    truth = exact_scores(texts, query)
    dense = [h.chunk.index for h in Retriever(docs).search(doc.doc_id, query, 3, "dense")]
    assert dense == [int(i) for i in np.argsort(-truth)[:3]] and len(filled) == 5

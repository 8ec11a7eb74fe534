"""Exact re-scoring (lib/retrieval/rescoring.py): dense search over int8 vectors returns the exact model's order and scores
once the document's exact vectors are made (the fill), never embeds a chunk itself (the first search after an ingest
embeds only its query), each chunk's exact vector is made once and follows its document, and a refused write
loses nothing."""
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


def counting(monkeypatch, exact) -> list[int]:
    """Record how many texts each call of the exact model embeds."""
    embedded: list[int] = []
    real = exact.embed
    monkeypatch.setattr(exact, "embed", lambda texts, **kw: embedded.append(len(texts)) or real(texts, **kw))
    return embedded


def test_a_search_never_embeds_a_chunk_and_the_fill_makes_each_once(small_store, pdf_factory, monkeypatch):
    """Right after an ingest a search embeds its query only, scoring chunks without an exact vector by the exact
    query against their int8 vectors; the fill makes every chunk's vector once, and then the same search gives
    the exact order and scores. A stale vector (its text changed) is not used, and the fill remakes that one only;
    a re-index and a delete take a document's vectors with it."""
    docs = small_store
    pdf = str(pdf_factory("arctic.pdf", PAGES))
    doc = docs.ingest_file(pdf, chunk_size=40, chunk_overlap=0)
    assert doc.chunks >= 4
    exact = rescoring.exact_model(docs.index)
    embedded = counting(monkeypatch, exact)
    r = Retriever(docs)
    rescoring._recent.clear()
    query = "caribou calving disturbance"
    texts = [c.text for c in docs.chunks(doc.doc_id)]
    truth = exact_scores(texts, query)
    before = r.search(doc.doc_id, query, doc.chunks, "dense")
    assert embedded == [1] and stored(docs.engine, doc.doc_id) == 0  # the query only; nothing made or stored
    q = exact.embed_query(query)
    int8 = docs.index.embedder.embed(texts) @ q  # the exact query against each chunk's int8 vector
    assert np.allclose([h.score for h in before], int8[[h.chunk.index for h in before]], atol=1e-5)
    assert not np.allclose([h.score for h in before], truth[[h.chunk.index for h in before]], atol=1e-4)

    embedded.clear()
    assert rescoring.fill(docs, [doc.doc_id]) == {"made": doc.chunks, "present": 0, "chunks": doc.chunks, "left": 0}
    assert sum(embedded) == doc.chunks == stored(docs.engine, doc.doc_id)
    embedded.clear()
    rescoring._recent.clear()  # as in another process: the vectors come from the store
    hits = r.search(doc.doc_id, query, 3, "dense")
    assert embedded == [1]
    assert [h.chunk.index for h in hits] == [int(i) for i in np.argsort(-truth)[:3]]
    assert np.allclose([h.score for h in hits], np.sort(truth)[::-1][:3], atol=1e-4)

    # a stored vector whose text no longer matches is not used, and the fill makes that one again
    ev = tables.exact_vectors
    top = hits[0].chunk.index
    with docs.engine.begin() as c:
        c.execute(update(ev).where((ev.c.doc_id == doc.doc_id) & (ev.c.idx == top)).values(text_sha="stale"))
    rescoring._recent.clear()
    embedded.clear()
    stale = {h.chunk.index: h.score for h in r.search(doc.doc_id, query, doc.chunks, "dense")}
    assert embedded == [1] and abs(stale[top] - int8[top]) < 1e-5
    assert rescoring.missing(docs, doc.doc_id) == [top]
    embedded.clear()
    assert rescoring.fill(docs, [doc.doc_id])["made"] == 1 and embedded == [1]

    # re-indexing replaces the chunks: their exact vectors go with them, and the fill makes the new ones
    again = docs.reindex(doc.doc_id, 60, 0)
    assert stored(docs.engine, doc.doc_id) == 0
    rescoring.fill(docs)
    assert stored(docs.engine, doc.doc_id) == again.chunks
    docs.delete(doc.doc_id)
    assert stored(docs.engine, doc.doc_id) == 0
    # the same file added again: this process still has the vectors in memory, and the fill stores them (it
    # stored nothing, and kept the page saying "0 of N", when it took them from memory for stored)
    back = docs.ingest_file(pdf, chunk_size=60, chunk_overlap=0)
    assert back.doc_id == doc.doc_id
    embedded.clear()
    assert rescoring.fill(docs, [back.doc_id])["left"] == 0 and embedded == []
    assert stored(docs.engine, back.doc_id) == back.chunks


def test_the_first_search_after_an_ingest_embeds_only_its_query(small_store, monkeypatch):
    """On the sample (257 chunks), before any exact vector: hybrid and dense searches embed the query and nothing
    else, however many candidates they take."""
    from tests.conftest import SAMPLE_PDF

    docs = small_store
    doc = docs.ingest_file(str(SAMPLE_PDF))
    assert doc.chunks > 50 * rescoring.DEPTH
    embedded = counting(monkeypatch, rescoring.exact_model(docs.index))
    rescoring._recent.clear()
    for method in ("dense", "hybrid"):
        assert len(Retriever(docs).search(doc.doc_id, "noise from construction at the FTD site", 5, method)) == 5
    assert embedded == [1, 1] and stored(docs.engine, doc.doc_id) == 0


def test_a_fill_while_another_writer_holds_the_database(small_store, pdf_factory, caplog):
    """SQLite locked by another writer: a fill step waits about a second, keeps what it made, and the next step
    (or fill) writes it without embedding it again."""
    import sqlite3

    docs = small_store
    doc = docs.ingest_file(str(pdf_factory("arctic.pdf", PAGES)), chunk_size=40, chunk_overlap=0)
    rescoring._recent.clear()
    other = sqlite3.connect(docs.engine.url.database, timeout=0)
    other.execute("BEGIN IMMEDIATE")  # holds the write lock
    try:
        with caplog.at_level(logging.WARNING, logger="lib.retrieval.rescoring"):
            started = time.perf_counter()
            made = rescoring.fill(docs, [doc.doc_id])["made"]
            waited = time.perf_counter() - started
    finally:
        other.rollback()
        other.close()
    assert "not stored (OperationalError)" in caplog.text
    assert waited < 5 and made == doc.chunks  # about a second for the writer, not the store's 30 s
    assert stored(docs.engine, doc.doc_id) == 0
    with docs.engine.connect() as c:  # the pooled connection waits as long as before for everything else
        assert c.exec_driver_sql("PRAGMA busy_timeout").scalar() == 30000
    exact = rescoring.exact_model(docs.index)
    embedded: list[int] = []
    real = exact.embed
    exact.embed = lambda texts, **kw: embedded.append(len(texts)) or real(texts, **kw)
    try:
        rescoring.fill(docs, [doc.doc_id])  # the vectors still in this process's memory: written, not made again
    finally:
        del exact.embed
    assert embedded == [] and stored(docs.engine, doc.doc_id) == doc.chunks


def test_two_fills_at_once_embed_each_chunk_once(small_store, pdf_factory, monkeypatch):
    """The background job and `python -m lib prepare-search` (or two workers) filling at the same time."""
    from concurrent.futures import ThreadPoolExecutor

    docs = small_store
    doc = docs.ingest_file(str(pdf_factory("arctic.pdf", PAGES)), chunk_size=40, chunk_overlap=0)
    rescoring._recent.clear()
    embedded = counting(monkeypatch, rescoring.exact_model(docs.index))
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda _: rescoring.fill(docs, [doc.doc_id]), range(2)))
    assert sum(embedded) == doc.chunks == stored(docs.engine, doc.doc_id)  # each chunk once


def test_candidates_whose_chunks_vanished_go_last(small_store, pdf_factory, monkeypatch):
    docs = small_store
    doc = docs.ingest_file(str(pdf_factory("arctic.pdf", PAGES)), chunk_size=40, chunk_overlap=0)
    rescoring.fill(docs, [doc.doc_id])
    info = docs.get(doc.doc_id)
    real = rescoring.stored

    def without_chunk_0(engine, exact, keys):  # noqa: ANN001, ANN202 - chunk 0 deleted meanwhile
        vecs, gone = real(engine, exact, keys)
        return {k: v for k, v in vecs.items() if k[1] != 0}, gone | {k for k in keys if k[1] == 0}

    monkeypatch.setattr(rescoring, "stored", without_chunk_0)
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
    assert rescoring.fill(docs)["made"] == doc.chunks == stored(docs.engine, doc.doc_id)
    rescoring._recent.clear()
    first = r.search(doc.doc_id, "permafrost thaw drainage", 2, "dense")
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
    # the page's count names the same vectors without loading the model
    assert rescoring.label_unloaded(services.docs.index) == rescoring.label(rescoring.exact_model(services.docs.index))
    engine = get_engine(f"sqlite:///{tmp_path / 'm.db'}")
    old = {"kind": "benchmark", "embedder": "all-MiniLM-L6-v2 (onnx-int8)"}
    manifest.save("run-before", "benchmark", old, engine)
    with pytest.raises(UserError, match=r"embedder: .*onnx-int8\)\" → .*exact re-scoring\)\".*no setting turns back"):
        manifest.check_resume("run-before", "benchmark", {**old, "embedder": label}, engine)
    texts = ["Wetland fill would be avoided.", "The project would not affect caribou calving."]
    assert np.allclose(_embed_fn(services)(texts), Embedder().embed(texts), atol=1e-4)
    assert not np.allclose(services.docs.index.embedder.embed(texts), Embedder().embed(texts), atol=1e-4)


def test_prepare_search_makes_every_exact_vector_so_the_first_search_embeds_only_its_query(small_store, monkeypatch):
    """A fill (``python -m lib prepare-search``, or the job after an ingest) stores the exact vector of every
    chunk, in steps that a caller may stop between (what is stored stays; the next fill goes on from there);
    afterwards the first search over the document embeds its query and nothing else, in the exact order."""
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
                   "chunks": doc.chunks, "left": 0}
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

"""Many EISs, one question: the persistent lexical index, scoped and balanced retrieval, section paths."""
import pytest
from sqlalchemy import text as sql

from lib.collection import bm25, lexical
from lib.collection.document_store import DocumentStore
from lib.collection.vectors import VectorIndex, make_client
from lib.retrieval.retriever import Retriever
from lib.storage import engine as engine_mod
from lib.storage.engine import get_engine

CARIBOU = ["The Porcupine caribou herd calves on the coastal plain each June. Calving grounds would be avoided by "
           "seasonal restrictions on drilling. " * 12,
           "Permafrost thaw under gravel pads is monitored with thermistors. " * 15]
WETLAND = ["Wetland delineation found two wetlands near the access road at Fort Drum. Mitigation would replace "
           "lost wetlands at a two-to-one ratio. " * 12,
           "Noise from construction would be temporary and below 65 dBA at the fence line. " * 15]


def make_store(tmp_path, services, url=None):
    index = VectorIndex(make_client("", str(tmp_path / "chroma")), services.docs.index.embedder)
    return DocumentStore(index, get_engine(url or f"sqlite:///{tmp_path / 'c.db'}"))


@pytest.fixture
def two_docs(tmp_path, services, pdf_factory):
    docs = make_store(tmp_path, services)
    a = docs.ingest_file(str(pdf_factory("caribou.pdf", CARIBOU)), name="Arctic Refuge Leasing EIS")
    b = docs.ingest_file(str(pdf_factory("wetland.pdf", WETLAND)), name="Fort Drum Interceptor EIS")
    return docs, a, b


def test_scope_is_honoured_and_hits_name_their_document(two_docs):
    docs, a, b = two_docs
    r = Retriever(docs)
    for method in ("hybrid", "dense", "lexical"):
        hits = r.search_scope([b.doc_id], "caribou calving grounds and construction noise", 5, method)
        assert hits and {h.doc_id for h in hits} == {b.doc_id}, method  # the scope wins over the better match
        top = r.search_scope(None, "caribou calving grounds", 3, method)
        assert top[0].doc_id == a.doc_id and top[0].doc_name == "Arctic Refuge Leasing EIS", method
    d = top[0].as_dict()
    assert set(d) >= {"doc_id", "doc_name", "page_start", "page_end", "section", "text", "score"}
    # bm25 stays an alias of lexical; k may be anything up to the chunks in scope
    assert r.search_scope(None, "wetlands", 10_000, "bm25")


def test_balanced_retrieval_covers_each_document(two_docs):
    docs, a, b = two_docs
    r = Retriever(docs)
    plain = r.search_scope(None, "caribou calving grounds on the coastal plain", 4, "hybrid")
    balanced = r.search_scope(None, "caribou calving grounds on the coastal plain", 4, "hybrid", balanced=True)
    assert {h.doc_id for h in balanced} == {a.doc_id, b.doc_id}
    assert [h.doc_id for h in balanced][:2] == [a.doc_id, b.doc_id]  # each document's best, in turn
    assert len(plain) == len(balanced) == 4


def test_balanced_retrieval_tops_up_a_document_the_shared_lists_missed(two_docs):
    """In a big scope a document may have no chunk in the rankers' shared top 50: balanced search then looks it
    up alone, so every document is still represented."""
    docs, a, b = two_docs
    r = Retriever(docs)
    shared = r._dense
    # the shared (two-document) list holds only a's chunks; b searched alone is answered as usual
    r._dense = lambda live, sizes, q, n, whole: [x for x in shared(live, sizes, q, n, whole)
                                                 if len(live) == 1 or x[0] == a.doc_id]
    assert {h.doc_id for h in r.search_scope([a.doc_id, b.doc_id], "caribou calving", 2, "dense")} == {a.doc_id}
    hits = r.search_scope([a.doc_id, b.doc_id], "caribou calving", 2, "dense", balanced=True)
    assert [h.doc_id for h in hits] == [a.doc_id, b.doc_id]
    assert hits[1].doc_file == "Fort Drum Interceptor EIS"


def test_lexical_index_follows_ingest_reindex_delete_and_interrupt(two_docs):
    docs, a, b = two_docs
    eng = docs.engine
    assert lexical.count(eng, a.doc_id) == a.chunks > 0
    small = docs.reindex(a.doc_id, 32, 4)
    assert lexical.count(eng, a.doc_id) == small.chunks > a.chunks
    # an interrupt during the vector write leaves the lexical index as it was
    original_add = docs.index.add

    def boom(*args, **kwargs):
        original_add(*args, **kwargs)
        raise KeyboardInterrupt

    docs.index.add = boom
    with pytest.raises(KeyboardInterrupt):
        docs.reindex(a.doc_id, 64, 8)
    docs.index.add = original_add
    assert lexical.count(eng, a.doc_id) == small.chunks == docs.get(a.doc_id).chunks
    docs.delete(a.doc_id)
    assert lexical.count(eng, a.doc_id) == 0 and lexical.count(eng, b.doc_id) == b.chunks


def test_lexical_index_survives_a_restart_without_a_rebuild(two_docs, services, tmp_path):
    docs, a, b = two_docs
    engine_mod._engine_for.cache_clear()  # a new process: new engine, new client, new retriever
    again = make_store(tmp_path, services)
    before = lexical.count(again.engine, b.doc_id)
    hits = lexical.search(again.engine, None, "wetland delineation Fort Drum", 3)
    assert before == b.chunks and hits and hits[0][0] == b.doc_id


def test_lexical_search_in_postgresql(tmp_path, services, pdf_factory, pg_url):  # noqa: F811
    docs = make_store(tmp_path, services, pg_url)
    b = docs.ingest_file(str(pdf_factory("w.pdf", WETLAND)), name="Fort Drum Interceptor EIS")
    a = docs.ingest_file(str(pdf_factory("c.pdf", CARIBOU)), name="Arctic Refuge Leasing EIS")
    hits = lexical.search(docs.engine, None, "caribou calving", 3)
    assert hits and hits[0][0] == a.doc_id
    assert {d for d, _, _ in lexical.search(docs.engine, [b.doc_id], "caribou noise", 5)} == {b.doc_id}
    assert Retriever(docs).search_scope(None, "permafrost thaw", 1, "hybrid")[0].doc_id == a.doc_id
    # both modes rank alike: the same documents in SQLite give the same list and scores
    lite = make_store(tmp_path / "lite", services)
    lite.ingest_file(str(pdf_factory("w.pdf", WETLAND)), name="Fort Drum Interceptor EIS")
    lite.ingest_file(str(pdf_factory("c.pdf", CARIBOU)), name="Arctic Refuge Leasing EIS")
    bm25._indexes.clear()  # as in a new process: PostgreSQL's segments from its chunks, SQLite's from FTS5
    names = {d.doc_id: d.name for store in (docs, lite) for d in store.list()}  # ids differ between the stores
    for q in ("caribou calving on the coastal plain", "wetland mitigation ratio near the road", "noise dBA"):
        pg, sqlite = ([(names[d], i, s) for d, i, s in lexical.search(store.engine, None, q, 10)]
                      for store in (docs, lite))
        assert pg == sqlite and len(pg) >= 2, q


def fts5_bm25(engine, doc_ids, query: str, n: int) -> list[tuple[str, int, float]]:
    """The ranking as SQLite FTS5 gives it (the SQL query lexical.search made before it ranked in memory)."""
    terms = lexical.query_terms(query)
    q = "body : (" + " OR ".join(f'"{t}"' for t in terms) + ")"
    if doc_ids is not None:
        q += " AND doc_id : (" + " OR ".join(f'"{d}"' for d in doc_ids) + ")"
    with engine.connect() as c:
        rows = c.execute(sql("SELECT doc_id, idx, bm25(chunks_fts, 1.0, 0.0) AS s FROM chunks_fts WHERE chunks_fts "
                              "MATCH :q ORDER BY s LIMIT :n"), {"q": q, "n": n}).fetchall()
    return [(r.doc_id, int(r.idx), -float(r.s)) for r in rows]


def test_the_lexical_ranking_is_fts5s_bm25(services, sample_doc, two_docs):
    """Ranked in memory, the lexical lists equal FTS5's own bm25 ranking, order and scores, over the whole
    collection and within a scope (statistics collection-wide, as in FTS5), for every sample question."""
    from lib.core import config
    from lib.evaluation.benchmark.dataset import load_items

    items, _ = load_items(config.SAMPLE_QUESTIONS)
    questions = list(dict.fromkeys(it.question for it in items))
    assert len(questions) > 100
    for docs, scopes in ((services.docs, [None, [sample_doc.doc_id]]), (two_docs[0], [None, [two_docs[2].doc_id]])):
        compared = 0
        for q in questions:
            for scope in scopes:
                ours, theirs = lexical.search(docs.engine, scope, q, 50), fts5_bm25(docs.engine, scope, q, 50)
                assert [x[:2] for x in ours] == [x[:2] for x in theirs], (q, scope)
                assert [x[2] for x in ours] == pytest.approx([x[2] for x in theirs], rel=1e-12), (q, scope)
                compared += len(theirs) > 0
        assert compared > len(questions) // 2  # most questions find something to compare


def test_lexical_segments_are_cached_per_generation(two_docs, monkeypatch):
    """A process that starts reads each document's segment from its file (not from the store); a re-index makes a
    new file and the next search removes the old one; a deleted document's file goes after an hour."""
    docs, a, b = two_docs
    bm25._indexes.clear()  # a process starting: the app reads every segment in the background
    Retriever(docs).warm().join(timeout=60)
    assert set(bm25.index_for(docs.engine)._segments) == {a.doc_id, b.doc_id}
    query = "wetland delineation and caribou calving"
    before = lexical.search(docs.engine, None, query, 10)
    index = bm25.index_for(docs.engine)
    gen = {d.doc_id: d.gen for d in docs.list()}
    assert sorted(p.name for p in index.folder.glob("*.npz")) == sorted(f"{d}-{g}.npz" for d, g in gen.items())
    fresh = bm25.Index(index.folder)  # a new process's

    def no_store(*_):  # noqa: ANN202
        raise AssertionError("read from the store")

    monkeypatch.setattr(bm25, "_load", no_store)
    segments = fresh.sync(docs.engine, gen, lambda c, d: gen[d])
    assert bm25.Index.rank(segments, None, lexical.query_terms(query), 10) == before
    monkeypatch.undo()
    # a damaged file (cut short) is removed and the segment built again from the store
    damaged = index.folder / f"{b.doc_id}-{gen[b.doc_id]}.npz"
    damaged.write_bytes(damaged.read_bytes()[:100])
    segments = bm25.Index(index.folder).sync(docs.engine, gen, lambda c, d: gen[d])
    assert bm25.Index.rank(segments, None, lexical.query_terms(query), 10) == before
    assert bm25.read(damaged, gen[b.doc_id]) is not None  # written whole again
    # a reload that finds another generation committed meanwhile is never ranked with
    assert bm25.Index(index.folder).sync(docs.engine, {a.doc_id: gen[a.doc_id] + 1}, lambda c, d: None) == {}
    assert bm25.Index.rank({}, None, ["wetland"], 5) == []  # nothing indexed: nothing found
    again = docs.reindex(a.doc_id, 32, 4)
    lexical.search(docs.engine, None, query, 10)
    assert sorted(p.name for p in index.folder.glob("*.npz")) == sorted(
        [f"{a.doc_id}-{docs.get(a.doc_id).gen}.npz", f"{b.doc_id}-{gen[b.doc_id]}.npz"])
    assert len(index.sync(docs.engine, {a.doc_id: docs.get(a.doc_id).gen, b.doc_id: gen[b.doc_id]},
                          lambda c, d: None)[a.doc_id].idx) == again.chunks
    docs.delete(a.doc_id)
    monkeypatch.setattr(bm25, "TIDY_AFTER_S", 0)
    lexical.search(docs.engine, None, query, 10)
    assert [p.name for p in index.folder.glob("*.npz")] == [f"{b.doc_id}-{gen[b.doc_id]}.npz"]


def test_chunks_carry_their_section_path(services, sample_doc):
    chunks = services.docs.chunks(sample_doc.doc_id)
    on_30 = next(c for c in chunks if c.page_start == 30)
    assert "ES.3.3.1 Affected Environment-FCTC Sites" in on_30.section
    assert on_30.section.startswith("ES.3.0 Affected Environment")
    hit = services.retriever.search(sample_doc.doc_id, "wetlands at FCTC Site 2", 1, "hybrid")[0]
    assert hit.as_dict()["section"]


def test_reindex_keeps_sections_and_pdf_metadata_and_a_reupload_keeps_a_missing_original(tmp_path, services,
                                                                                         pdf_factory):
    import pymupdf

    from lib.documents import metadata, originals

    # the outline's headings start lines of their pages, as in a real EIS (an entry found on no line is unsure)
    path = pdf_factory("outlined.pdf", ["3.4 Wildlife\nCaribou\n" + CARIBOU[0], "3.5 Soils\n" + CARIBOU[1]])
    with pymupdf.open(path) as d:
        d.set_toc([[1, "3.4 Wildlife", 1], [2, "Caribou", 1], [1, "3.5 Soils", 2]])
        d.set_metadata({"author": "Bureau of Land Management",  # read from the kept original on a re-index
                        "title": "Arctic Refuge Leasing Program Final Environmental Impact Statement"})
        d.save(tmp_path / "outlined2.pdf")
    docs = make_store(tmp_path, services)
    first = docs.ingest_file(str(tmp_path / "outlined2.pdf"))
    assert {c.section for c in docs.chunks(first.doc_id)} == {"3.4 Wildlife › Caribou", "3.5 Soils"}
    agency = metadata.get(first.doc_id, docs.engine)["lead_agency"]
    assert agency.evidence is not None
    assert (agency.value, agency.source, agency.evidence["property"]) == (
        "Bureau of Land Management", "pdf_metadata", "Author")
    again = docs.reindex(first.doc_id, 48, 8)
    assert again.chunks > first.chunks
    assert {c.section for c in docs.chunks(first.doc_id)} == {"3.4 Wildlife › Caribou", "3.5 Soils"}
    assert metadata.get(first.doc_id, docs.engine)["lead_agency"] == agency
    # a document indexed before originals were kept gets its original when the same file comes again
    originals.delete(first.doc_id)
    assert originals.path(first.doc_id) is None
    assert docs.ingest_file(str(tmp_path / "outlined2.pdf"), chunk_size=48, chunk_overlap=8).skipped
    assert originals.path(first.doc_id) is not None


def test_dense_scope_plans_agree_with_exact_search_and_skip_other_generations(tmp_path, services):
    """query_scope answers a wide scope unfiltered, a narrow one by chunk ids, and falls back to Chroma's metadata
    filter; each must give exactly the brute-force top k of the scope's live vectors."""
    import numpy as np

    from lib.collection import vectors as index_mod

    idx = VectorIndex(make_client("", str(tmp_path / "chroma")), services.docs.index.embedder)
    rng = np.random.default_rng(7)
    dim = idx.embedder.dimension
    live, sizes, vecs = {}, {}, {}
    for d in range(8):
        doc, gen, n = f"doc{d}", 100 + d, 40
        v = rng.standard_normal((n, dim)).astype(np.float32)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        idx.add(doc, [index_mod.chunk_id(doc, gen, i) for i in range(n)], [f"t{i}" for i in range(n)], v,
                [{"gen": gen, "idx": i} for i in range(n)])
        live[doc], sizes[doc], vecs[doc] = gen, n, v
    q = vecs["doc1"][3] + 0.1 * vecs["doc4"][7]
    q /= np.linalg.norm(q)
    # a leftover generation of doc1 holding the exact query vector: never a hit
    idx.add("doc1", [index_mod.chunk_id("doc1", 99, 0)], ["old"], q[None, :], [{"gen": 99, "idx": 0}])

    def exact(scope, k):
        rows = [(d, i, float(vecs[d][i] @ q)) for d in scope for i in range(sizes[d])]
        return [(d, i) for d, i, _ in sorted(rows, key=lambda r: -r[2])[:k]]

    plans = []
    real_query = idx.collection.query

    def spy(**kw):
        plans.append("ids" if kw.get("ids") else "filter" if kw.get("where") else "unfiltered")
        return real_query(**kw)

    idx.collection.query = spy
    for scope, plan in ((["doc1"], ["ids"]), (["doc1", "doc4"], ["ids"]), (["doc0", "doc1", "doc2", "doc4"],
                        ["unfiltered"]), (list(live), ["unfiltered"])):
        plans.clear()
        sub = {d: live[d] for d in scope}
        got = index_mod.query_scope(idx, sub, q, 7, whole_collection=len(scope) == 8, sizes=sizes)
        assert [(d, i) for d, i, _ in got] == exact(scope, 7), scope
        assert all(abs(s - float(vecs[d][i] @ q)) < 1e-4 for d, i, s in got)
        assert plans == plan, scope
    # a scope whose document lost a vector: the ids plan fails inside Chroma and the filter answers
    idx.collection.delete(ids=[index_mod.chunk_id("doc2", 102, 5)])
    sizes_missing = dict(sizes)
    plans.clear()
    got = index_mod.query_scope(idx, {"doc2": 102}, q, 5, sizes=sizes_missing)
    assert plans == ["ids", "filter"]
    vecs["doc2"] = vecs["doc2"].copy()
    vecs["doc2"][5] = -10  # out of the exact ranking too
    assert [(d, i) for d, i, _ in got] == exact(["doc2"], 5)
    assert index_mod.parse_chunk_id("a-b-c-12-3") == ("a-b-c", 12, 3) and index_mod.parse_chunk_id("x-y") is None


def test_snippets_escape_the_pdf_text_and_mark_only_query_terms():
    from lib.retrieval.corpus_search import snippet

    out = snippet('Wetlands & <img src=x onerror="alert(1)"> AMP plan: wetland amplifier', ["amp", "wetland"])
    assert out == ('<mark>Wetlands</mark> &amp; &lt;img src=x onerror=&quot;alert(1)&quot;&gt; <mark>AMP</mark> '
                   'plan: <mark>wetland</mark> <mark>amplifier</mark>')
    assert "<img" not in out and "&<mark>" not in out  # no tag of the PDF's, no entity split by a mark
    # a window into a long passage begins and ends at whole words, with … where it was cut
    text = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma " * 3
    assert snippet(text, ["kappa"], 60) == "…eta theta iota <mark>kappa</mark> lambda mu nu xi omicron pi rho…"


def test_corpus_search_ranks_documents_and_says_when_no_word_matched(two_docs):
    from lib.retrieval.corpus_search import search_documents

    docs, a, b = two_docs
    results = search_documents(Retriever(docs), "caribou calving", None)
    assert [r.doc_id for r in results] == [a.doc_id, b.doc_id]  # every document in scope, best first
    assert results[0].matched_terms == ["caribou", "calving"] and results[1].matched_terms == []
    assert "<mark>" in results[0].passages[0].snippet_html


def test_a_found_passage_says_where_it_is():
    """The place line under each passage on the Search page (it was worked out on the page before)."""
    from lib.retrieval import FoundPassage

    assert FoundPassage(12, 12, "4.3 Water Resources", "", "").where == "4.3 Water Resources, p. 12"
    assert FoundPassage(12, 13, "", "", "").where == "pp. 12–13"


def test_headings_detected_by_type_when_the_pdf_has_no_outline(tmp_path, services):
    import pymupdf

    from lib.documents.pdf import detect_headings, read_pdf_file

    doc = pymupdf.open()
    body = ("Caribou of the Teshekpuk herd use the area for calving and insect relief during the summer months "
            "each year.")
    layout = [[("3 Affected Environment", 16, "hebo"), ("3.1 Caribou", 13, "hebo"), (body, 10, "helv"),
               ("Note: seasonal limits apply.", 10, "hebo"), ("2 wells were drilled in 2019 near the lake.", 10, "helv")],
              [("3.2 Wetlands", 13, "hebo"), (body.replace("Caribou", "Wetland sedges"), 10, "helv")] + [
               (body, 10, "helv")] * 8]
    for lines in layout:
        page = doc.new_page()
        y = 60
        for text, size, font in lines:
            page.insert_text((50, y), text[:95], fontsize=size, fontname=font)
            y += size * 1.8
    path = tmp_path / "no_outline.pdf"
    doc.save(path)
    with pymupdf.open(path) as d:
        assert d.get_toc() == []
        assert detect_headings(d) == [[1, "3 Affected Environment", 1], [2, "3.1 Caribou", 1], [2, "3.2 Wetlands", 2]]
    ex = read_pdf_file(path, 10**8)
    assert [row[1] for row in ex.toc] == ["3 Affected Environment", "3.1 Caribou", "3.2 Wetlands"]
    docs = make_store(tmp_path, services)
    res = docs.ingest_file(str(path), chunk_size=32, chunk_overlap=0)
    chunks = docs.chunks(res.doc_id)
    assert chunks[0].section == "3 Affected Environment › 3.1 Caribou"
    assert chunks[-1].page_start == 2 and chunks[-1].section == "3 Affected Environment › 3.2 Wetlands"


def test_snippets_show_symbol_font_bullets_as_bullets():
    """U+F0B7 (a Wingdings bullet in the extracted text) draws as an empty box in a browser."""
    from lib.retrieval.corpus_search import snippet

    out = snippet("Wetlands\n\uf0b7 The FTD footprint has 25 acres of wetland \uf0a7 streams", ["wetland"])
    assert out == "<mark>Wetlands</mark> • The FTD footprint has 25 acres of <mark>wetland</mark> • streams"

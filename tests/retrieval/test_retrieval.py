import pytest

from lib.core.errors import UserError
from lib.core.text import tokenize
from lib.retrieval.retriever import reciprocal_rank_fusion


def test_rrf_formula():
    fused = dict(reciprocal_rank_fusion([[1, 2, 3], [3, 1]], k=60))
    assert fused[1] == pytest.approx(1 / 61 + 1 / 62)
    assert fused[3] == pytest.approx(1 / 63 + 1 / 61)
    assert fused[2] == pytest.approx(1 / 62)
    assert [i for i, _ in reciprocal_rank_fusion([[1, 2, 3], [3, 1]])][:2] == [1, 3]


def test_tokenize_drops_stopwords():
    assert tokenize("What are the impacts of the Sites?") == ["impact", "site"]


@pytest.mark.parametrize("method", ["hybrid", "dense", "bm25"])
def test_search_methods_return_ranked_page_cited_chunks(services, sample_doc, method):
    hits = services.retriever.search(sample_doc.doc_id, "Fort Drum wetlands impacts", k=4, method=method)
    assert 1 <= len(hits) <= 4
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)
    d = hits[0].as_dict()
    assert set(d) >= {"text", "page_start", "page_end", "score"}


def test_bm25_finds_exact_term(services, sample_doc):
    hits = services.retriever.search(sample_doc.doc_id, "CRJMTC", k=3, method="bm25")
    assert hits and all("CRJMTC" in h.chunk.text for h in hits)


def test_search_errors(services, sample_doc):
    with pytest.raises(UserError, match="No indexed document"):
        services.retriever.search("nope", "q")
    with pytest.raises(UserError, match="empty"):
        services.retriever.search(sample_doc.doc_id, "  ")
    with pytest.raises(UserError, match="Unknown retrieval method"):
        services.retriever.search(sample_doc.doc_id, "q", method="magic")


def test_table_of_contents_chunks_rank_after_the_text(services, pdf_factory):
    """A table of contents repeats the query's words beside page numbers; it is marked at ingest and ranked after
    every other chunk, so the passage that answers comes first (and it did not before: the control below)."""
    toc = "\n".join(f"4.{i} Caribou Calving Grounds and Wetland Mitigation Part {i} ........................ 4-{i}"
                    for i in range(1, 9))
    body = ("The caribou calving grounds lie north of the river. Wetland mitigation for the access road restores "
            "twelve acres of tundra wetlands near the calving grounds.")
    filler = "The project area includes gravel pads, an airstrip and a camp for two hundred workers. " * 6
    doc = services.docs.ingest_file(str(pdf_factory("toc_eis.pdf", [toc, filler, body, filler])), chunk_size=64,
                                    chunk_overlap=0)
    from lib.documents.chunking import is_navigation

    chunks = services.docs.chunks(doc.doc_id)
    assert any(is_navigation(c.text) for c in chunks) and not all(is_navigation(c.text) for c in chunks)
    query = "caribou calving grounds wetland mitigation"
    shown_before = 0
    try:
        for method in ("lexical", "hybrid", "dense"):
            services.retriever.navigation_last = False
            before = services.retriever.search(doc.doc_id, query, 3, method)
            services.retriever.navigation_last = True
            after = services.retriever.search(doc.doc_id, query, 3, method)
            navs = [is_navigation(h.chunk.text) for h in after]
            assert navs == sorted(navs), method  # contents chunks only after every other chunk
            assert "caribou calving grounds lie north" in after[0].chunk.text, method
            first = [is_navigation(h.chunk.text) for h in before]
            shown_before += bool(first) and first[0]
        assert shown_before > 0  # the control: without the mark, a contents chunk ranked first
    finally:
        services.retriever.navigation_last = True

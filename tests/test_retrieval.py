import pytest

from lib.errors import UserError
from lib.retrieval import reciprocal_rank_fusion, tokenize


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

import pytest

from lib.core.errors import UserError
from lib.documents.pdf import Page
from lib.qa.contexts import Context, gold_context, pdf_context, rag_context, truncate_to_tokens


def count(text: str) -> int:
    return len(text.split())


def test_truncate_by_tokens_on_word_boundary():
    text = "alpha beta gamma delta epsilon zeta"
    kept, n = truncate_to_tokens(text, 3, count)
    assert kept == "alpha beta gamma" and n == 3
    assert truncate_to_tokens(text, 100, count) == (text, 6)
    assert truncate_to_tokens(text, 0, count) == ("", 0)


def test_truncate_with_subword_counter_never_cuts_a_word():
    def chars(text: str) -> int:  # a counter where one token is 3 characters
        return (len(text) + 2) // 3

    text = "environmental impact statements describe alternatives"
    kept, n = truncate_to_tokens(text, 10, chars)
    assert n <= 10 and text.startswith(kept) and (len(kept) == len(text) or text[len(kept)] == " ")


def test_pdf_context_keeps_fraction_and_notice():
    pages = [Page(i, " ".join(["w"] * 100)) for i in range(1, 11)]
    ctx = pdf_context(pages, budget=250, count_tokens=count)
    assert ctx.truncated
    assert ctx.kept_tokens <= 250
    assert ctx.total_tokens == sum(count(f"[page {i}]\n" + pages[0].text) for i in range(1, 11))
    assert ctx.kept_fraction == pytest.approx(ctx.kept_tokens / ctx.total_tokens)
    assert ctx.notice().startswith("truncated: kept 2")
    full = pdf_context(pages, budget=10_000, count_tokens=count)
    assert not full.truncated and full.kept_fraction == 1.0 and full.notice() is None


def test_notice_format_in_thousands():
    ctx = Context("pdf", truncated=True, kept_fraction=0.38, total_tokens=612_000)
    assert ctx.notice() == "truncated: kept 38% of 612K tokens"
    assert ctx.notice("counted in words") == "truncated: kept 38% of 612K tokens (counted in words)"


def test_gold_context_requires_passage():
    with pytest.raises(UserError):
        gold_context("  ")
    assert gold_context(" passage ").text == "passage"


def test_rag_context_cites_pages():
    from lib.documents.chunking import Chunk
    from lib.retrieval.retriever import Hit

    hits = [Hit(Chunk(0, "first text", 3, 3, 0, 10, 2), 0.9, 1), Hit(Chunk(5, "second", 7, 8, 50, 56, 1), 0.5, 2)]
    ctx = rag_context(hits)
    assert ctx.text == "[1] (p. 3)\nfirst text\n\n[2] (pp. 7–8)\nsecond"  # numbered, so answers can cite [1]
    assert [(p.page_start, p.page_end) for p in ctx.passages] == [(3, 3), (7, 8)]
    assert [p.n for p in ctx.passages] == [1, 2]


def test_rag_numbers_are_the_pages_numbers():
    """Two chunks of one page and one of another document reach the model as [1] and [2], the numbers the page
    shows; an answer's [2] is the other document."""
    from lib.documents.chunking import Chunk
    from lib.qa.citations import cited_numbers, number_sources
    from lib.retrieval.retriever import Hit

    hits = [Hit(Chunk(0, "Wetlands at the site total 12 acres.", 71, 71, 0, 10, 8), 0.9, 1, "docA", "FEIS A"),
            Hit(Chunk(1, "Mitigation replaces them two to one.", 71, 71, 10, 20, 8), 0.8, 2, "docA", "FEIS A"),
            Hit(Chunk(4, "Caribou calve on the coastal plain.", 10, 10, 0, 10, 8), 0.7, 3, "docB", "FEIS B")]
    ctx = rag_context(hits)
    assert ctx.text.startswith("[1] (FEIS A, p. 71)\nWetlands at the site total 12 acres.")
    assert "\n\n[2] (FEIS B, p. 10)\nCaribou calve" in ctx.text and "[3]" not in ctx.text
    shown = number_sources(ctx.passages)  # what the Ask page numbers from the stored contexts
    assert [(s.n, s.doc_id, s.page_start) for s in shown] == [(1, "docA", 71), (2, "docB", 10)]
    assert cited_numbers("Caribou calve there [2].", max_n=len(shown)) == {2}

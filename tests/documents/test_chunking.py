import pytest

from lib.core.errors import UserError
from lib.documents.chunking import chunk_pages, join_pages
from lib.documents.pdf import Page


def words(n: int, start: int = 0) -> str:
    return " ".join(f"word{i}" for i in range(start, start + n))


def count(text: str) -> int:
    return len(text.split())


def test_chunks_respect_size_and_record_pages():
    pages = [Page(1, words(300)), Page(2, words(300, 300)), Page(3, "")]
    chunks = chunk_pages(pages, count, chunk_size=100, chunk_overlap=20, max_tokens=128)
    assert all(c.n_tokens <= 100 for c in chunks)
    assert chunks[0].page_start == 1
    assert chunks[-1].page_end == 2
    text, _ = join_pages(pages)
    for c in chunks:
        assert text[c.char_start : c.char_end] == c.text
    # every word is in some chunk: nothing dropped
    joined = " ".join(c.text for c in chunks)
    assert all(f"word{i}" in joined.split() for i in range(600))


def test_short_pages_merge_into_chunks_spanning_pages():
    pages = [Page(i, words(30, 30 * i)) for i in range(1, 7)]
    chunks = chunk_pages(pages, count, chunk_size=100, chunk_overlap=0, max_tokens=128)
    assert any(c.page_end > c.page_start for c in chunks)
    assert chunks[0].page_start == 1 and chunks[-1].page_end == 6


def test_overlap_repeats_text():
    chunks = chunk_pages([Page(1, words(400))], count, chunk_size=100, chunk_overlap=30, max_tokens=128)
    a, b = chunks[0].text.split(), chunks[1].text.split()
    assert set(a[-20:]) & set(b[:40])


def test_chunk_size_over_model_window_is_refused():
    with pytest.raises(UserError, match="window"):
        chunk_pages([Page(1, "x y z")], count, chunk_size=300, chunk_overlap=0, max_tokens=254)
    with pytest.raises(UserError, match="overlap"):
        chunk_pages([Page(1, "x y z")], count, chunk_size=100, chunk_overlap=100, max_tokens=254)


def test_real_tokenizer_never_exceeds_model_window(services):
    emb = services.docs.index.embedder
    # a long run without separators must still be split below the window
    pages = [Page(1, "environmental" * 2000), Page(2, words(2000))]
    chunks = chunk_pages(pages, emb.count_tokens, 254, 0, emb.max_tokens)
    assert chunks and all(emb.count_tokens(c.text) <= emb.max_tokens for c in chunks)


def test_table_of_contents_chunks_are_recognised():
    from lib.documents.chunking import is_navigation

    toc = ("ES.1.3 Decisions to be Made ........................................................ ES-1 \n"
           "ES.1.4 Scope of the Analysis .................................................... ES-2")
    broken = ("ES.3.0 Affected Environment, Environmental Consequences, Impacts, and \nMitigation Options "
              "...................................................................................... ES-17")
    figures = ("List of Figures\nFigure ES-1\nCIS Locations ................................................ ES-3")
    assert is_navigation(toc) and is_navigation(broken) and is_navigation(figures)
    # prose, and a data table whose rows use dot leaders, are not navigation
    assert not is_navigation("Wetlands cover 12 acres of the site. Mitigation includes restoration and monitoring.")
    assert not is_navigation("Acres disturbed . . . . . . 45\nAcres restored . . . . . . 12\nTotal cost . . . . 3.2")

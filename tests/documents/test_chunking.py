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


def _sections(pages: list[Page], toc: list) -> list[tuple[int, str, str]]:
    from lib.documents.chunking import assign_sections

    chunks = assign_sections(chunk_pages(pages, count, chunk_size=40, chunk_overlap=0, max_tokens=128), toc, pages)
    return [(c.page_start, c.section, c.text) for c in chunks]


def test_a_contents_page_is_not_a_section_of_the_body_and_an_unsure_heading_gives_the_page_alone():
    """An outline that nests the body's headings under "Table of Contents" (as some EISs' do) once labelled an
    affected-environment page "Table of Contents › ES-3.2 …"; a heading that is not where the outline says was
    placed at its page's top and named passages it does not head."""
    prose = "The analysis area holds mixed forest and open fields with seasonal ponds near the river. "
    toc_page = ("Table of Contents\n3.1 Wetlands ........ 2\n3.2 Caribou Habitat ........ 3\n"
                "3.3 Noise ........ 3\n" + "".join(f"4.{i} Other Topic {i} ........ 9\n" for i in range(1, 6)))
    pages = [Page(1, toc_page),
             Page(2, "3.1 Wetlands\n" + prose * 6),
             Page(3, prose * 3 + "\n3.2 Caribou\nHabitat\n" + "Caribou calve on the coastal plain in June. " * 5)]
    toc = [[1, "Table of Contents", 1], [2, "3.1 Wetlands", 2], [2, "3.2 Caribou Habitat", 3], [2, "3.3 Noise", 3]]
    got = _sections(pages, toc)
    assert got[0][:2] == (1, "Table of Contents")  # the contents page is headed by its own entry
    body = [g for g in got if g[0] > 1]
    assert body and not any("Table of Contents" in sec for _, sec, _ in body)
    assert {sec for p, sec, _ in body if p == 2} == {"3.1 Wetlands"}
    # page 3: "3.3 Noise" is on no line of the page (unsure) and placed at its top, so the prose before the
    # caribou heading has the page alone; the heading's own passage (a title wrapped over two lines) is named
    caribou = [g for g in body if g[2].lstrip().startswith("3.2 Caribou") or "calve" in g[2].split(".")[0]]
    assert caribou and all(sec == "3.2 Caribou Habitat" for _, sec, _ in caribou)
    assert all(sec == "" for p, sec, t in body if p == 3 and t.startswith("The analysis area"))


def test_a_heading_title_met_inside_a_sentence_is_not_the_heading():
    from lib.documents.chunking import find_heading

    page = "Its introduction of new species is discussed below.\nIntroduction\nThe project began in 2010."
    assert find_heading(page, "Introduction") == page.index("\nIntroduction") + 1
    assert find_heading("The introduction of new species is discussed.", "Introduction") == -1


def test_the_sample_eiss_sections_are_its_body_headings_before_each_passage(sample_doc, services):
    """On the sample EIS every labelled passage's innermost heading starts a line at or before the passage, and no
    passage past the contents pages is labelled with a contents entry."""
    import re

    from lib.documents.chunking import find_heading

    pages = services.docs.pages(sample_doc.doc_id)
    text, starts = join_pages(pages)
    chunks = services.docs.chunks(sample_doc.doc_id)
    labelled = [c for c in chunks if c.section]
    assert len(labelled) >= 0.9 * len(chunks)
    for c in labelled:
        assert not re.match(r"(Table of )?Contents|List of", c.section.split(" › ")[0]) or c.page_start <= 4, c
        head = c.section.split(" › ")[-1]
        at = find_heading(text[: c.char_start + 120], head)
        assert at >= 0, (c.page_start, c.section)


def test_a_tables_passages_are_labelled_by_its_caption_not_by_the_heading_before_it():
    """A comparison table that sits under one site's heading speaks of every site: the sample EIS's Table ES-5
    (pp. 55-73, all four sites) was labelled "… › ES.3.5 FTD Site › …". Its passages carry the caption; the
    table runs over the next pages that repeat its header row, and ends where a page does not, at the next
    heading, or at the next caption. A sentence naming a table, or a list-of-tables line, is no caption."""
    rows = "Noise\nMinor impacts during construction.\nMinor impacts similar to Site A.\n" * 6
    prose = "The site lies on glacial outwash with scattered wetlands along the creek and mixed forest cover. "
    pages = [Page(1, "List of Tables\nTable 4-1 Comparison of Sites A and B ........ 4-2\n"),
             Page(2, "4-1\n4.2 Site A\n" + prose * 3 + "\nTable 4-1 Comparison of Sites A and B\n"
                  "Resource\nSite A\nSite B\n" + rows),
             Page(3, "4-2\nResource\nSite A\nSite B\n" + rows),
             Page(4, "4-3\n" + prose * 2 + "\nTable 4-1 of this section compares the two sites in full. " + prose),
             Page(5, "4-4\n4.3 Site B\n" + prose * 3)]
    toc = [[1, "List of Tables", 1], [2, "4.2 Site A", 2], [2, "4.3 Site B", 5]]
    got = _sections(pages, toc)
    caption = "Table 4-1 Comparison of Sites A and B"
    table = [g for g in got if "Minor impacts" in g[2]]
    assert table and all(sec == caption for _, sec, _ in table), [(p, s) for p, s, _ in table]
    assert {p for p, _, _ in table} == {2, 3}
    assert all(sec == "4.2 Site A" for p, sec, t in got if p == 2 and t.lstrip().startswith(("4-1", "4.2", "The")))
    assert {sec for p, sec, _ in got if p == 4} == {"4.2 Site A"}  # no header row repeated: the table ended
    assert {sec for p, sec, _ in got if p == 5} == {"4.3 Site B"}
    from lib.documents.chunking import table_spans

    text, starts = join_pages(pages)
    spans = table_spans(text, starts)  # one table: the list-of-tables line and the sentence on p. 4 are not
    assert [(b, e, cap) for b, e, cap in spans] == [(text.index(caption, starts[1]), starts[3], caption)]


def test_a_sentence_that_starts_with_a_table_number_is_no_caption_and_a_chunks_own_heading_wins():
    """A wrapped sentence whose line begins "Table 4-3. Most wells …" once labelled the rest of its page as that
    table; and a chunk that starts with its heading, a caption a line later, is named by its heading."""
    from lib.documents.chunking import table_spans

    prose = "Groundwater was sampled at twelve wells across the study area during the spring of each year. "
    pages = [Page(1, "4.1 Groundwater\n" + prose * 2 + "\nTable 4-3. Most wells met the drinking water standard,\n"
                  "and the two that did not are near the old landfill.\n" + prose * 3),
             Page(2, "Table 4-4 lists the wells in full and their yields.\n" + prose * 2),
             Page(3, "4.2 Surface Water\nTable 4-5 Stream Flows by Month\nMonth\nFlow\n" + "May\n12 cfs\n" * 20)]
    text, starts = join_pages(pages)
    assert [cap for _, _, cap in table_spans(text, starts)] == ["Table 4-5 Stream Flows by Month"]
    toc = [[1, "4.1 Groundwater", 1], [1, "4.2 Surface Water", 3]]
    got = _sections(pages, toc)
    assert {sec for p, sec, _ in got if p < 3} == {"4.1 Groundwater"}
    third = [(sec, t) for p, sec, t in got if p == 3]
    assert third[0] == ("4.2 Surface Water", third[0][1]) and third[0][1].lstrip().startswith("4.2 Surface Water")
    assert all(sec == "Table 4-5 Stream Flows by Month" for sec, t in third[1:]) and len(third) > 1


def test_the_sample_eiss_comparison_table_is_labelled_by_its_caption(sample_doc, services):
    chunks = services.docs.chunks(sample_doc.doc_id)
    table = [c for c in chunks if 56 <= c.page_start <= 73]
    assert table and all(c.section.startswith("Table ES-5 Comparative Summary of Environmental Impacts") for c in table)
    site = [c for c in chunks if 46 <= c.page_start <= 52]
    assert site and all("ES.3.5 FTD Site" in c.section for c in site)

"""Tables stay tables: a captioned, ruled table that runs over two pages is found by PyMuPDF's table finder and
read as one table (the header row the second page repeats dropped), its cells read from the page's words even when
the PDF writes them column by column; it is indexed as passages of Markdown rows, each with the caption and the
header, beside the prose, which is indexed as before; a question about a cell finds its row; the highlight of a
row marks that row. A captioned table without ruled lines (one the finder cannot read) stays prose."""
from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from lib.collection.document_store import DocumentStore
from lib.collection.vectors import VectorIndex, make_client
from lib.core.text import tokenize
from lib.documents import page_render, tables
from lib.retrieval.corpus_search import search_documents
from lib.retrieval.retriever import Retriever
from lib.storage.engine import get_engine

CAPTION = "Table 4-2 Wetland Acres Affected by Alternative"
HEADER = ["Wetland type", "Alternative A", "Alternative B", "States"]
ROWS = [
    ["Emergent marsh", "12.4 acres", "3.1 acres", "Montana, Idaho"],
    ["Forested swamp", "40.2 acres", "18.9 acres", "Wyoming"],
    ["Scrub-shrub bog", "7.7 acres", "0.5 acres", "Idaho"],
    ["Riverine fringe", "2.3 acres", "9.6 acres", "Montana"],
    ["Vernal pools", "0.9 acres", "0.2 acres", "Wyoming, Montana"],
    ["Wet meadow", "25.0 acres", "11.1 acres", "Idaho, Wyoming"],
]
PROSE = ("The wetland delineation followed the Corps of Engineers manual and its regional supplement. Field crews "
         "walked every transect in the growing season, recorded hydric soils and hydrology, and mapped each "
         "wetland boundary with a global positioning receiver. ")
COLS = [72, 200, 300, 400, 540]
ROW_H = 22


def _grid(page: pymupdf.Page, top: float, n_rows: int, ruled: bool) -> None:
    if not ruled:
        return
    bottom = top + n_rows * ROW_H
    for i in range(n_rows + 1):
        page.draw_line((COLS[0], top + i * ROW_H), (COLS[-1], top + i * ROW_H), width=0.6)
    for x in COLS:
        page.draw_line((x, top), (x, bottom), width=0.6)


def _cells(page: pymupdf.Page, top: float, rows: list[list[str]], by_column: bool) -> None:
    order = [(r, c) for c in range(len(HEADER)) for r in range(len(rows))] if by_column else \
        [(r, c) for r in range(len(rows)) for c in range(len(HEADER))]
    for r, c in order:  # by_column: the content stream holds column 1 top to bottom, then column 2, …
        page.insert_text((COLS[c] + 4, top + r * ROW_H + 15), rows[r][c], fontsize=9)


def build(path: Path, by_column: bool = False, ruled: bool = True) -> Path:
    """Page 1: prose, the caption, the header and the first four rows; page 2: the header again, the last two
    rows, then prose."""
    doc = pymupdf.open()
    p1 = doc.new_page()
    p1.insert_textbox(pymupdf.Rect(72, 60, 540, 300), PROSE * 3, fontsize=10)
    p1.insert_text((72, 330), CAPTION, fontsize=10)
    first = [HEADER, *ROWS[:4]]
    _grid(p1, 340, len(first), ruled)
    _cells(p1, 340, first, by_column)
    p2 = doc.new_page()
    second = [HEADER, *ROWS[4:]]
    _grid(p2, 60, len(second), ruled)
    _cells(p2, 60, second, by_column)
    p2.insert_textbox(pymupdf.Rect(72, 200, 540, 500), "Mitigation would restore forested swamp at a two to one "
                      "ratio within the same watershed, monitored for five years. " * 3, fontsize=10)
    doc.save(path)
    return path


@pytest.mark.parametrize("by_column", [False, True], ids=["rows written in order", "cells written column by column"])
def test_a_captioned_table_over_two_pages_is_one_table_of_whole_rows(tmp_path, by_column):
    pdf = build(tmp_path / "wetlands.pdf", by_column)
    doc = pymupdf.open(pdf)
    if by_column:  # the text layer really reads down the columns: as prose, a row's cells are far apart
        words = doc[0].get_text()
        assert words.index("Emergent marsh") < words.index("Forested swamp") < words.index("12.4 acres")
    [table] = tables.find_tables(doc, [p.get_text() for p in doc])
    assert table.caption == CAPTION and table.header == HEADER
    assert table.rows == ROWS and table.pages == [1, 1, 1, 1, 2, 2]


def test_a_row_longer_than_a_passage_is_given_in_parts_each_under_the_header():
    long_cell = "Minor impacts would occur from fugitive dust during clearing and grading. " * 3
    table = tables.Table(CAPTION, HEADER, [*ROWS[:2], ["Air quality", long_cell, long_cell, "Montana"]], [3] * 3)

    def words(text: str) -> int:
        return len(text.split())
    out = tables.passages(table, words, budget=80, max_tokens=100)
    rows = [[ln for ln in text.splitlines()[3:] if ln.startswith("| Air quality")] for text, *_ in out]
    assert all(text.splitlines()[:2] == [CAPTION, "| Wetland type | Alternative A | Alternative B | States |"]
               for text, *_ in out)
    assert [r for part in rows for r in part] == [
        f"| Air quality | {' '.join(long_cell.split())} | … | … |",
        f"| Air quality | … | {' '.join(long_cell.split())} | Montana |"]  # every cell kept, under its column
    assert all(n <= 100 for *_, n in out)


def test_a_table_of_paragraphs_stays_prose():
    """Most rows longer than a passage: cut into parts, no row would be read whole, so it gets no passages (its
    prose reading stays); one long row among short ones is cut, and the table kept."""
    para = "Permanent minor impacts to wetlands would occur from filling during construction of the access road. " * 3

    def words(text: str) -> int:
        return len(text.split())
    paragraphs = tables.Table(CAPTION, HEADER, [[r[0], para, para, r[3]] for r in ROWS], [1] * 6)
    assert tables.passages(paragraphs, words, budget=80, max_tokens=100) == []
    one_long = tables.Table(CAPTION, HEADER, [*ROWS[:5], [ROWS[5][0], para, para, ROWS[5][3]]], [1] * 6)
    rows = [ln for text, *_ in tables.passages(one_long, words, budget=80, max_tokens=100)
            for ln in text.splitlines()[3:]]
    assert "| Emergent marsh | 12.4 acres | 3.1 acres | Montana, Idaho |" in rows
    assert sum(ln.startswith("| Wet meadow |") for ln in rows) >= 2  # in parts, each under the header


def test_whether_rows_fit_counts_the_caption_and_header_every_passage_repeats():
    """Short rows under a wide header (about 50 words) are rows where a passage holds the header and a row, and
    prose where the header alone fills the passage: their parts would be the header again and again."""
    wide = [f"{h} (acres affected, direct and indirect, by construction phase)" for h in HEADER]

    def words(text: str) -> int:
        return len(text.split())
    out = tables.passages(tables.Table(CAPTION, wide, ROWS, [1] * 6), words, budget=80, max_tokens=120)
    rows = [ln for text, *_ in out for ln in text.splitlines()[3:]]
    assert rows == [tables._md(r) for r in ROWS]
    assert tables.passages(tables.Table(CAPTION, wide, ROWS, [1] * 6), words, budget=55, max_tokens=120) == []


def test_passages_repeat_the_caption_and_header_and_keep_rows_whole():
    table = tables.Table(CAPTION, HEADER, ROWS * 4, [1] * 24)

    def words(text: str) -> int:
        return len(text.split())
    out = tables.passages(table, words, budget=60, max_tokens=80)
    assert len(out) > 2
    for text, start, end, n in out:
        lines = text.splitlines()
        assert lines[:3] == [CAPTION, "| Wetland type | Alternative A | Alternative B | States |", "| --- | --- | --- | --- |"]
        assert all(line.startswith("| ") and line.endswith(" |") for line in lines[3:])
        assert n == words(text) <= 80 and (start, end) == (1, 1)
    assert [ln for text, *_ in out for ln in text.splitlines()[3:]].count("| Emergent marsh | 12.4 acres | 3.1 acres | Montana, Idaho |") == 4


def test_a_captioned_table_without_ruled_lines_stays_prose(tmp_path):
    doc = pymupdf.open(build(tmp_path / "unruled.pdf", ruled=False))
    assert tables.find_tables(doc, [p.get_text() for p in doc]) == []


@pytest.fixture
def fresh(tmp_path, services):
    index = VectorIndex(make_client("", str(tmp_path / "chroma")), services.docs.index.embedder)
    return DocumentStore(index, get_engine(f"sqlite:///{tmp_path / 'db.sqlite'}"))


def test_tables_are_prose_only_when_turned_off(fresh, tmp_path, monkeypatch):
    monkeypatch.setenv("NEPAQA_TABLES", "0")
    res = fresh.ingest_file(str(build(tmp_path / "wetlands.pdf", by_column=True)))
    assert not [c for c in fresh.chunks(res.doc_id) if tables.is_table_passage(c.text)]
    assert "Vernal pools" in " ".join(c.text for c in fresh.chunks(res.doc_id))  # its text is indexed as prose


def test_a_cell_question_finds_its_row_and_the_highlight_marks_it(fresh, tmp_path, monkeypatch):
    monkeypatch.delenv("NEPAQA_TABLES", raising=False)  # on by default
    res = fresh.ingest_file(str(build(tmp_path / "wetlands.pdf", by_column=True)))
    chunks = fresh.chunks(res.doc_id)
    table_passages = [c for c in chunks if c.section == CAPTION and "| --- |" in c.text]
    assert table_passages and all(c.text.startswith(CAPTION + "\n| Wetland type |") for c in table_passages)
    prose = " ".join(c.text for c in chunks if c not in table_passages)
    assert "global positioning receiver" in prose and "two to one ratio" in " ".join(prose.split())  # as before
    hits = Retriever(fresh).search(res.doc_id, "How many acres of vernal pools would Alternative A affect?", k=3)
    rows = [ln for h in hits for ln in h.chunk.text.splitlines()]
    assert "| Vernal pools | 0.9 acres | 0.2 acres | Wyoming, Montana |" in rows
    # the table's prose run and its passages are two readings of the same rows: the list shows the passage only
    # (a prose chunk most of whose words a listed table passage holds is not listed beside it)
    five = Retriever(fresh).search(res.doc_id, "vernal pools wet meadow acres by alternative", k=5)
    passages = [set(tokenize(h.chunk.text)) for h in five if tables.is_table_passage(h.chunk.text)]
    prose = [{w for w in tokenize(h.chunk.text) if len(w) > 3} for h in five if not tables.is_table_passage(h.chunk.text)]
    assert passages
    assert not [w for w in prose if any(len(w & t) >= 0.6 * len(w) for t in passages)]
    with_twins = fresh.chunks(res.doc_id)  # and there was a twin to drop: the table's prose run on page 1
    assert any(not tables.is_table_passage(c.text) and c.section == CAPTION and
               len({w for w in tokenize(c.text) if len(w) > 3} & passages[0]) >= 0.6 * len({w for w in tokenize(c.text)
                                                                                      if len(w) > 3})
               for c in with_twins)
    # Search shows the row asked about under the header, and its page highlight marks that row's band of the
    # grid on page 2 (y 82–104), nothing above or below
    [found] = search_documents(Retriever(fresh), "How many acres of vernal pools would Alternative A affect?",
                               [res.doc_id], k=3)
    p = next(p for p in found.passages if tables.is_table_passage(p.text))
    assert p.highlight == ("Vernal pools 0.9 acres 0.2 acres Wyoming, Montana",)
    assert "<th style" in p.snippet_html and "<mark>Vernal</mark>" in p.snippet_html and "Wet meadow" not in p.snippet_html
    page = page_render.page_holding(res.doc_id, p.page_start, p.page_end, p.highlight)
    rects = page_render.highlight_rects(res.doc_id, page, p.highlight)
    assert (p.page_start, p.page_end, page) == (1, 2, 2) and rects and all(r[1] >= 82 and r[3] <= 104 for r in rects), rects
    # a row of the same words in another place does not stand for the one asked about: the page is the one that
    # holds the whole row
    assert page_render.page_holding(res.doc_id, 1, 2, ("Wet meadow 25.0 acres 11.1 acres Idaho, Wyoming",)) == 2


def test_two_rows_asked_about_are_each_marked_in_their_own_band(fresh, tmp_path):
    res = fresh.ingest_file(str(build(tmp_path / "wetlands.pdf")))
    passage = next(c.text for c in fresh.chunks(res.doc_id) if tables.is_table_passage(c.text))
    both = tables.passage_highlight(passage, "emergent marsh riverine fringe")
    assert both == ("Emergent marsh 12.4 acres 3.1 acres Montana, Idaho", "Riverine fringe 2.3 acres 9.6 acres Montana")
    # page 1's body rows: 1 at y 362–384, 4 at y 428–450; rows 2 and 3 between them are not marked
    bands = page_render.highlight_rects(res.doc_id, 1, both)
    assert {(r[1] - 340) // ROW_H for r in bands} == {1, 4}, bands


def test_the_rows_asked_about_are_read_back_from_a_passage():
    text = tables.passages(tables.Table(CAPTION, HEADER, ROWS, [1] * 6), lambda t: len(t.split()), 400, 500)[0][0]
    asked = tables.rows_asked(text, "Which states hold forested swamp?")
    assert asked == tables.PassageRows(CAPTION, HEADER, [ROWS[1]], True)
    unasked = tables.rows_asked(text, "noise levels")  # no row shares a word: every row, not matched
    assert (unasked.rows, unasked.matched) == (ROWS, False)
    assert tables.passage_highlight(text, "noise levels") == text  # so the whole passage is highlighted
    assert not tables.rows_asked(text, "wetland acres").matched  # one word every row has ("acres") is not enough
    assert tables.rows_asked("Wetlands were delineated in 2015.", "wetlands") is None
    # a source joining prose and a table passage: the row asked about is marked, and only it (the prose is kept)
    joined = "Field crews walked every transect.\n[…]\n" + text
    assert tables.passage_highlight(joined, "forested swamp") == ("Forested swamp 40.2 acres 18.9 acres Wyoming",)
    assert tables.rows_asked(joined, "forested swamp").around == "Field crews walked every transect."
    two = text + "\n" + text.replace("Forested swamp", "Cypress dome")  # two passages of one table, joined
    assert tables.rows_asked(two, "cypress dome").rows == [["Cypress dome", *ROWS[1][1:]]]
    assert tables.rows_asked(two, "noise").rows == ROWS + [["Cypress dome", *ROWS[1][1:]] if r == ROWS[1] else r
                                                           for r in ROWS]
    # two different tables in one source: the second one's header is a header, not a row asked about
    noise = "Table 4-7 Noise Levels\n| Site | dBA |\n| --- | --- |\n| Fort Drum | 62 |\n| Camp Ravenna | 58 |"
    other = tables.rows_asked(text + "\n" + noise, "site dBA at Camp Ravenna")
    assert other == tables.PassageRows("Table 4-7 Noise Levels", ["Site", "dBA"], [["Camp Ravenna", "58"]], True)


def test_the_page_holding_a_row_is_the_one_with_the_whole_row(fresh, tmp_path):
    """Impact tables repeat their values: page 1's "Air quality | No effect | No effect" must not stand for page 2's
    "Noise | No effect | No effect"."""
    doc = pymupdf.open()
    for rows in (["Air quality No effect No effect", "Soils Minor effect No effect"],
                 ["Water Minor effect Minor effect", "Noise No effect No effect"]):
        page = doc.new_page()
        page.insert_textbox(pymupdf.Rect(72, 72, 540, 300), PROSE, fontsize=10)
        for i, row in enumerate(rows):
            page.insert_text((72, 340 + 22 * i), row, fontsize=10)
    doc.save(tmp_path / "effects.pdf")
    res = fresh.ingest_file(str(tmp_path / "effects.pdf"))
    assert page_render.page_holding(res.doc_id, 1, 2, ("Noise No effect No effect",)) == 2
    assert page_render.page_holding(res.doc_id, 1, 2, ("Air quality No effect No effect",)) == 1
    assert page_render.page_holding(res.doc_id, 1, 2, ("Wildlife No effect Major effect",)) == 1  # none: the first



def test_a_passage_over_two_pages_opens_where_most_of_it_is(fresh, tmp_path):
    res = fresh.ingest_file(str(build(tmp_path / "wetlands.pdf")))
    tail = "Mitigation would restore forested swamp at a two to one ratio within the same watershed, monitored for " \
           "five years."
    assert page_render.page_most_of(res.doc_id, 1, 2, "receiver. " + tail * 2) == 2  # one word of page 1, then page 2
    assert page_render.page_most_of(res.doc_id, 1, 2, PROSE) == 1

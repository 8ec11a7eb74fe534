"""Citations that open the page: numbered, de-duplicated sources; cited markers; kept originals; rendered pages with
the passage highlighted (pixels checked); the Ask page's sources opening a page."""
from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from lib.core.errors import UserError
from lib.documents import originals, page_render
from lib.qa import citations
from lib.qa.context_passage import ContextPassage
from tests.conftest import ROOT, SAMPLE_PDF

HL = page_render.HIGHLIGHT_RGB
Z = page_render.DEFAULT_ZOOM


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    h = tmp_path / "home"
    monkeypatch.setenv("NEPAQA_HOME", str(h))
    return h


# ----- numbering and de-duplication ----------------------------------------------------------------------------
def ctx(doc, ps, pe, text, **kw):
    return ContextPassage.from_dict({"doc_id": doc, "page_start": ps, "page_end": pe, "text": text, **kw})


def stored(*dicts):
    return [ContextPassage.from_dict(d) for d in dicts]


CONTEXTS = [
    ctx("a", 71, 71, "Wetland losses would be offset one two three four five", doc_name="FEIS",
        section="4.3 Water Resources › Wetlands", score=0.9),
    ctx("a", 71, 72, "one two three four five by restoring twelve acres of marsh", score=0.95),
    ctx("b", 71, 71, "Another EIS on the same page number", doc_name="DEIS", score=0.5),
    ctx("a", 71, 71, "Wetland losses would be offset one two three four five", score=0.4),
    ctx("a", 80, 80, "Noise from construction", doc_name="FEIS", score=0.3),
    ctx("a", 72, 73, "Monitoring would continue for five years", doc_name="FEIS", score=0.2),
]


def test_number_sources_dedups_and_merges_spans():
    sources = citations.number_sources(CONTEXTS)
    assert [(s.n, s.doc_id, s.page_start, s.page_end) for s in sources] == [
        (1, "a", 71, 73), (2, "b", 71, 71), (3, "a", 80, 80)]
    s1, s2, s3 = sources
    assert s1.contexts == [0, 1, 3, 5] and s2.contexts == [2] and s3.contexts == [4]
    assert s1.label == "FEIS › 4.3 Water Resources › Wetlands, pp. 71–73"
    assert s2.label == "DEIS, p. 71"
    assert s3.label == "FEIS, p. 80"
    assert s1.score == 0.95
    # overlapping chunks give their shared words once; the repeated chunk is not repeated
    assert s1.text.count("Wetland losses") == 1
    assert "offset one two three four five by restoring twelve acres of marsh" in s1.text
    assert "Monitoring would continue" in s1.text


def test_a_wider_span_folds_later_sources_in():
    sources = citations.number_sources([ctx("a", 10, 10, "x"), ctx("a", 12, 12, "y"), ctx("c", 1, 1, "z"),
                                        ctx("a", 10, 12, "w")])
    assert [(s.n, s.doc_id, s.page_start, s.page_end, s.contexts) for s in sources] == [
        (1, "a", 10, 12, [0, 1, 3]), (2, "c", 1, 1, [2])]


def test_defaults_pageless_passages_and_labels():
    sources = citations.number_sources(stored({"page_start": 5, "page_end": 5, "text": "t"},
                                              {"page_start": 5, "page_end": 6, "text": "u", "section": ["3 Air", "3.1 Dust"]}),
                                       default_doc_id="d1", default_doc_name="CIS FEIS")
    assert len(sources) == 1 and sources[0].doc_id == "d1"
    assert sources[0].label == "CIS FEIS › 3 Air › 3.1 Dust, pp. 5–6"
    assert citations.number_sources(stored({"page_start": 9, "page_end": 9, "text": "t"}))[0].label == "p. 9"
    gold = citations.number_sources(stored({"page_start": None, "page_end": None, "text": "pasted"},
                                           {"page_start": None, "page_end": None, "text": "pasted"},
                                           {"page_start": None, "page_end": None, "text": "other"}))
    assert [(s.n, s.label, s.text) for s in gold] == [(1, "passage", "pasted"), (2, "passage", "other")]
    assert citations.number_sources([]) == []


@pytest.mark.parametrize("answer, max_n, expected", [
    ("Wetlands are restored [1].", None, {1}),
    ("Both say so [2, 3].", None, {2, 3}),
    ("Yes [1][2].", None, {1, 2}),
    ("See [2; 4] and [2].", None, {2, 4}),
    ("Ranges [1-3] and [5–6].", None, {1, 2, 3, 5, 6}),
    ("[ 7 ]", None, {7}),
    ("No markers at all.", None, set()),
    ("[0] is not a source", None, set()),
    ("The [2013] NDAA [1]", 5, {1}),
    ("[page 71] [a] [1.5]", None, set()),
    ("", None, set()),
    (None, None, set()),
])
def test_cited_numbers(answer, max_n, expected):
    assert citations.cited_numbers(answer, max_n=max_n) == expected


# ----- originals ----------------------------------------------------------------------------------------------
def test_originals_save_path_delete(home: Path):
    assert originals.path("abc123") is None
    p = originals.save("abc123", b"%PDF-1.7 first")
    assert p == home / "originals" / "abc123.pdf" and p.read_bytes() == b"%PDF-1.7 first"
    originals.save("abc123", b"%PDF-1.7 second")  # replaced whole
    assert originals.path("abc123").read_bytes() == b"%PDF-1.7 second"
    assert [f.name for f in (home / "originals").iterdir()] == ["abc123.pdf"]  # no temp file left behind
    assert originals.delete("abc123") is True
    assert originals.path("abc123") is None
    assert originals.delete("abc123") is False  # deleting twice is fine
    for bad in ("../escape", "a/b", "", ".hidden", "x" * 200):
        assert originals.path(bad) is None
        with pytest.raises(UserError):
            originals.save(bad, b"x")
    assert not (home / "escape.pdf").exists()


# ----- rendered pages ------------------------------------------------------------------------------------------
FIRST = "The quick brown fox jumps over the lazy dog near the river corridor."
SECOND = "Wetlands mitigation would restore twelve acres of marsh habitat."
THIRD = "Later text mentions the river corridor again in passing, nothing else."


def make_pdf(n_pages: int = 3) -> bytes:
    doc = pymupdf.open()
    for i in range(n_pages):
        page = doc.new_page(width=612, height=792)
        if i == 1:  # page 2: the known text at known places
            page.insert_text((72, 200), FIRST, fontsize=12)
            page.insert_text((72, 400), SECOND, fontsize=12)
            page.insert_text((72, 600), THIRD, fontsize=12)
        else:
            page.insert_text((72, 100), f"Filler page {i + 1} with some words on it.", fontsize=12)
    data = doc.tobytes()
    doc.close()
    return data


@pytest.fixture
def fake_doc(home: Path) -> str:
    originals.save("fakedoc0001", make_pdf())
    return "fakedoc0001"


def is_hl(px) -> bool:
    return all(abs(a - b) <= 12 for a, b in zip(px[:3], HL, strict=True))


def hl_pixels(pix: pymupdf.Pixmap) -> list[tuple[int, int]]:
    return [(x, y) for y in range(0, pix.height, 2) for x in range(0, pix.width, 2) if is_hl(pix.pixel(x, y))]


def test_highlight_inside_the_passage_rectangle(fake_doc):
    kept = originals.path(fake_doc).read_bytes()
    rects = page_render.highlight_rects(fake_doc, 2, FIRST)
    assert len(rects) == 1
    x0, y0, x1, y1 = rects[0]
    assert 70 <= x0 <= 74 and 185 <= y0 < 200 < y1 <= 206 and x1 > 300  # where insert_text put it
    pix = pymupdf.Pixmap(page_render.render_page(fake_doc, 2, highlight=FIRST))
    assert (pix.width, pix.height) == (round(612 * Z), round(792 * Z))
    inside = [(x, y) for y in range(int(y0 * Z) + 1, int(y1 * Z) - 1) for x in range(int(x0 * Z) + 1, int(x1 * Z) - 1)]
    share = sum(is_hl(pix.pixel(x, y)) for x, y in inside) / len(inside)
    assert share > 0.4, share  # the background of the passage is the highlight colour (glyphs stay dark)
    found = hl_pixels(pix)
    assert found
    margin = 4  # pixels
    assert all(x0 * Z - margin <= x <= x1 * Z + margin and y0 * Z - margin <= y <= y1 * Z + margin for x, y in found)
    # nothing of the highlight colour without a highlight, and the file on disk is unchanged
    assert not hl_pixels(pymupdf.Pixmap(page_render.render_page(fake_doc, 2)))
    assert originals.path(fake_doc).read_bytes() == kept


def test_highlight_ignores_case_breaks_and_stray_phrases(fake_doc):
    # case and spacing do not matter; the passage's tail from the next page ("the river corridor") also occurs
    # further down this page, far from the passage, and must not be highlighted there
    passage = FIRST.upper().replace(" ", "\n", 3) + "\nThen the next page: the river corridor again in passing."
    rects = page_render.highlight_rects(fake_doc, 2, passage)
    assert len(rects) == 1 and rects[0][1] < 200 < rects[0][3]
    two = page_render.highlight_rects(fake_doc, 2, FIRST + " " + SECOND)
    assert len(two) == 2 and two[1][1] < 400 < two[1][3]
    assert page_render.highlight_rects(fake_doc, 2, "words that are nowhere on the page at all") == []
    assert page_render.highlight_rects(fake_doc, 1, FIRST) == []  # not on page 1


def test_renders_same_size_and_errors(fake_doc, home):
    a = page_render.render_page(fake_doc, 1)
    b = page_render.render_page(fake_doc, 1)
    c = page_render.render_page(fake_doc, 2, highlight=SECOND)
    sizes = {(p.width, p.height) for p in map(pymupdf.Pixmap, (a, b, c))}
    assert sizes == {(918, 1188)}
    assert a[:8] == b"\x89PNG\r\n\x1a\n"
    assert page_render.page_count(fake_doc) == 3
    for bad in (0, 4, -1):
        with pytest.raises(UserError, match="out of range"):
            page_render.render_page(fake_doc, bad)
    with pytest.raises(UserError, match="out of range"):
        page_render.highlight_rects(fake_doc, 9, FIRST)
    with pytest.raises(page_render.NoOriginalError):
        page_render.render_page("unknowndoc99", 1)
    with pytest.raises(UserError):
        page_render.page_count("unknowndoc99")
    with pytest.raises(UserError, match="Zoom"):
        page_render.render_page(fake_doc, 1, zoom=100)
    big = pymupdf.Pixmap(page_render.render_page(fake_doc, 1, zoom=2))
    assert (big.width, big.height) == (1224, 1584)


def test_sample_eis_page_five(home):
    originals.save("sampleeis001", SAMPLE_PDF.read_bytes())
    sentence = ("The 2013 NDAA requires MDA to prepare this EIS to evaluate possible additional locations in the U.S. "
                "best suited for future deployment of an interceptor capable of protecting the homeland")
    rects = page_render.highlight_rects("sampleeis001", 5, sentence)
    assert rects and all(r[2] > r[0] and r[3] > r[1] for r in rects)
    pix = pymupdf.Pixmap(page_render.render_page("sampleeis001", 5, highlight=sentence))
    assert (pix.width, pix.height) == (918, 1188)
    assert hl_pixels(pix)
    # a chunk's own text (from the stored text layer, with its line breaks) finds its place too
    page_text = pymupdf.open(SAMPLE_PDF)[4].get_text()
    chunk = page_text[page_text.index("An additional site"):][:400]
    assert page_render.highlight_rects("sampleeis001", 5, chunk)


@pytest.mark.parametrize("right", [
    ["Alternative B: none", "Alternative C: two", "or fewer at the site"],  # 3 words between a cell's lines
    ["Alternative B would affect none of them", "Alternative C would affect two or fewer",
     "acres at the northern end of the site"],  # 6 to 8: more than a stray page number
])
def test_a_quote_in_a_table_cell_marks_that_cell_not_the_other_columns(home, right):
    """A table page's text layer reads a row's cells in turn, so one cell's sentence comes back with the other
    columns' cells between its lines. Highlighting the quoted sentence marks its own cell's three lines, and no
    word of the other column (main marked the whole stretch, the other column's cells with it)."""
    left = ["The proposed action would", "affect twelve acres of", "wetlands near Fox Creek."]
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    for row, (a, b) in enumerate(zip(left, right, strict=True)):
        page.insert_text((72, 200 + 16 * row), a, fontsize=11)
        page.insert_text((340, 200 + 16 * row), b, fontsize=11)
    originals.save("tabledoc001", doc.tobytes())
    doc.close()
    order = [w[4] for w in pymupdf.open(originals.path("tabledoc001"))[0].get_text("words", sort=False)]
    assert order.index("Alternative") < order.index("affect")  # the text layer interleaves the columns
    quote = "The proposed action would affect twelve acres of wetlands near Fox Creek."
    rects = page_render.highlight_rects("tabledoc001", 1, quote, cover=page_render.QUOTE_COVER)
    assert len(rects) == 3 and all(r[0] >= 70 and r[2] < 330 for r in rects), rects
    # the passage as the text layer reads it (both columns) marks both columns' lines
    passage = " ".join(f"{a} {b}" for a, b in zip(left, right, strict=True))
    assert any(r[0] >= 330 for r in page_render.highlight_rects("tabledoc001", 1, passage))


# ----- the Ask page ------------------------------------------------------------------------------------------
def _ask_page(answer: str, contexts: list[ContextPassage]):
    from streamlit.testing.v1 import AppTest

    from lib.app import ask as ask_case
    from lib.qa.ask import AskResult

    r = AskResult(model="local/extractive", mode="rag", answer=answer, closed=False, verdict=None,
                  contexts=contexts, question="What does the fox do?")
    at = AppTest.from_file(str(ROOT / "pages" / "ask.py"), default_timeout=120)
    at.session_state["last_grid"] = ask_case.Grid(r.question, [r.model], ["rag"], None, None, False, None, rows=[r])
    at.run()
    assert not at.exception
    return at


def test_ask_page_sources_open_the_page(fake_doc):
    contexts = [ctx(fake_doc, 2, 2, FIRST, doc_name="Fake FEIS", section="3.2 Rivers", score=0.8),
                ctx(fake_doc, 2, 2, FIRST, doc_name="Fake FEIS", score=0.7),
                ctx("neverkept001", 4, 4, "a passage of an old document", doc_name="Old EIS", score=0.1)]
    at = _ask_page("The fox jumps [1].", contexts)
    # two documents: one short line per source, each naming its document (no section paths)
    assert any(c.value == "Sources — the answer cites [1]  \n[1] Fake FEIS, p. 2  \n[2] Old EIS, p. 4"
               for c in at.caption), [c.value for c in at.caption]
    labels = [e.label for e in at.expander]
    assert "[1] Fake FEIS › 3.2 Rivers, p. 2 · **cited**" in labels
    assert "[2] Old EIS, p. 4" in labels
    # the cited source's page image comes first, with the passage highlighted ("The fox jumps" is not a
    # sentence of the page); an uncited source's page is one toggle away, and one whose original was not kept
    # says so and shows its text
    assert len(at.get("image")) == 1
    assert any("Page 2 of 3 · the cited passage highlighted" in c.value for c in at.caption)
    assert not [i for i in at.info if "original PDF was not kept" in i.value]
    opens = [t for t in at.toggle if t.label == "Open page"]
    assert len(opens) == 1
    opens[0].set_value(True).run()
    assert any("original PDF was not kept" in i.value for i in at.info)
    texts = [t.value for t in at.text]
    assert "a passage of an old document" in texts and FIRST not in texts  # the kept page's text waits
    toggles = [t for t in at.toggle if t.label == "Show the passage as text"]
    assert len(toggles) == 2
    toggles[0].set_value(True).run()
    assert FIRST in [t.value for t in at.text]
    next(b for b in at.button if b.label == "Next ▶").click().run()
    assert any(c.value == "Page 3 of 3" for c in at.caption)
    assert next(b for b in at.button if b.label == "Next ▶").disabled
    next(b for b in at.button if b.label == "◀ Previous").click().run()
    assert any("Page 2 of 3 · the cited passage highlighted" in c.value for c in at.caption)


def test_a_citation_highlights_the_quoted_sentences_not_the_whole_passage(fake_doc):
    """The cited passage holds two sentences; the answer quotes the second. The page marks that sentence's line
    only; an answer that quotes nothing of the page gets the whole passage marked."""
    from pages._ui import cited_page

    passage = FIRST + "\n" + SECOND
    at = _ask_page(SECOND + " [1]", [ctx(fake_doc, 2, 2, passage, doc_name="Fake FEIS", score=0.8)])
    assert any("Page 2 of 3 · the quoted sentences highlighted" in c.value for c in at.caption), \
        [c.value for c in at.caption]
    at = _ask_page("Foxes are known to be quick animals in general [1].",
                   [ctx(fake_doc, 2, 2, passage, doc_name="Fake FEIS", score=0.8)])
    assert any("Page 2 of 3 · the cited passage highlighted" in c.value for c in at.caption)
    # what the page draws: the quoted sentence's line alone (y = 400), or both lines of the passage
    png, lines, _, what = cited_page(fake_doc, 2, (SECOND,), passage)
    rows = {y for _, y in hl_pixels(pymupdf.Pixmap(png))}
    assert (lines, what) == (1, "quotes") and rows and all(380 * Z <= y <= 410 * Z for y in rows), sorted(rows)[:3]
    png, lines, _, what = cited_page(fake_doc, 2, ("Foxes are known to be quick animals in general.",), passage)
    rows = {y for _, y in hl_pixels(pymupdf.Pixmap(png))}
    assert (lines, what) == (2, "passage") and any(y < 210 * Z for y in rows) and any(y > 380 * Z for y in rows)
    # three words in common ("the river corridor") are not a quote: the passage is marked instead
    assert cited_page(fake_doc, 2, ("Fish live along the river corridor all year.",), passage)[3] == "passage"

"""The Documents use case (lib/app/documents.py), without Streamlit: the documents table, what the filters and the
sort keep, titles told apart, a finished ingest as the page reports it, and a passage's place and snippet (the
rules the Documents page used to apply itself). The collection is tests/app/conftest.py's."""
import json

import pytest

from lib.app import documents, search
from lib.core import UserError, config
from lib.core.context_text import pages_label
from lib.documents import Chunk
from lib.qa.context_passage import ContextPassage
from lib.storage import jobs
from lib.storage.engine import get_engine


def test_the_table_has_a_row_per_document_with_its_metadata_in_the_column_order(corpus):
    svc, a, b = corpus
    library = documents.Library(svc)
    rows = library.rows(library.docs, stale={b})
    assert [list(r) for r in rows] == [list(documents.COLUMNS)] * 2
    first, second = rows
    assert (first["title"], first["type"], first["lead agency"], first["states"], first["published"],
            first["tags"], first["search"], first["id"]) == (
        "Arctic Refuge Leasing Program Final EIS", "Final EIS", "Bureau of Land Management", "AK", "2019-09",
        "caribou", "ready", a)
    assert (second["title"], second["search"], second["file"]) == ("wetland.pdf", "by words only, until embedded again",
                                                                  "wetland.pdf")
    assert library.every_tag() == ["caribou"] and library.stale() == set()  # both made by the embedder in use


def test_the_filters_and_the_sort_keep_and_order_the_documents(corpus):
    svc, a, b = corpus
    library = documents.Library(svc)
    ids = lambda docs: [d.doc_id for d in docs]  # noqa: E731
    assert ids(library.listed(search.Filters())) == [a, b]  # by title: "arctic…" before "wetland"
    assert ids(library.listed(search.Filters(), "Title", descending=True)) == [b, a]
    assert ids(library.listed(search.Filters(), "Publish date")) == [b, a]  # 2012 before 2019-09
    assert ids(library.listed(search.Filters(text="leasing"))) == [a]  # words of the title
    assert ids(library.listed(search.Filters(text="wetland"))) == [b]  # the file name
    assert ids(library.listed(search.Filters(agencies=["U.S. Army"], years="2010-2013"))) == [b]
    assert ids(library.listed(search.Filters(states=["AK"], tags=["caribou"]))) == [a]
    assert ids(library.listed(search.Filters(states=["TX"]))) == []
    with pytest.raises(UserError, match="year"):
        library.listed(search.Filters(years="recently"))


def test_the_whole_year_range_is_no_filter_so_documents_of_unknown_year_stay(corpus):
    svc, _, _ = corpus
    facets = documents.Library(svc).facets()
    assert facets.years == [2012, 2019]
    assert facets.year_range(2012, 2019) == ""
    assert facets.year_range(2013, 2019) == "2013-2019"


def test_two_documents_with_one_title_are_told_apart_by_their_file_names(corpus):
    svc, a, b = corpus
    library = documents.Library(svc)
    assert library.names(library.docs) == {a: "Arctic Refuge Leasing Program Final EIS", b: "wetland.pdf"}
    from lib.documents import metadata

    metadata.set_values(b, {"title": "Arctic Refuge Leasing Program Final EIS"}, svc.docs.engine)
    library = documents.Library(svc)
    assert library.names(library.docs) == {a: "Arctic Refuge Leasing Program Final EIS · caribou.pdf",
                                           b: "Arctic Refuge Leasing Program Final EIS · wetland.pdf"}
    assert library.info(b).name == "wetland.pdf"


def test_the_last_finished_ingest_is_reported_with_its_pages_without_text():
    engine = get_engine()
    done = {"doc_id": "d1", "name": "conus_eis", "pages": 74, "chunks": 300, "chars": 1000, "tokens": 250,
            "empty_pages": list(range(1, 36)), "seconds": 12.5, "skipped": False, "stage_seconds": {}}
    # jobs recorded as the jobs table holds them (their handler is not run here): the newest failed, one before it
    # finished
    job_id = jobs._insert("ingest", "Index x", {"path": "/nowhere.pdf", "name": "x"}, "app", engine, "running")
    jobs._finish(engine, job_id, status="done", result=json.dumps(done))
    failed = jobs._insert("ingest", "Index y", {"path": "/nowhere.pdf", "name": "y"}, "app", engine, "running")
    jobs._finish(engine, failed, status="failed", error="not a PDF")
    assert documents.last_finished([failed]) is None
    got = documents.last_finished([failed, job_id])
    assert got is not None and (got.doc_id, got.pages, got.chunks, got.seconds) == ("d1", 74, 300, 12.5)
    [(level, note)] = got.page_notes()  # a job from before OCR: its empty pages are blank pages
    assert level == "info" and note.startswith("35 page(s) have no text (blank")
    assert "30 …" in note and ", 31" not in note  # the first 30 listed
    assert got.headline("CONUS Interceptor Site EIS") == "CONUS Interceptor Site EIS (file conus_eis) is ready."
    assert documents.IngestDone("conus_eis", 1, 1, 1.0, skipped=True).headline("conus eis") == \
        "conus eis is ready — it was already indexed."
    assert documents.IngestDone("x", 1, 1, 1.0).page_notes() == []
    # the bundled sample's file name is ours, not the user's: not named
    for ours in (config.SAMPLE_PDF.name, config.SAMPLE_PDF.stem):  # the job stores the stem
        assert documents.IngestDone(ours, 1, 1, 1.0).headline("CONUS EIS") == "CONUS EIS is ready."


def test_pages_read_by_ocr_left_unread_or_failed_are_each_said_with_what_to_do():
    done = {"doc_id": "d2", "name": "appendix", "pages": 9, "chunks": 20, "seconds": 30.0, "empty_pages": [4, 7, 9],
            "ocr_pages": [2, 3], "ocr_failed": {"7": "OCR could not read it (RuntimeError: bad image)"},
            "ocr_missing": [4]}
    got = documents.parse(documents.IngestDone, done, "result")
    assert got.ocr_failed == {7: "OCR could not read it (RuntimeError: bad image)"}
    notes = got.page_notes()
    assert notes == [
        ("info", "2 scanned page(s) were read by OCR: 2, 3. Their passages say so where they are cited; check a "
                 "figure against the page."),
        ("warning", "1 scanned page(s) were not read, because Tesseract (the OCR engine) is not installed here; "
                    "install it (Debian or Ubuntu: `apt install tesseract-ocr tesseract-ocr-eng`): 4. Then index the "
                    "PDF again (or Re-index it): those pages are read and the rest stays as it is."),
        ("warning", "1 scanned page(s) could not be read by OCR: 7 (p. 7: OCR could not read it (RuntimeError: bad "
                    "image)). The other pages are indexed."),
        ("info", "1 page(s) have no text (blank, or a picture without words): 9."),
    ]


def test_a_passage_shows_its_pages_and_a_snippet_cut_at_a_word():
    one = Chunk(0, "t", 4, 4, 0, 1, 1)
    two = Chunk(1, "t", 4, 5, 0, 1, 1)
    assert (documents.pages_of(one), documents.pages_of(two), documents.page_span(two)) == ("p. 4", "pp. 4–5", "4–5")
    # a passage over two pages, one of them a scan: only that page is said to be read by OCR
    assert (documents.page_span(two, [5]), documents.page_span(two, [4, 5]), documents.page_span(one, [5])) == (
        "4–5 (p. 5 read by OCR)", "4–5 (read by OCR)", "4")
    assert (pages_label(4, 5, [5]), pages_label(4, 6, [4, 6]), pages_label(4, 5, [4, 5])) == (
        "pp. 4–5, p. 5 read by OCR", "pp. 4–6, pp. 4, 6 read by OCR", "pp. 4–5, read by OCR")
    # a stored source from before pages were named ("ocr": true) was read by OCR on all its pages
    assert ContextPassage.from_dict({"text": "t", "page_start": 4, "page_end": 5, "ocr": True}).ocr == (4, 5)
    assert ContextPassage.from_dict({"text": "t", "page_start": 4, "page_end": 5, "ocr": [5]}).pages == \
        "pp. 4–5, p. 5 read by OCR"
    assert documents.snippet("short text", 320) == "short text"
    assert documents.snippet("the caribou herd calves", 14) == "the caribou …"
    assert documents.snippet("abcdefghij", 4) == "abcd …"


def test_the_chunk_list_is_in_page_order_with_table_passages_marked():
    prose = [Chunk(0, "Wetlands were mapped.", 3, 3, 0, 10, 4), Chunk(1, "Noise was measured.", 9, 9, 10, 20, 4)]
    table = Chunk(2, "Table 4-2 Wetland Acres\n| Type | Acres |\n| --- | --- |\n| Marsh | 12.4 |", 4, 5, 0, 1, 20)
    rows = documents.chunk_rows([*prose, table], [5])
    assert [(r["#"], r["pages"], r["kind"]) for r in rows] == [
        (0, "3", "text"), (2, "4–5 (p. 5 read by OCR)", "table"), (1, "9", "text")]

"""Scanned pages are read by OCR (Tesseract, installed by .ci/run from Debian's packages): a page rendered to an
image inside a text PDF, and a PDF that is all scans, are indexed, found, cited as read by OCR, and highlighted
on their words. Without Tesseract (really absent from the PATH of a command-line process), a scan-only PDF is
refused with what to install, and a mixed one is indexed from its text pages with the scans named. A Tesseract
that cannot read (its English data broken) leaves the scans unread with the reason, and nothing half-indexed."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pymupdf
import pytest

from lib.collection.document_store import DocumentStore
from lib.collection.vectors import VectorIndex, make_client
from lib.core.errors import UserError
from lib.documents import ocr, page_render
from lib.qa.contexts import rag_context
from lib.retrieval.retriever import Retriever
from lib.storage.engine import get_engine
from tests.conftest import ROOT, SAMPLE_PDF

# The sample EIS's pages 12–15: page 12 opens "ES.2.3 Ground-Based Midcourse Defense Concept and Facilities".
SOURCE_PAGES = [11, 12, 13, 14]  # 0-based
SCANNED_HEADING = "Ground-Based Midcourse Defense Concept and Facilities"


def build(path: Path, scanned: set[int], dpi: int = 150, stamp: str = "") -> Path:
    """Pages 12–15 of the sample EIS; those whose place (from 1) is in ``scanned`` as an image of the page only
    (with ``stamp``, a line of real text over the image, as a scanning service stamps page numbers)."""
    src = pymupdf.open(SAMPLE_PDF)
    out = pymupdf.open()
    for place, i in enumerate(SOURCE_PAGES, start=1):
        if place in scanned:
            page = out.new_page(width=src[i].rect.width, height=src[i].rect.height)
            page.insert_image(page.rect, pixmap=src[i].get_pixmap(dpi=dpi))
            if stamp:
                page.insert_text((page.rect.width - 140, page.rect.height - 20), stamp, fontsize=9)
        else:
            out.insert_pdf(src, from_page=i, to_page=i)
    out.save(path)
    return path


@pytest.fixture
def fresh(tmp_path, services):
    index = VectorIndex(make_client("", str(tmp_path / "chroma")), services.docs.index.embedder)
    return DocumentStore(index, get_engine(f"sqlite:///{tmp_path / 'db.sqlite'}"))


def test_tesseract_is_installed_here():
    """The tests below read real scans; .ci/run installs tesseract-ocr and tesseract-ocr-eng."""
    assert shutil.which("tesseract") and ocr.tessdata(), "install Tesseract: apt install tesseract-ocr tesseract-ocr-eng"


def test_a_scanned_page_in_a_text_pdf_is_read_found_cited_and_highlighted(fresh, tmp_path):
    pdf = build(tmp_path / "mixed.pdf", scanned={1})
    assert pymupdf.open(pdf)[0].get_text().strip() == ""  # really no text layer on the scan
    steps: list[str] = []
    res = fresh.ingest_file(str(pdf), progress=lambda stage, frac, msg: steps.append(msg))
    assert res.ocr_pages == [1] and res.empty_pages == [] and res.ocr_missing == [] and res.ocr_failed == {}
    assert "reading scanned page 1 by OCR (1 of 1)" in steps  # progress counts the OCR pages
    info = fresh.get(res.doc_id)
    assert info.ocr_pages == [1]  # marked so in the store
    page_text = fresh.pages(res.doc_id)[0].text
    assert SCANNED_HEADING in " ".join(page_text.split())

    hits = Retriever(fresh).search(res.doc_id, "ground-based midcourse defense concept and facilities", k=3,
                                   method="lexical")
    top = hits[0]
    assert (top.chunk.page_start, top.ocr_pages) == (1, (1,)) and top.as_dict()["read_by_ocr"] == [1]
    cited = rag_context(hits).passages[0]
    assert cited.pages == "p. 1, read by OCR" and cited.as_dict()["ocr"] == [1]
    text_page = next(h for h in Retriever(fresh).search(res.doc_id, "missile defense", k=10) if h.chunk.page_start > 1)
    assert text_page.ocr_pages == () and "OCR" not in rag_context([text_page]).passages[0].pages

    # the highlight lands on the scan's words: inside the heading's line at the top of the page
    rects = page_render.highlight_rects(res.doc_id, 1, SCANNED_HEADING)
    assert len(rects) == 1
    x0, y0, x1, y1 = rects[0]
    assert 60 < y0 < 120 and x1 - x0 > 200, rects


def test_a_scan_with_a_stamped_page_number_is_still_read_by_ocr(fresh, tmp_path):
    pdf = build(tmp_path / "stamped.pdf", scanned={1}, stamp="Appendix C-12")
    assert pymupdf.open(pdf)[0].get_text().strip() == "Appendix C-12"  # a text layer: the stamp alone
    res = fresh.ingest_file(str(pdf))
    assert res.ocr_pages == [1]
    assert SCANNED_HEADING in " ".join(fresh.pages(res.doc_id)[0].text.split())
    assert page_render.highlight_rects(res.doc_id, 1, SCANNED_HEADING)  # on the words OCR read, not the stamp's


def test_a_scanned_table_is_read_row_by_row(fresh, tmp_path):
    """A browser walk found PyMuPDF's built-in OCR reading Table ES-2's caption and none of its rows."""
    res = fresh.ingest_file(str(build(tmp_path / "table_scan.pdf", scanned={2}, dpi=200)))
    lines = [" ".join(ln.split()) for ln in fresh.pages(res.doc_id)[1].text.splitlines()]
    assert "Missile Assembly Building (MAB) 40,000 sq. ft." in lines
    assert "Security Control Facility (SCF) 18,000 sq. ft." in lines
    top = Retriever(fresh).search(res.doc_id, "How large is the Missile Assembly Building?", k=3)
    assert any(h.chunk.page_start <= 2 <= h.chunk.page_end and "40,000" in h.chunk.text for h in top)


def test_a_pdf_of_scans_only_is_indexed_page_by_page(fresh, tmp_path):
    res = fresh.ingest_file(str(build(tmp_path / "all_scans.pdf", scanned={1, 2, 3, 4})))
    assert res.ocr_pages == [1, 2, 3, 4] and res.empty_pages == [] and res.chunks >= 4
    assert all(len(p.text) > 500 for p in fresh.pages(res.doc_id))


def _cli(home: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lib", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, env={**env, "NEPAQA_HOME": str(home)})


def test_without_tesseract_on_the_path_scans_are_named_and_text_pages_indexed(tmp_path, services):
    bare = {k: v for k, v in os.environ.items() if k != "TESSDATA_PREFIX"}
    bare["PATH"] = str(tmp_path / "empty-bin")  # no tesseract (and nothing else) to be found
    (tmp_path / "empty-bin").mkdir()
    home = tmp_path / "home"
    only_scans = _cli(home, "ingest", str(build(tmp_path / "scans.pdf", scanned={1, 2, 3, 4})), env=bare)
    assert only_scans.returncode == 2 and only_scans.stdout == ""
    assert only_scans.stderr.strip().splitlines()[-1] == (
        "error: 'scans.pdf' has no text layer on any of its 4 pages: it is scanned, and Tesseract (the OCR engine) is "
        "not installed here; install it (Debian or Ubuntu: `apt install tesseract-ocr tesseract-ocr-eng`). Then "
        "upload it again.")
    mixed = build(tmp_path / "mixed.pdf", scanned={1})
    got = _cli(home, "ingest", str(mixed), env=bare)
    assert got.returncode == 0, got.stderr
    out = json.loads(got.stdout)
    assert (out["ocr_missing"], out["ocr_pages"], out["empty_pages"], out["status"]) == ([1], [], [1], "indexed")
    listed = json.loads(_cli(home, "docs", env=bare).stdout)
    assert [(d["pages"], d["read_by_ocr"], d["scans_unread"]) for d in listed] == [(4, [], [1])]  # the scan only

    # with Tesseract back on the PATH, indexing the same PDF again reads the scan (it is not "already indexed")
    again = _cli(home, "ingest", str(mixed), env=dict(os.environ))
    assert again.returncode == 0, again.stderr
    redone = json.loads(again.stdout)
    assert (redone["ocr_pages"], redone["ocr_missing"], redone["status"]) == ([1], [], "indexed")


def test_ocr_that_cannot_read_names_the_pages_and_indexes_the_rest(fresh, tmp_path, monkeypatch):
    """Tesseract itself fails (its English data is broken: a real Tesseract error, not a stub)."""
    broken = tmp_path / "tessdata"
    broken.mkdir()
    (broken / "eng.traineddata").write_bytes(b"not a language model" * 100)
    monkeypatch.setenv("TESSDATA_PREFIX", str(broken))
    try:
        res = fresh.ingest_file(str(build(tmp_path / "mixed.pdf", scanned={1})))
        assert res.ocr_pages == [] and list(res.ocr_failed) == [1] and res.chunks >= 3
        assert res.ocr_failed[1].startswith("OCR could not read it (") and "Tesseract" in res.ocr_failed[1]
        before = [d.doc_id for d in fresh.list()]
        with pytest.raises(UserError, match=r"has no text layer, and OCR could not read its pages \(p\. 1: OCR"):
            fresh.ingest_file(str(build(tmp_path / "scans.pdf", scanned={1, 2, 3, 4})))
        assert [d.doc_id for d in fresh.list()] == before  # nothing half-indexed
    finally:
        monkeypatch.delenv("TESSDATA_PREFIX")
        # Tesseract whole again: a re-index reads the scan left unread, from the kept original
    redone = fresh.reindex(res.doc_id, 200, 40)
    assert (redone.ocr_pages, redone.ocr_failed, redone.empty_pages) == ([1], {}, [])
    assert fresh.get(res.doc_id).ocr_pages == [1]
    assert SCANNED_HEADING in " ".join(fresh.pages(res.doc_id)[0].text.split())


def test_one_scan_tesseract_cannot_read_is_named_and_the_other_scans_are_read(fresh, tmp_path):
    """Two scans in a text PDF: page 1 reads; page 5, a long strip (a profile drawing's sheet, 14,000 points tall),
    is more than Tesseract takes ("Image too large", a real Tesseract error). Page 1 is indexed and cited as read
    by OCR; page 5 is named with the reason; the text pages are indexed."""
    pdf = build(tmp_path / "mixed.pdf", scanned={1})
    doc = pymupdf.open(pdf)
    strip = doc.new_page(width=60, height=14000)
    art = pymupdf.open()
    drawn = art.new_page(width=60, height=200)
    drawn.insert_text((5, 50), "Station 12+00", fontsize=9)
    strip.insert_image(strip.rect, pixmap=drawn.get_pixmap(dpi=150))  # an image only: no text layer
    doc.save(tmp_path / "strip.pdf")
    res = fresh.ingest_file(str(tmp_path / "strip.pdf"))
    assert res.ocr_pages == [1] and list(res.ocr_failed) == [5] and res.ocr_missing == []
    assert "Image too large" in res.ocr_failed[5] and res.ocr_failed[5].startswith("OCR could not read it (")
    assert SCANNED_HEADING in " ".join(fresh.pages(res.doc_id)[0].text.split())
    assert fresh.get(res.doc_id).ocr_pages == [1] and len(fresh.pages(res.doc_id)) == 5
    hits = Retriever(fresh).search(res.doc_id, "ground-based midcourse defense concept and facilities", k=3,
                                   method="lexical")
    assert rag_context(hits).passages[0].pages == "p. 1, read by OCR"


def test_the_same_scanned_pdf_under_other_chunk_settings_is_not_read_by_ocr_again(fresh, tmp_path):
    pdf = str(build(tmp_path / "mixed.pdf", scanned={1}))
    first = fresh.ingest_file(pdf, chunk_size=200, chunk_overlap=40)
    steps: list[str] = []
    again = fresh.ingest_file(pdf, chunk_size=120, chunk_overlap=20, progress=lambda s, f, m: steps.append(m))
    assert not [m for m in steps if "by OCR" in m] and not again.skipped  # chunked again, from the stored pages
    assert (again.doc_id, again.ocr_pages, again.name) == (first.doc_id, [1], "mixed") and again.chunks > first.chunks
    info = fresh.get(again.doc_id)
    assert (info.chunk_size, info.ocr_pages) == (120, [1])
    assert SCANNED_HEADING in " ".join(fresh.pages(again.doc_id)[0].text.split())

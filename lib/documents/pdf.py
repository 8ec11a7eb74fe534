"""PDF text extraction with PyMuPDF, page by page, with checks that explain bad input."""
from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lib.core.errors import UserError
from lib.core.progress import FractionProgressFn
from lib.documents import mupdf_cache, ocr, tables

PDF_MAGIC = b"%PDF-"
# A page with fewer letters and digits than this is treated as having no text layer.
MIN_PAGE_CHARS = 3


_SYMBOL_FONT = re.compile("[\uf020-\uf0ff]")


def symbol_bullets(text: str) -> str:
    """Text for a reader: the private-use characters symbol fonts (Wingdings, Symbol) leave in extracted text
    (U+F0B7 is their bullet), which browsers draw as empty boxes, shown as "•". The indexed text is unchanged."""
    return _SYMBOL_FONT.sub("•", text)


@dataclass
class Page:
    number: int  # 1-based physical page number
    text: str


@dataclass(frozen=True)
class LayoutLine:
    """One line of text on one of the first pages, as laid out: what the metadata rules read to find a title page
    by its largest type. ``line`` is its 1-based place among the page's lines from the top."""

    page: int
    line: int
    text: str
    size: float  # the largest font size in the line, in points
    bold: bool
    y: float  # the top of the line, in points from the top of the page


LAYOUT_PAGES = 8  # the first pages whose layout is kept: covers, inside covers, title pages and abstracts


@dataclass
class ExtractedPdf:
    name: str
    sha256: str
    n_bytes: int
    pages: list[Page]
    empty_pages: list[int] = field(default_factory=list)
    pdf_metadata: dict = field(default_factory=dict)  # the PDF's own title, author, subject, keywords, dates
    toc: list = field(default_factory=list)  # the outline: [level, title, page] rows, as PyMuPDF's get_toc()
    layout: list[LayoutLine] = field(default_factory=list)  # the first LAYOUT_PAGES pages' lines with their type
    image_share: dict[int, float] = field(default_factory=dict)  # of those pages, the share each covers in images
    ocr_pages: list[int] = field(default_factory=list)  # pages whose text was read by OCR (scans)
    ocr_failed: dict[int, str] = field(default_factory=dict)  # scanned pages OCR could not read, with the reason
    ocr_missing: list[int] = field(default_factory=list)  # scanned pages left unread: Tesseract is not installed
    tables: list[tables.Table] = field(default_factory=list)  # tables read cell by cell (find_tables=True)
    data: bytes | None = field(default=None, repr=False)  # the original file, kept under NEPAQA_HOME for citations
    source: Path | None = None  # or, read from a file, that file (copied there, never held in memory whole)

    @property
    def n_pages(self) -> int:
        return len(self.pages)

    @property
    def n_chars(self) -> int:
        return sum(len(p.text) for p in self.pages)


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    """A file's SHA-256, read a megabyte at a time (a 900-page PDF is never held whole for it)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _describe_non_pdf(head: bytes) -> str:
    signatures = {
        b"PK\x03\x04": "a ZIP archive (perhaps a .docx or .xlsx file)",
        b"\xd0\xcf\x11\xe0": "an old Microsoft Office file",
        b"\x89PNG": "a PNG image",
        b"\xff\xd8\xff": "a JPEG image",
        b"{\\rtf": "an RTF document",
        b"<!DOCTYPE html": "an HTML page",
        b"<html": "an HTML page",
    }
    for magic, what in signatures.items():
        if head.startswith(magic):
            return what
    try:
        head.decode("utf-8")
        return "a plain text file"
    except UnicodeDecodeError:
        return "not a PDF"


def check_size(n_bytes: int, name: str, max_bytes: int) -> None:
    if n_bytes > max_bytes:
        raise UserError(
            f"'{name}' is {n_bytes / 1e6:.1f} MB, over the {max_bytes / 1e6:.0f} MB limit. "
            "Split the PDF, or raise NEPAQA_MAX_UPLOAD_MB (and server.maxUploadSize in .streamlit/config.toml)."
        )


def check_pdf_bytes(data: bytes, name: str, max_bytes: int) -> None:
    """Raise UserError for input that cannot be a usable PDF, before PyMuPDF sees it."""
    if len(data) == 0:
        raise UserError(f"'{name}' is an empty file (0 bytes). Choose the PDF again; the upload may have failed.")
    check_size(len(data), name, max_bytes)
    if PDF_MAGIC not in data[:1024]:
        what = _describe_non_pdf(data[:16].lstrip())
        raise UserError(
            f"'{name}' is not a PDF: its content looks like {what}. Export or save the document as PDF and upload that."
        )


def _open_checked(data: bytes | Path, name: str, max_bytes: int) -> Any:
    """The PDF (its bytes, or a file read where it is) opened by PyMuPDF (the caller closes it), or UserError saying
    why it cannot be indexed: not a PDF, damaged beyond repair (PyMuPDF rebuilds a broken cross-reference table
    where it can), password-protected, or without pages."""
    if isinstance(data, Path):
        with open(data, "rb") as fh:
            head = fh.read(1024)
        check_size(data.stat().st_size, name, max_bytes)
        check_pdf_bytes(head, name, max_bytes)
    else:
        check_pdf_bytes(data, name, max_bytes)
    import pymupdf  # imported here: commands that only read the store never load it

    try:
        doc = pymupdf.open(data, filetype="pdf") if isinstance(data, Path) else pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:  # PyMuPDF raises FileDataError/RuntimeError for damaged files
        raise UserError(
            f"'{name}' is damaged and cannot be read as a PDF ({type(exc).__name__}). "
            "Download it again or re-save it from the original application."
        ) from exc
    try:
        if doc.needs_pass or doc.is_encrypted:
            raise UserError(
                f"'{name}' is password-protected. Remove the password (e.g. print to a new PDF) and upload it again."
            )
        if doc.page_count == 0:
            raise UserError(f"'{name}' has no pages. Check that the export finished and upload the full PDF.")
    except BaseException:
        doc.close()
        raise
    return doc


def check_readable(data: bytes | Path, name: str, max_bytes: int) -> int:
    """The checks ``extract_pdf`` makes before reading a page, alone (a set of volumes is checked whole before any
    is indexed): the number of pages, or UserError saying what is wrong."""
    doc = _open_checked(data, name, max_bytes)
    try:
        return int(doc.page_count)
    finally:
        doc.close()


def extract_pdf(data: bytes | Path, name: str, max_bytes: int, progress: FractionProgressFn | None = None,
                find_tables: bool = False, sha256: str | None = None, file_name: str | None = None) -> ExtractedPdf:
    """Extract every page's text, reading scanned pages by OCR where Tesseract is installed (``progress`` counts
    them), and with ``find_tables`` the tables of its text pages. ``data``: the PDF's bytes, or its file, which
    PyMuPDF reads where it is (``sha256``: the file's, when the caller has it already). Raises UserError for
    corrupt, encrypted or zero-page files, and for one with no text on any page, naming the file as the user knows
    it (``file_name``, "volume 2.pdf"; else the document's ``name``)."""
    doc = _open_checked(data, file_name or name, max_bytes)
    say = progress or (lambda f, m: None)
    try:
        pages: list[Page] = []
        scans: list[int] = []
        n = doc.page_count
        say(0.0, f"reading the outline and headings of {n} pages")
        meta, toc = info_and_outline(doc)
        for i in range(n):
            if i % 25 == 0:  # a long PDF's reading shows it moves
                say(0.1 + 0.4 * i / n, f"reading page {i + 1} of {n}")
            mupdf_cache.shrink_every(i)
            try:
                page = doc.load_page(i)
                text = _usable(page.get_text("text", sort=False))
                if ocr.is_scan(page, text):  # no text layer, or only a stamp on a page-sized image
                    scans.append(i + 1)
            except Exception:  # one damaged page must not sink the document
                text = ""
            pages.append(Page(number=i + 1, text=text))
        read = read_scans(doc, scans, (lambda f, m: say(0.5 + 0.35 * f, m)) if progress else None)
        for number, text in read.texts.items():
            pages[number - 1].text = text
        if find_tables:
            say(0.85, "finding tables")
        found = tables.find_tables(doc, [p.text if p.number not in read.texts else "" for p in pages]) \
            if find_tables else []
        layout, image_share = first_pages_layout(doc)
    finally:
        doc.close()
        mupdf_cache.shrink()
    empty = [p.number for p in pages if not p.text]
    if len(empty) == len(pages):
        raise UserError(_no_text(file_name or name, len(pages), read))
    return ExtractedPdf(name=name, sha256=sha256 or (sha256_file(data) if isinstance(data, Path) else sha256_bytes(data)),
                        n_bytes=data.stat().st_size if isinstance(data, Path) else len(data), pages=pages,
                        empty_pages=empty, pdf_metadata=meta, toc=toc, layout=layout, image_share=image_share,
                        ocr_pages=sorted(read.texts), ocr_failed=read.failed, ocr_missing=read.missing,
                        tables=found, data=None if isinstance(data, Path) else data,
                        source=data if isinstance(data, Path) else None)


def _usable(text: str) -> str:
    """A page's text, or "" when it has too few letters and digits to be a text layer."""
    text = text.replace("\x00", "").strip()
    return text if sum(ch.isalnum() for ch in text) >= MIN_PAGE_CHARS else ""


@dataclass
class ScansRead:
    """What OCR made of a document's pages without a text layer."""

    texts: dict[int, str] = field(default_factory=dict)  # page → the text OCR read
    failed: dict[int, str] = field(default_factory=dict)  # page → why OCR could not read it
    missing: list[int] = field(default_factory=list)  # scans left unread: Tesseract is not installed


def read_scans(doc: Any, scans: list[int], progress: FractionProgressFn | None = None) -> ScansRead:
    """Read by OCR the pages ``scans`` (from 1) of an open PDF: those ``ocr.is_scan`` chose at extraction, or a
    store's unread scans. One page's failure is recorded with its reason; the others go on."""
    out = ScansRead()
    folder = ocr.tessdata() if scans else None
    if scans and folder is None:
        out.missing = list(scans)
        return out
    for k, n in enumerate(scans):
        if progress:
            progress(k / len(scans), f"reading scanned page {n} by OCR ({k + 1} of {len(scans)})")
        try:
            text = _usable(ocr.read_text(doc.load_page(n - 1), folder or ""))
        except ocr.OcrError as exc:
            out.failed[n] = str(exc)
            continue
        except Exception as exc:  # noqa: BLE001 - a page that cannot even be loaded: named, not fatal
            out.failed[n] = f"the page cannot be read ({type(exc).__name__})"
            continue
        if text:
            out.texts[n] = text
    if progress and scans:
        progress(1.0, f"{len(out.texts)} scanned page(s) read by OCR")
    return out


def _no_text(name: str, n_pages: int, read: ScansRead) -> str:
    """Why a PDF gave no text on any page, and what to do."""
    if read.missing:
        return (f"'{name}' has no text layer on any of its {n_pages} pages: it is scanned, and {ocr.MISSING}. "
                "Then upload it again.")
    if read.failed:
        page, why = next(iter(read.failed.items()))
        return (f"'{name}' has no text layer, and OCR could not read its pages (p. {page}: {why}). "
                "Check that the PDF opens in a viewer, or run `ocrmypdf in.pdf out.pdf` and upload the result.")
    return (f"'{name}' has no text on any of its {n_pages} pages, and OCR found no words on them (blank pages or "
            "pictures without text). Check that this is the right file.")


def first_pages_layout(doc: Any, n_pages: int = LAYOUT_PAGES) -> tuple[list[LayoutLine], dict[int, float]]:
    """The lines of the first pages with their font size and weight, top to bottom, and the share of each page
    that images cover. A page that cannot be read is left out; this never raises."""
    lines: list[LayoutLine] = []
    share: dict[int, float] = {}
    for i in range(min(n_pages, doc.page_count)):
        try:
            page = doc.load_page(i)
            r = page.rect
            area = max(1.0, r.width * r.height)
            covered = sum(_overlap(im["bbox"], (r.x0, r.y0, r.x1, r.y1)) for im in page.get_image_info())
            share[i + 1] = round(min(1.0, covered / area), 3)
            found = []
            for block in page.get_text("dict", flags=0).get("blocks", []):
                for line in block.get("lines", []):
                    spans = [sp for sp in line.get("spans", []) if sp.get("text", "").strip()]
                    if not spans:
                        continue
                    text = " ".join(" ".join(sp["text"] for sp in spans).split()).replace("\x00", "")
                    size = round(max(float(sp.get("size", 0)) for sp in spans), 1)
                    bold = all(int(sp.get("flags", 0)) & 16 or "bold" in str(sp.get("font", "")).lower() for sp in spans)
                    found.append((round(float(line["bbox"][1]), 1), float(line["bbox"][0]), text, size, bold))
            for n, (y, _x, text, size, bold) in enumerate(sorted(found), start=1):
                lines.append(LayoutLine(page=i + 1, line=n, text=text, size=size, bold=bool(bold), y=y))
        except Exception:  # noqa: BLE001 - layout is evidence for metadata; a page it cannot read just gives none
            continue
    return lines, share


def _overlap(a: Any, b: Any) -> float:
    """The area two (x0, y0, x1, y1) boxes share."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return max(0.0, w) * max(0.0, h)


def info_and_outline(doc: Any) -> tuple[dict[str, str], list[list[Any]]]:
    """An open PDF's info dictionary (non-empty text values) and outline ([level, title, page] rows): the PDF's
    own bookmarks, or, where it has none, headings detected by font size and weight."""
    try:
        meta = {k: v for k, v in (doc.metadata or {}).items() if isinstance(v, str) and v.strip()}
        toc = [[int(lv), str(t).strip(), int(pg)] for lv, t, pg, *_ in doc.get_toc(simple=True) if str(t).strip()]
    except Exception:  # a broken outline or info dictionary must not sink the document
        meta, toc = {}, []
    if not toc:
        try:
            toc = detect_headings(doc)
        except Exception:  # detection is a bonus: a page it cannot read leaves the document without sections
            toc = []
    return meta, toc


_NUMBERED = re.compile(r"^(?:(?:chapter|section|appendix)\s+)?([A-Z]{1,3}[.-]?)?(\d{1,2}(?:\.\d{1,2}){0,4})\.?\s+\S",
                       re.IGNORECASE)
HEADING_SCALE = 1.15  # a numbered line this much larger than the body text (or bold at body size) is a heading
TITLE_SCALE = 1.35  # an unnumbered line must be this much larger


def detect_headings(doc: Any, max_pages: int = 2000) -> list[list]:
    """Headings found by type: the body size is the most common font size (by characters); a line is a heading
    when it is short and either numbered ("4.3 Water Resources", "ES.3.1 …", "Chapter 2 …") and larger or bold,
    or unnumbered and much larger. Its level is its numbering depth (or 1). Not tuned to any document."""
    lines: list[tuple[int, str, float, bool]] = []
    sizes: Counter = Counter()
    for i in range(min(doc.page_count, max_pages)):
        mupdf_cache.shrink_every(i)
        for block in doc.load_page(i).get_text("dict", flags=0).get("blocks", []):
            for line in block.get("lines", []):
                spans = [sp for sp in line.get("spans", []) if sp.get("text", "").strip()]
                if not spans:
                    continue
                for sp in spans:
                    sizes[round(float(sp.get("size", 0)), 1)] += len(sp["text"])
                text = " ".join(" ".join(sp["text"] for sp in spans).split())
                if not 3 <= len(text) <= 120 or text.endswith((".", ",", ";")) and not _NUMBERED.match(text):
                    continue  # never a heading: not kept (a long PDF's every line would be)
                size = min(float(sp.get("size", 0)) for sp in spans)
                bold = all(int(sp.get("flags", 0)) & 16 or "bold" in str(sp.get("font", "")).lower() for sp in spans)
                lines.append((i + 1, text, size, bold))
    if not sizes:
        return []
    body = sizes.most_common(1)[0][0]
    toc: list[list] = []
    for number, text, size, bold in lines:
        m = _NUMBERED.match(text)
        if m and (size >= body * HEADING_SCALE or (bold and size >= body * 0.98)):
            level = m.group(2).count(".") + 1
        elif not m and size >= body * TITLE_SCALE and any(c.isalpha() for c in text):
            level = 1
        else:
            continue
        if toc and toc[-1][2] == number and toc[-1][1] == text:
            continue
        toc.append([min(level, 6), text, number])
    return toc


def check_pdf_path(path: str | Path, max_bytes: int, file_name: str | None = None) -> Path:
    """The cheap checks of a PDF path (exists, a file, not too big), before any reading; ``file_name`` names it in
    a message (an upload is kept under a name of ours)."""
    p = Path(path)
    if not p.exists():
        raise UserError(f"No such file: {p}")
    if p.is_dir():
        raise UserError(f"{p} is a folder, not a PDF file.")
    check_size(p.stat().st_size, file_name or p.name, max_bytes)  # before reading a huge file into memory
    return p


def read_pdf_file(path: str | Path, max_bytes: int, name: str | None = None,
                  progress: FractionProgressFn | None = None) -> ExtractedPdf:
    p = check_pdf_path(path, max_bytes)
    return extract_pdf(p, name or p.stem, max_bytes, progress)

"""PDF text extraction with PyMuPDF, page by page, with checks that explain bad input."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import UserError

PDF_MAGIC = b"%PDF-"
# A page with fewer letters and digits than this is treated as having no text layer.
MIN_PAGE_CHARS = 3


@dataclass
class Page:
    number: int  # 1-based physical page number
    text: str


@dataclass
class ExtractedPdf:
    name: str
    sha256: str
    n_bytes: int
    pages: list[Page]
    empty_pages: list[int] = field(default_factory=list)
    pdf_metadata: dict = field(default_factory=dict)  # the PDF's own title, author, subject, keywords, dates
    toc: list = field(default_factory=list)  # the outline: [level, title, page] rows, as PyMuPDF's get_toc()
    data: bytes | None = field(default=None, repr=False)  # the original file, kept under NEPAQA_HOME for citations

    @property
    def n_pages(self) -> int:
        return len(self.pages)

    @property
    def n_chars(self) -> int:
        return sum(len(p.text) for p in self.pages)


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


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


def extract_pdf(data: bytes, name: str, max_bytes: int) -> ExtractedPdf:
    """Extract every page's text. Raises UserError for corrupt, encrypted, zero-page or textless files."""
    check_pdf_bytes(data, name, max_bytes)
    import pymupdf  # imported here: commands that only read the store never load it

    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
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
        pages: list[Page] = []
        empty: list[int] = []
        meta, toc = info_and_outline(doc)
        for i in range(doc.page_count):
            try:
                text = doc.load_page(i).get_text("text", sort=False)
            except Exception:  # one damaged page must not sink the document
                text = ""
            text = text.replace("\x00", "").strip()
            if sum(ch.isalnum() for ch in text) < MIN_PAGE_CHARS:
                empty.append(i + 1)
                text = ""
            pages.append(Page(number=i + 1, text=text))
    finally:
        doc.close()
    if len(empty) == len(pages):
        raise UserError(
            f"'{name}' has no text layer on any of its {len(pages)} pages: it looks scanned. "
            "Run OCR on it first (for example `ocrmypdf in.pdf out.pdf`) and upload the result."
        )
    return ExtractedPdf(name=name, sha256=sha256_bytes(data), n_bytes=len(data), pages=pages, empty_pages=empty,
                        pdf_metadata=meta, toc=toc, data=data)


def info_and_outline(doc: Any) -> tuple[dict, list]:
    """An open PDF's info dictionary (non-empty text values) and outline ([level, title, page] rows)."""
    try:
        meta = {k: v for k, v in (doc.metadata or {}).items() if isinstance(v, str) and v.strip()}
        toc = [[int(lv), str(t).strip(), int(pg)] for lv, t, pg, *_ in doc.get_toc(simple=True) if str(t).strip()]
    except Exception:  # a broken outline or info dictionary must not sink the document
        meta, toc = {}, []
    return meta, toc


def read_pdf_file(path: str | Path, max_bytes: int, name: str | None = None) -> ExtractedPdf:
    p = Path(path)
    if not p.exists():
        raise UserError(f"No such file: {p}")
    if p.is_dir():
        raise UserError(f"{p} is a folder, not a PDF file.")
    check_size(p.stat().st_size, p.name, max_bytes)  # before reading a huge file into memory
    return extract_pdf(p.read_bytes(), name or p.stem, max_bytes)

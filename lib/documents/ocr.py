"""Reading a scanned page: Tesseract OCR through PyMuPDF.

MuPDF carries Tesseract's engine; it needs Tesseract's language data, which Debian's ``tesseract-ocr`` and
``tesseract-ocr-eng`` packages install. Tesseract counts as installed when its ``tesseract`` command is on the
PATH and lists English among its languages (or ``TESSDATA_PREFIX`` names a folder with ``eng.traineddata``):
the same test a user can run by hand. A page is read by OCR only when its text layer is empty and it holds an
image (a scan); a blank page costs nothing.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pymupdf

LANGUAGE = "eng"
DPI = 200  # Tesseract reads 10-point type well from 200 dpi; 300 dpi costs about a third more for the same text
INSTALL = "apt install tesseract-ocr tesseract-ocr-eng"
MISSING = f"Tesseract (the OCR engine) is not installed here; install it (Debian or Ubuntu: `{INSTALL}`)"


class OcrError(Exception):
    """One page could not be read by OCR; the message says why, in a user's words."""


def tessdata() -> str | None:
    """Tesseract's language folder when Tesseract and its English data are installed, else None. Found once and
    kept; not finding it is not kept, so Tesseract installed while the app runs is used from the next page on."""
    return _found() or _look()


_FOUND: dict[str, str] = {}  # {"folder": …} once found, for this process


def _found() -> str | None:
    return _FOUND.get(os.environ.get("TESSDATA_PREFIX", ""))


def _look() -> str | None:
    folder = _lookup()
    if folder is not None:
        _FOUND[os.environ.get("TESSDATA_PREFIX", "")] = folder
    return folder


def _lookup() -> str | None:
    prefix = os.environ.get("TESSDATA_PREFIX")
    if prefix:
        return prefix if (Path(prefix) / f"{LANGUAGE}.traineddata").is_file() else None
    exe = shutil.which("tesseract")
    if exe is None:
        return None
    try:
        out = subprocess.run([exe, "--list-langs"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    listing = out.stdout + out.stderr  # Tesseract 4 prints the list on stderr, 5 on stdout
    folder = re.search(r'List of available languages in "(.+?)"', listing)
    if folder is None or not re.search(rf"(?m)^{LANGUAGE}$", listing):
        return None
    return folder.group(1)


STAMP = 40  # letters and digits: no more than a scan's stamped page number or label, not a text layer
STAMPED_SCAN = 0.5  # the share of the page an image covers, under such a stamp, for the page to be a scan


def is_scan(page: pymupdf.Page, text: str = "") -> bool:
    """Whether OCR should read the page: it holds an image, and its text layer (``text``) is empty, or no more than
    a stamp ("Appendix C-12") over an image that covers half the page."""
    chars = sum(ch.isalnum() for ch in text)
    if chars >= STAMP:
        return False
    try:
        images = page.get_image_info()
    except Exception:  # noqa: BLE001 - a page whose resources cannot be read is not worth an OCR pass
        return False
    if not images or chars < 3:
        return bool(images)
    r = page.rect
    covered = sum(max(0.0, min(b[2], r.x1) - max(b[0], r.x0)) * max(0.0, min(b[3], r.y1) - max(b[1], r.y0))
                  for b in (im["bbox"] for im in images))
    return covered >= STAMPED_SCAN * max(1.0, r.width * r.height)


def textpage(page: pymupdf.Page, folder: str) -> Any:
    """The page's text as Tesseract reads it from a 200 dpi rendering, as a PyMuPDF TextPage (words with their
    boxes in page coordinates, so a highlight lands on them). Raises OcrError."""
    try:
        return page.get_textpage_ocr(dpi=DPI, full=True, language=LANGUAGE, tessdata=folder)
    except Exception as exc:  # MuPDF raises RuntimeError for a page it cannot render or Tesseract cannot read
        raise OcrError(f"OCR could not read it ({type(exc).__name__}: {str(exc)[:120]})") from exc


def read_text(page: pymupdf.Page, folder: str) -> str:
    """The page's text read by OCR, in reading order. Raises OcrError."""
    tp = textpage(page, folder)
    try:
        return str(page.get_text("text", textpage=tp, sort=False)).replace("\x00", "").strip()
    except Exception as exc:  # noqa: BLE001 - reading words out of a TextPage MuPDF made; a page's failure, named
        raise OcrError(f"OCR's text could not be read back ({type(exc).__name__})") from exc


def read_words(page: pymupdf.Page, folder: str) -> list[tuple]:
    """The page's words read by OCR, as PyMuPDF's ``get_text("words")`` gives them. Raises OcrError."""
    tp = textpage(page, folder)
    return list(page.get_text("words", textpage=tp, sort=False))

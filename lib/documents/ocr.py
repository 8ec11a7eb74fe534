"""Reading a scanned page: PyMuPDF renders it, Tesseract reads it.

Tesseract is Debian's ``tesseract-ocr`` with ``tesseract-ocr-eng``. It counts as installed when its ``tesseract``
command is on the PATH and lists English among its languages (its language folder may be named by
``TESSDATA_PREFIX``, which must hold ``eng.traineddata``): the same test a user can run by hand. A page is read by OCR only when its text layer is empty and it holds an
image (a scan); a blank page costs nothing.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pymupdf

LANGUAGE = "eng"
DPI = 200  # Tesseract reads 10-point type well from 200 dpi; 300 dpi costs about a third more for the same text
INSTALL = "apt install tesseract-ocr tesseract-ocr-eng"
MISSING = f"Tesseract (the OCR engine) is not installed here; install it (Debian or Ubuntu: `{INSTALL}`)"


class OcrError(Exception):
    """One page could not be read by OCR; the message says why, in a user's words."""


_FOUND: dict[str, str] = {}  # TESSDATA_PREFIX ("" unset) → the language folder found for it, in this process


def tessdata() -> str | None:
    """Tesseract's language folder when Tesseract and its English data are installed, else None. Found once and
    kept; not finding it is not kept, so Tesseract installed while the app runs is used from the next page on."""
    prefix = os.environ.get("TESSDATA_PREFIX", "")
    if prefix not in _FOUND and (folder := _lookup()) is not None:
        _FOUND[prefix] = folder
    return _FOUND.get(prefix)


def _lookup() -> str | None:
    exe = shutil.which("tesseract")
    if exe is None:
        return None
    prefix = os.environ.get("TESSDATA_PREFIX")
    if prefix:
        return prefix if (Path(prefix) / f"{LANGUAGE}.traineddata").is_file() else None
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


TIMEOUT = 300  # seconds for one page: a huge map sheet at 200 dpi, not a hang


def read_words(page: pymupdf.Page, folder: str) -> list[tuple]:
    """The page's words as Tesseract reads them from a 200 dpi grey rendering, each as PyMuPDF's
    ``get_text("words")`` gives a word (x0, y0, x1, y1, text, block, line, word), in the page's coordinates, so a
    highlight lands on them. Raises OcrError.

    Tesseract runs as its own command, on a rendering PyMuPDF makes: PyMuPDF's built-in OCR (``get_textpage_ocr``)
    read the rows of a scanned table as a few stray words where the command reads every row. One OpenMP thread:
    Tesseract's threads spin against each other on a small machine (11 s a page against 1.3 s on 2 cores)."""
    import pymupdf  # heavy: imported on first use, off start-up

    exe = shutil.which("tesseract")
    if exe is None:
        raise OcrError(MISSING)
    try:
        png = page.get_pixmap(dpi=DPI, colorspace=pymupdf.csGRAY).tobytes("png")
    except Exception as exc:  # noqa: BLE001 - a page MuPDF cannot render: this page's failure, named
        raise OcrError(f"the page could not be rendered for OCR ({type(exc).__name__})") from exc
    try:
        out = subprocess.run([exe, "stdin", "stdout", "-l", LANGUAGE, "--tessdata-dir", folder, "tsv"], input=png,
                             capture_output=True, timeout=TIMEOUT, check=False,
                             env={**os.environ, "OMP_THREAD_LIMIT": "1"})
    except (OSError, subprocess.SubprocessError) as exc:
        raise OcrError(f"OCR could not read it ({type(exc).__name__})") from exc
    if out.returncode != 0:
        why = " ".join(out.stderr.decode("utf-8", "replace").split())[:160] or f"exit status {out.returncode}"
        raise OcrError(f"OCR could not read it (Tesseract: {why})")
    scale = 72.0 / DPI
    x0, y0 = page.rect.x0, page.rect.y0
    words = []
    for row in out.stdout.decode("utf-8", "replace").splitlines()[1:]:
        f = row.split("\t")
        if len(f) < 12 or f[0] != "5" or not f[11].strip():
            continue
        left, top, width, height = (int(v) for v in f[6:10])
        words.append((x0 + left * scale, y0 + top * scale, x0 + (left + width) * scale, y0 + (top + height) * scale,
                      f[11].strip(), int(f[2]) * 1000 + int(f[3]), int(f[4]), int(f[5])))
    return words


def read_text(page: pymupdf.Page, folder: str) -> str:
    """The page's text read by OCR: its lines in Tesseract's reading order, a blank line between blocks. Raises
    OcrError."""
    lines: list[str] = []
    last: tuple[int, int] | None = None
    for w in read_words(page, folder):
        at = (w[5], w[6])
        if last is None or at != last:
            if last is not None and at[0] != last[0]:
                lines.append("")
            lines.append(w[4])
            last = at
        else:
            lines[-1] += " " + w[4]
    return "\n".join(lines).strip()

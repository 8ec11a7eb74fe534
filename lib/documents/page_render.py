"""One page of a document's original PDF as a PNG, with a cited passage highlighted (PyMuPDF).

Pages are numbered from 1, as printed in citations. Every render uses the same zoom unless told otherwise, so two
renders of one page have the same size. The passage is found by aligning its words with the page's words (the
page's text layer, in reading order): the longest common runs, kept together when they sit where the passage
puts them, give the words to highlight (words the page holds between them that the passage does not, such as
a table's other columns read between one cell's lines, stay unmarked). Line breaks, end-of-line hyphens, case and punctuation do not matter, so a
chunk's text (cut from the same text layer) or a sentence a person types both find their place. The original file
is never changed: the highlight is added to the page in memory and drawn with the page.
"""
from __future__ import annotations

import functools
import math
import re
import threading
import unicodedata
from collections.abc import Sequence
from difflib import SequenceMatcher
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import select

from lib.core.errors import UserError
from lib.documents import ocr, originals
from lib.storage import tables
from lib.storage.engine import get_engine

if TYPE_CHECKING:
    import pymupdf

DEFAULT_ZOOM = 1.5  # 108 dpi: a US Letter page is 918 × 1188 pixels
MIN_ZOOM, MAX_ZOOM = 0.25, 4.0
HIGHLIGHT_RGB = (255, 235, 59)  # a yellow marker, multiplied with the page (text stays dark)
MIN_RUN = 3  # words: a shorter common run between passage and page is taken as chance
MAX_EXTRA_GAP = 3  # words a page may hold between two runs beyond what the passage holds there (a page number)

Rect = tuple[float, float, float, float]


class NoOriginalError(UserError):
    """The document is unknown, or its original PDF was not kept (indexed before citations could open pages)."""


def _doc_name(doc_id: str) -> str | None:
    """The document's name from the store, or None when the store does not know it (or cannot be read)."""
    try:
        with get_engine().connect() as c:
            r = c.execute(select(tables.documents.c.name).where(tables.documents.c.doc_id == doc_id)).first()
        return None if r is None else str(r[0])
    except Exception:  # noqa: BLE001 - only used to word the message better
        return None


def _original(doc_id: str) -> Path:
    p = originals.path(doc_id)
    if p is not None:
        return p
    name = _doc_name(doc_id)
    if name is None:
        raise NoOriginalError(f"No document with id '{doc_id}' has its original PDF kept here. "
                         "Check the id with `python -m lib docs`.")
    raise NoOriginalError(f"The original PDF of '{name}' was not kept (it was indexed before citations could open "
                     "pages). Ingest the same PDF again (`python -m lib ingest FILE` or an upload) to keep it.")


def _open(doc_id: str) -> pymupdf.Document:
    import pymupdf  # heavy: imported on first use, off start-up

    path = _original(doc_id)
    try:
        doc = pymupdf.open(path)
    except Exception as exc:  # a damaged file under NEPAQA_HOME
        raise UserError(f"The kept original of document '{doc_id}' cannot be read ({type(exc).__name__}). "
                        "Re-index the document to keep a fresh copy.") from exc
    if doc.needs_pass:
        doc.close()
        raise UserError(f"The kept original of document '{doc_id}' is password-protected and cannot be shown.")
    return doc


def _load_page(doc: pymupdf.Document, doc_id: str, page: int) -> pymupdf.Page:
    n = doc.page_count
    if isinstance(page, bool) or not isinstance(page, int) or not 1 <= page <= n:
        raise UserError(f"Page {page} is out of range: document '{doc_id}' has {n} page{'s' if n != 1 else ''} "
                        f"(numbered 1 to {n}).")
    return doc.load_page(page - 1)


def page_count(doc_id: str) -> int:
    """How many pages the kept original of ``doc_id`` has."""
    doc = _open(doc_id)
    try:
        return doc.page_count
    finally:
        doc.close()


# ----- finding the passage ----------------------------------------------------------------------------------
_EDGE_PUNCT = re.compile(r"^[^\w]+|[^\w]+$")
_HYPHEN_BREAK = re.compile(r"(\w)[-\u00ad\u2010]\s*\n\s*(\w)")


def _norm(word: str) -> str:
    w = unicodedata.normalize("NFKC", word).casefold().replace("\u2019", "'").replace("\u00ad", "")
    return _EDGE_PUNCT.sub("", w)


def _passage_tokens(text: str) -> list[str]:
    text = _HYPHEN_BREAK.sub(r"\1\2", unicodedata.normalize("NFKC", text or ""))
    return [t for t in (_norm(w) for w in text.split()) if t]


def _page_tokens(words: list) -> tuple[list[str], list[list[int]]]:
    """The page's words as tokens, each with the indexes of the words it came from (an end-of-line hyphenated
    word and its continuation make one token)."""
    tokens: list[str] = []
    owners: list[list[int]] = []
    i = 0
    while i < len(words):
        w = words[i]
        raw = w[4]
        nxt = words[i + 1] if i + 1 < len(words) else None
        if (nxt is not None and raw[-1:] in ("-", "\u00ad", "\u2010") and len(raw) > 1
                and (nxt[5], nxt[6]) != (w[5], w[6])):
            t = _norm(raw[:-1] + nxt[4])
            if t:
                tokens.append(t)
                owners.append([i, i + 1])
            i += 2
            continue
        t = _norm(raw)
        if t:
            tokens.append(t)
            owners.append([i])
        i += 1
    return tokens, owners


def _aligned_runs(page_tokens: list[str], passage: list[str], cover: float = 0.0) -> list[tuple[int, int]]:
    """The page-token ranges ([first, last], in page order) that hold the passage's place on the page; empty when
    it is not there (or, with ``cover``, when that place holds less than that share of the passage's words).

    The ranges are the common runs, and between two runs the page's words only where the passage has as many
    words there (a word spelt differently). Where the page holds more, the extra words are left out: on a table
    page they are the other columns' cells that the text layer reads between the lines of one cell."""
    if not page_tokens or not passage:
        return []
    blocks = [b for b in SequenceMatcher(None, page_tokens, passage, autojunk=False).get_matching_blocks() if b.size]
    need = min(MIN_RUN, len(passage))
    blocks = [b for b in blocks if b.size >= need]
    if not blocks:
        return []
    # Blocks are in order on both sides. Grow a cluster from the longest run, taking a neighbour only when the page
    # holds about as many words between the two as the passage does: a stray common phrase elsewhere is left out.
    # A sentence placed with ``cover`` (a quote) may have a table's other cells between its lines: there the page
    # may hold up to the sentence's own length in extra words between two runs (the cover check still asks for
    # most of its words, in order).
    slack = max(MAX_EXTRA_GAP, len(passage)) if cover else MAX_EXTRA_GAP
    anchor = max(range(len(blocks)), key=lambda j: blocks[j].size)
    lo = hi = anchor
    while lo > 0:
        a, b = blocks[lo - 1], blocks[lo]
        if (b.a - (a.a + a.size)) > (b.b - (a.b + a.size)) + slack:
            break
        lo -= 1
    while hi < len(blocks) - 1:
        a, b = blocks[hi], blocks[hi + 1]
        if (b.a - (a.a + a.size)) > (b.b - (a.b + a.size)) + slack:
            break
        hi += 1
    cluster = blocks[lo:hi + 1]
    if sum(b.size for b in cluster) < cover * len(passage):
        return []
    runs = [[cluster[0].a, cluster[0].a + cluster[0].size - 1]]
    for a, b in zip(cluster, cluster[1:], strict=False):
        page_gap, passage_gap = b.a - (a.a + a.size), b.b - (a.b + a.size)
        if page_gap <= passage_gap:  # the same place, words spelt differently: one run
            runs[-1][1] = b.a + b.size - 1
        else:
            runs.append([b.a, b.a + b.size - 1])
    return [(first, last) for first, last in runs]


_OCR_WORDS: dict[tuple[str, int, int], list] = {}  # (file, its mtime, page) → the words OCR read there
_OCR_WORDS_KEPT = 32  # pages: a reader opens a few scanned pages, again and again as the page reruns
_OCR_LOCK = threading.Lock()  # sessions of the app render pages on threads of their own


def page_words(page: pymupdf.Page) -> list:
    """The page's words with their boxes: its text layer's, or, on a scan without one, the words OCR reads (the
    same reading the ingest indexed, so a passage's highlight lands on them). Empty when neither has words."""
    words = page.get_text("words", sort=False)
    if not ocr.is_scan(page, " ".join(w[4] for w in words)):
        return list(words)
    folder = ocr.tessdata()
    if folder is None:
        return []
    path = str(page.parent.name or "")
    try:
        key = (path, Path(path).stat().st_mtime_ns if path else 0, page.number)
    except OSError:
        key = (path, 0, page.number)
    with _OCR_LOCK:
        if key in _OCR_WORDS:
            _OCR_WORDS[key] = _OCR_WORDS.pop(key)  # the most recently used last: the least recently used go first
            return _OCR_WORDS[key]
    try:
        got = ocr.read_words(page, folder)
    except ocr.OcrError:
        return []
    with _OCR_LOCK:
        _OCR_WORDS[key] = got
        while len(_OCR_WORDS) > _OCR_WORDS_KEPT:
            _OCR_WORDS.pop(next(iter(_OCR_WORDS)), None)
    return got


def _rects_on(page: pymupdf.Page, texts: str | Sequence[str], cover: float = 0.0) -> list[pymupdf.Rect]:
    """One rectangle per line the texts cover on the page (each text found on its own; lines shared merge)."""
    import pymupdf  # heavy: imported on first use, off start-up

    stream = page_words(page)
    # the text layer's order first; then left to right along each printed line, which is how a table's row reads
    # when its PDF wrote the cells column by column (made only when a text is not found in the first)
    orders: list[tuple[list, list[str], list[list[int]]]] = [(stream, *_page_tokens(stream))]
    lines: dict[tuple[int, int], pymupdf.Rect] = {}
    for text in [texts] if isinstance(texts, str) else texts:
        passage = _passage_tokens(text)
        words, tokens, owners = orders[0]
        runs = _aligned_runs(tokens, passage, cover)
        if not runs:
            if len(orders) == 1:
                visual = _visual_order(stream)
                orders.append((visual, *_page_tokens(visual)))
            words, tokens, owners = orders[1]
            runs = _aligned_runs(tokens, passage, cover)
        for run in runs:
            first, last = owners[run[0]][0], owners[run[1]][-1]
            for w in words[first:last + 1]:
                r = pymupdf.Rect(w[:4])
                key = (w[5], w[6]) if words is stream else (round((w[1] + w[3]) / 2 / LINE_BAND), -1)
                lines[key] = lines[key] | r if key in lines else r
    return [r for r in lines.values() if not r.is_empty]


LINE_BAND = 4.0  # points: words whose middles are this close in height sit on one printed line


def _visual_order(words: Sequence[tuple]) -> list:
    """The page's words top to bottom, each printed line left to right."""
    return sorted(words, key=lambda w: (round((w[1] + w[3]) / 2 / LINE_BAND), w[0]))


QUOTE_COVER = 0.8  # a quoted sentence is highlighted only where the page holds at least 80% of its words in order


def highlight_rects(doc_id: str, page: int, text: str | Sequence[str], cover: float = 0.0) -> list[Rect]:
    """The rectangles (PDF points, page coordinates, one per line) that the highlight of ``text`` (a passage, or
    several sentences) covers on ``page`` (from 1); empty when it is not on that page. With ``cover``, a text is
    placed only where the page holds that share of its words (a quoted sentence, not three chance words)."""
    doc = _open(doc_id)
    try:
        p = _load_page(doc, doc_id, page)
        return [tuple(round(v, 2) for v in (r.x0, r.y0, r.x1, r.y1)) for r in _rects_on(p, text, cover)]
    finally:
        doc.close()


@functools.lru_cache(maxsize=256)  # a page rerun asks again; a doc_id names one file's bytes (its hash)
def page_holding(doc_id: str, start: int, end: int, texts: tuple[str, ...]) -> int:
    """The page from ``start`` to ``end`` that holds ``texts`` (a table passage's rows asked about, which may sit on
    its last page): the first where every text is placed whole, else the first where each is placed at
    QUOTE_COVER of its words (a row of "No effect | No effect" on one page must not stand for another's);
    ``start`` when none holds them."""
    for cover in (1.0, QUOTE_COVER) if end > start else ():
        for page in range(start, end + 1):
            placed = [t for t in texts if highlight_rects(doc_id, page, t, cover)]
            if texts and len(placed) == len(texts):
                return page
    return start


@functools.lru_cache(maxsize=256)
def page_most_of(doc_id: str, start: int, end: int, text: str) -> int:
    """The page from ``start`` to ``end`` on which the highlight of ``text`` (a passage over several pages) covers
    the most lines: a passage that begins with a page's last lines opens where most of it is (the first such
    page on a tie)."""
    if end <= start:
        return start
    lines = [len(highlight_rects(doc_id, page, text)) for page in range(start, end + 1)]
    return start + lines.index(max(lines))


def render_page(doc_id: str, page: int, highlight: str | Sequence[str] | None = None, zoom: float = DEFAULT_ZOOM,
                cover: float = 0.0) -> bytes:
    """Page ``page`` (from 1) of the kept original of ``doc_id`` as PNG bytes, with ``highlight`` (a passage, or
    several sentences) marked where it is found on the page (``cover`` as in ``highlight_rects``). Raises UserError
    for an unknown document, one without a kept original, or a page out of range."""
    return render_marked(doc_id, page, highlight, zoom, cover)[0]


def render_marked(doc_id: str, page: int, highlight: str | Sequence[str] | None = None, zoom: float = DEFAULT_ZOOM,
                  cover: float = 0.0) -> tuple[bytes, int, int]:
    """``render_page``, with the number of lines highlighted and the document's page count, from one opening of
    the file and one alignment (what a page viewer shows under the image)."""
    import pymupdf  # heavy: imported on first use, off start-up

    try:
        zoom = float(zoom)
    except (TypeError, ValueError):
        zoom = float("nan")
    if not math.isfinite(zoom) or not MIN_ZOOM <= zoom <= MAX_ZOOM:
        raise UserError(f"Zoom must be a number from {MIN_ZOOM:g} to {MAX_ZOOM:g} (got {zoom!r}).")
    doc = _open(doc_id)
    try:
        p = _load_page(doc, doc_id, page)
        texts = [highlight] if isinstance(highlight, str) else list(highlight or [])
        texts = [t for t in texts if t and t.strip()]
        rects = _rects_on(p, texts, cover) if texts else []
        if rects:
            annot = p.add_highlight_annot(rects)
            annot.set_colors(stroke=[c / 255 for c in HIGHLIGHT_RGB])
            annot.update()
        pix = p.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), annots=True, alpha=False)
        return pix.tobytes("png"), len(rects), doc.page_count
    finally:
        doc.close()  # nothing is saved: the highlight lived only in memory

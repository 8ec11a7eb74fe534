"""The text format of a context, written and read in one place. A model's context is plain text:
- a retrieved source: ``[2] (FEIS › 4.3 Wetlands, p. 71)`` on its own line, then its text;
- a page of full-PDF mode: ``[page 12]``, then the page's text; over several documents each document starts with
  ``=== name ===``;
- ``[…]`` (PASSAGE_GAP) between two passages of one source that are not contiguous text.
``source_block``, ``page_block`` and ``document_block`` write it (qa/contexts.py); ``context_sentences`` reads it
back into whole sentences, each with its source number, page and document (the extractive baseline)."""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from lib.core.sentences import heading_line, is_whole, is_whole_item, split_sentences, strip_heading
from lib.core.text import PASSAGE_GAP, mend

_SOURCE_HEADER = re.compile(r"^\[(\d{1,3})\] \((.*)\)$")
_PAGE_HEADER = re.compile(r"^\[page (\d+)\]$")  # full-PDF mode's page markers
_DOC_HEADER = re.compile(r"^=== (.*) ===$")  # full-PDF mode over several documents
_PAGES_IN_LABEL = re.compile(r"\bpp?\. (\d+)(?:[–-](\d+))?$")
_BULLET = re.compile(r"^(?:[-–—*•▪◦■●o\uf020-\uf0ff]|\(?[a-z0-9]\)|[0-9]{1,2}\.)[\t ]+")  # "-\t", "• ", "(a) ", "1. " list markers
_INLINE_ITEM = re.compile(r"(?:(?<=[:.;])|(?<=[:.;] ))[ \t]+(?=(?:[-–•▪o\uf020-\uf0ff])[\t ]+[A-Z])")


OCR_NOTE = "read by OCR"


def pages_label(start: int | None, end: int | None = None, ocr: Sequence[int] = ()) -> str:
    """A passage's pages as its citation names them: "p. 71", "pp. 71–72", "p. 212, read by OCR" (``ocr``: its
    pages that are scans whose text OCR read), "pp. 4–5, p. 5 read by OCR" where only some are, or "" when it has
    none (a pasted gold passage)."""
    if start is None:
        return ""
    last = start if end is None else end
    pages = f"p. {start}" if last == start else f"pp. {start}–{last}"
    note = ocr_label(start, end, ocr)
    return f"{pages}, {note}" if note else pages


def ocr_label(start: int | None, end: int | None, ocr: Sequence[int]) -> str:
    """"read by OCR" where every page of the span is a scan OCR read, "p. 5 read by OCR" where only some are, or
    ""."""
    if start is None:
        return ""
    last = start if end is None else end
    scanned = sorted({n for n in ocr if start <= n <= last})
    if not scanned:
        return ""
    if len(scanned) == last - start + 1:
        return OCR_NOTE
    return f"{'p.' if len(scanned) == 1 else 'pp.'} {', '.join(map(str, scanned))} {OCR_NOTE}"


def source_block(n: int, label: str, text: str) -> str:
    """A numbered source: its header line, then its text."""
    return f"[{n}] ({label})\n{text}"


def page_block(number: int, text: str) -> str:
    """One page of full-PDF mode: its marker line, then its text."""
    return f"[page {number}]\n{text}"


def document_header(name: str) -> str:
    """The line that starts a document's pages when a full-PDF context holds several."""
    return f"=== {name} ==="


def document_block(name: str, text: str) -> str:
    return f"{document_header(name)}\n{text}"


@dataclass
class Sentence:
    text: str
    source: int | None  # the numbered source it comes from (RAG), else None
    page: str  # "p. 71", "pp. 71–72" or ""
    order: int  # position in the context
    doc: str = ""  # the document it is in, where the context holds several (full-PDF headers, RAG's source_docs)


_TABLE_ROW = re.compile(r"^\|.+\|$")  # "| Fire Station | 8,500 sq. ft. |", "| --- | --- |": a table passage's lines


def context_sentences(context: str, source_docs: dict[int, str] | None = None) -> list[Sentence]:
    """The context's whole sentences with their source number, page and (several documents) document. The lines
    of a passage are joined first: PDF text breaks lines mid-sentence, and a sentence must stay whole. A source
    header, page marker, document header or PASSAGE_GAP line ends a passage, so no sentence runs across two
    passages; and a sentence is kept only if its text occurs in its passage character for character after
    ``mend`` (none is made by the splitting, cleaning or heading removal)."""
    out: list[Sentence] = []
    source: int | None = None
    page = doc = ""
    lines: list[str] = []

    item = [False]  # the passage being read is a list item

    def flush(item_ended: bool = False) -> None:
        """The passage's whole sentences; a list item with no full stop of its own counts as one where it ended
        (``item_ended``: the next item, a heading or a blank line followed it, not a chunk's end)."""
        raw = "\n".join(lines)
        where = mend(raw)
        pieces = split_sentences(raw)
        for s in pieces:
            s = strip_heading(s)
            if s and is_whole(s) and mend(s) in where:
                out.append(Sentence(s, source, page, len(out), doc))
        if item[0] and item_ended and len(pieces) == 1:
            s = " ".join(pieces[0].split())
            if not is_whole(s) and is_whole_item(s) and not heading_line(s) and mend(s) in where:
                out.append(Sentence(s, source, page, len(out), doc))
        lines.clear()
        item[0] = False

    # list items run together on one line ("Tax Revenues: o Local governments … o Both counties …") go on lines
    context = _INLINE_ITEM.sub("\n", context)
    for line in context.splitlines():
        stripped = line.strip()
        head = _SOURCE_HEADER.match(stripped)
        page_mark = _PAGE_HEADER.match(stripped)
        doc_mark = _DOC_HEADER.match(stripped)
        if (head or page_mark or doc_mark or stripped == PASSAGE_GAP
                or (not stripped and lines and source is None)):
            flush(item_ended=not stripped)
            if head:
                source = int(head.group(1))
                m = _PAGES_IN_LABEL.search(head.group(2))
                page = m.group(0) if m else ""
                doc = (source_docs or {}).get(source, "")
            elif page_mark:
                page = f"p. {page_mark.group(1)}"
            elif doc_mark:
                doc, page = doc_mark.group(1), ""
            continue
        if _TABLE_ROW.match(stripped):  # a table passage's Markdown row is no sentence: never quoted, nor run
            flush()                      # into the prose around it (the table's text is in the prose passages too)
            continue
        bullet = _BULLET.match(stripped)
        if bullet:  # a list item starts a new passage, without its marker
            flush(item_ended=True)
            stripped = stripped[bullet.end():].strip()
            item[0] = True
        if heading_line(stripped):  # a heading line stands alone (and is never quoted: it is no sentence)
            flush(item_ended=True)
            lines.append(stripped)
            flush()
            continue
        lines.append(stripped)
    flush()
    return out

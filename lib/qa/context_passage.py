"""What an answer was given, one passage at a time: the record kept with every answer (the Ask history, a
benchmark's answers, the Arena) and read back by the support check, the metrics and the pages.

Each context mode fills its own fields:
- RAG: a numbered source (``n``), its document, section, pages, best ``score`` and the ``chunks`` merged in it;
- gold: the passage's text alone;
- full PDF: the pages of one document, with ``kept_through``, the last page the model saw (whole or in part).

Stored as JSON, each passage gives only the keys its mode fills (``as_dict``), as answers were always stored;
``from_dict`` reads any stored form, older rows and hand-edited exports included, into this record.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from lib.core.context_text import pages_label
from lib.core.json_types import JSONObject


def _int_or_none(value: object) -> int | None:
    """A page number as stored: an int, a float or a digit string; anything else (None, a bool, junk) is None."""
    if value is None or isinstance(value, bool):
        return None
    try:
        return int(value) if isinstance(value, int | float | str) else None
    except (TypeError, ValueError, OverflowError):  # "Infinity" or NaN in stored JSON
        return None


def _text(value: object) -> str:
    return value if isinstance(value, str) else ("" if value is None else str(value))


def _section(value: object) -> str:
    """A section as stored: a heading path, or a list of its headings (joined as citations show them)."""
    if isinstance(value, list | tuple):
        return " › ".join(str(v).strip() for v in value if str(v).strip())
    return _text(value)


@dataclass
class ContextPassage:
    text: str
    page_start: int | None = None
    page_end: int | None = None
    doc_id: str = ""
    doc_name: str = ""
    section: str = ""
    n: int | None = None  # RAG: the source's number, as the answer's markers cite it
    score: float | None = None  # RAG: the best retrieval score among its chunks
    chunks: int | None = None  # RAG: how many retrieved chunks were merged into this source
    kept_through: int | None = None  # full PDF: the last page the model saw; the support check reads up to it
    ocr: tuple[int, ...] = ()  # RAG: its pages that are scans whose text OCR read

    @property
    def pages(self) -> str:
        """"p. 71", "pp. 71–72", "p. 212, read by OCR", or "" (a gold passage has no pages)."""
        return pages_label(self.page_start, self.page_end, self.ocr)

    def as_dict(self) -> JSONObject:
        """The stored form: text and pages always; a RAG source's document, section, number, score and chunk
        count; a full-PDF passage's document and last kept page; nothing a mode does not fill."""
        d: JSONObject = {"page_start": self.page_start, "page_end": self.page_end, "text": self.text}
        rag = self.n is not None
        if rag or self.doc_id:
            d["doc_id"] = self.doc_id
        if rag or self.doc_name:
            d["doc_name"] = self.doc_name
        if rag or self.section:
            d["section"] = self.section
        for key in ("n", "score", "chunks", "kept_through"):
            if getattr(self, key) is not None:
                d[key] = getattr(self, key)
        if self.ocr:
            d["ocr"] = list(self.ocr)
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, object]) -> ContextPassage:
        score = d.get("score")
        return cls(text=_text(d.get("text")), page_start=_int_or_none(d.get("page_start")),
                   page_end=_int_or_none(d.get("page_end")), doc_id=_text(d.get("doc_id")),
                   doc_name=_text(d.get("doc_name")), section=_section(d.get("section")),
                   n=_int_or_none(d.get("n")) or None,
                   score=float(score) if isinstance(score, int | float) and not isinstance(score, bool) else None,
                   chunks=_int_or_none(d.get("chunks")), kept_through=_int_or_none(d.get("kept_through")),
                   ocr=_ocr_pages(d.get("ocr"), _int_or_none(d.get("page_start")), _int_or_none(d.get("page_end"))))


def _ocr_pages(value: object, start: int | None, end: int | None) -> tuple[int, ...]:
    """The stored scanned pages: a list of page numbers, or (records from before pages were named) true for every
    page of the span."""
    if value is True and start is not None:
        return tuple(range(start, (end if end is not None else start) + 1))
    if isinstance(value, list):
        return tuple(sorted({n for n in value if isinstance(n, int) and not isinstance(n, bool)}))
    return ()


def to_json(passages: Iterable[ContextPassage], ensure_ascii: bool = True) -> str:
    """Passages as a stored ``contexts`` column (or an export's cell, with ``ensure_ascii=False``)."""
    return json.dumps([p.as_dict() for p in passages], ensure_ascii=ensure_ascii)


def from_json(raw: str | None) -> list[ContextPassage]:
    """A stored ``contexts`` column read back; empty, null or unreadable JSON is no passage (never an error)."""
    try:
        data = json.loads(raw) if raw else []
    except ValueError:
        return []
    return [ContextPassage.from_dict(d) for d in data if isinstance(d, Mapping)] if isinstance(data, list) else []


__all__ = ["ContextPassage", "from_json", "to_json"]

"""Numbered sources for an answer: the retrieved passages, de-duplicated by document and page span, each with a
label such as "FEIS › 4.3 Water Resources › Wetlands, pp. 71–72"; the context block that shows the model those
numbers; and the numbers an answer cites with markers like [1], [2, 3] or [1][2].

A context is a ``ContextPassage``: as RAG makes it from a retrieved chunk (pages, text, score, document, section), or
as an answer stored it. Contexts of one document whose page spans overlap become one source.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lib.core.context_text import ocr_label, pages_label
from lib.core.json_types import JSONObject
from lib.core.text import PASSAGE_GAP as GAP
from lib.documents.tables import passage_highlight
from lib.qa.context_passage import ContextPassage

SECTION_SEP = " › "
MIN_OVERLAP_WORDS = 5  # consecutive chunks share this many words or more when they overlap


@dataclass
class Source:
    n: int  # 1-based, in the order the passages were retrieved
    doc_id: str | None
    doc_name: str | None
    page_start: int | None
    page_end: int | None
    section: str | None
    text: str  # the passages joined, the words two overlapping chunks share given once
    contexts: list[int] = field(default_factory=list)  # indexes of the contexts merged here
    score: float | None = None  # the best score among them
    ocr: tuple[int, ...] = ()  # its pages that are scans whose text OCR read

    @property
    def pages(self) -> str:
        """'p. 71', 'pp. 71–72', 'p. 212, read by OCR', or '' when the passage has no pages (a pasted gold
        passage)."""
        return pages_label(self.page_start, self.page_end, self.ocr)

    @property
    def label(self) -> str:
        """How the model's context heads the source ("CONUS EIS › 4.3 Water, p. 12"); a page read by OCR is said
        where the page shows the source, not to the model (whose answer cites pages in this form)."""
        head = SECTION_SEP.join(x for x in (self.doc_name, self.section) if x)
        pages = pages_label(self.page_start, self.page_end)
        if head and pages:
            return f"{head}, {pages}"
        return head or pages or "passage"

    @property
    def ocr_note(self) -> str:
        """"read by OCR", "p. 5 read by OCR" where only some of its pages are scans, or ""."""
        return ocr_label(self.page_start, self.page_end, self.ocr)

    def marked(self, question: str) -> str | tuple[str, ...]:
        """What its page highlights when the answer quotes nothing from it: a table passage's rows the question
        asks about (each on its own), any other passage whole."""
        return passage_highlight(self.text, question)

    def as_dict(self) -> JSONObject:
        return {"n": self.n, "doc_id": self.doc_id, "doc_name": self.doc_name, "page_start": self.page_start,
                "page_end": self.page_end, "section": self.section, "label": self.label, "text": self.text,
                "contexts": list(self.contexts), "score": self.score}


def _section(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        parts = [str(v).strip() for v in value if str(v).strip()]
        return SECTION_SEP.join(parts) or None
    s = " ".join(str(value).split())
    return s or None


def _join(texts: Sequence[str]) -> str:
    """Passages joined in order; where one begins with the words another ends with (overlapping chunks), those
    words are given once. Passages that do not overlap are joined by a GAP line, so no reader (a model, the
    extractive baseline, the support check) takes the end of one and the start of the next for one sentence.
    A passage already contained in the text is left out."""
    out = ""
    for t in texts:
        t = (t or "").strip()
        if not t or t in out:
            continue
        if out and out in t:
            out = t
            continue
        if out:
            a, b = out.split(), t.split()
            k = next((k for k in range(min(len(a), len(b)), MIN_OVERLAP_WORDS - 1, -1) if a[-k:] == b[:k]), 0)
            out = out + " " + " ".join(b[k:]) if k else f"{out}\n\n{GAP}\n\n{t}"
        else:
            out = t
    return out


def number_sources(contexts: Iterable[ContextPassage], default_doc_id: str | None = None,
                   default_doc_name: str | None = None) -> list[Source]:
    """The contexts as numbered sources: one per document and page span, overlapping spans of one document merged,
    numbered from 1 in the order of their first passage. ``default_doc_id``/``default_doc_name`` stand in for
    contexts that do not name their document (single-document RAG)."""
    groups: list[dict[str, Any]] = []
    ocr_of: list[tuple[int, ...]] = []
    for i, c in enumerate(contexts):
        ocr_of.append(c.ocr)
        doc_id = c.doc_id or default_doc_id
        doc_name = c.doc_name or default_doc_name
        ps, pe = c.page_start, c.page_end
        ps, pe = (ps if ps is not None else pe), (pe if pe is not None else ps)
        if ps is not None and pe is not None and pe < ps:
            ps, pe = pe, ps
        text, score, section = c.text, c.score, _section(c.section)
        item = {"i": i, "start": ps, "text": text}

        def overlaps(g: dict[str, Any], ps: int | None = ps, pe: int | None = pe, doc_id: str | None = doc_id,
                     text: str = text) -> bool:
            if g["doc_id"] != doc_id:
                return False
            if ps is None or g["start"] is None:  # no pages: the same passage only
                return ps is None and g["start"] is None and g["items"][0]["text"].strip() == text.strip()
            return ps <= g["end"] and g["start"] <= pe

        home = next((g for g in groups if overlaps(g)), None)
        if home is None:
            groups.append({"doc_id": doc_id, "doc_name": doc_name, "start": ps, "end": pe,
                           "section": section, "items": [item], "score": score})
            continue
        home["items"].append(item)
        home["doc_name"] = home["doc_name"] or doc_name
        home["section"] = home["section"] or section
        if score is not None:
            home["score"] = score if home["score"] is None else max(home["score"], score)
        if ps is not None:
            home["start"], home["end"] = min(home["start"], ps), max(home["end"], pe)
            # The wider span may now reach a later source of the same document: fold it in.
            for other in [g for g in groups if g is not home and overlaps(g, home["start"], home["end"])]:
                home["items"].extend(other["items"])
                home["start"], home["end"] = min(home["start"], other["start"]), max(home["end"], other["end"])
                home["doc_name"] = home["doc_name"] or other["doc_name"]
                home["section"] = home["section"] or other["section"]
                if other["score"] is not None:
                    home["score"] = other["score"] if home["score"] is None else max(home["score"], other["score"])
                groups.remove(other)
    sources = []
    for n, g in enumerate(groups, 1):
        items = sorted(g["items"], key=lambda it: (it["start"] if it["start"] is not None else 0, it["i"]))
        sources.append(Source(n=n, doc_id=g["doc_id"], doc_name=g["doc_name"], page_start=g["start"],
                              page_end=g["end"], section=g["section"], text=_join([it["text"] for it in items]),
                              contexts=sorted(it["i"] for it in g["items"]), score=g["score"],
                              ocr=tuple(sorted({n for it in g["items"] for n in ocr_of[it["i"]]}))))
    return sources


_MARKER = re.compile(r"\[\s*(\d{1,4}(?:\s*(?:,|;|–|-|—)\s*\d{1,4})*)\s*\]")
MAX_RANGE = 50


def cited_numbers(answer_text: str | None, max_n: int | None = None) -> set[int]:
    """The source numbers an answer cites: ``[1]``, ``[2, 3]``, ``[1][2]``, ``[2; 4]``, ranges ``[1-3]``.
    With ``max_n``, only numbers from 1 to max_n count (so a bracketed year like [2013] is not a citation)."""
    found: set[int] = set()
    for m in _MARKER.finditer(answer_text or ""):
        body = m.group(1)
        for part in re.split(r"\s*[,;]\s*", body):
            ends = [int(x) for x in re.split(r"\s*[–\-—]\s*", part) if x]
            if len(ends) == 2 and 0 <= ends[1] - ends[0] <= MAX_RANGE:
                found.update(range(ends[0], ends[1] + 1))
            else:
                found.update(ends)
    return {n for n in found if n >= 1 and (max_n is None or n <= max_n)}


# citation markers and the page references that go with them ("[2]", "[1] (p. 8)", "(pp. 71–72)"): not the claim
PLACE = r"\((?:[^()\n]*,\s*)?pp?\.\s*[\d–-]+\)"  # "(p. 8)", "(CONUS Interceptor Site, p. 8)"
_MARKERS = re.compile(r"\s*\[\s*\d[\d,;\s–-]*\](?:\s*" + PLACE + r")?|\s*" + PLACE
                      + r"|\s*\[pages?\s+\d+(?:\s*[–-]\s*\d+)?\]")  # full-PDF mode's "[page 2]"


def bare(sentence: str) -> str:
    """The sentence without its citation markers and page references: the claim itself."""
    return _MARKERS.sub("", sentence).strip()

"""Corpus search: documents ranked by their best passages, like a search engine's results page.

Snippets are made safe first (HTML-escaped: PDF text is untrusted) and only then get our own <mark> tags around
the query's terms, so nothing in a document can add markup to the page.
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from lib.collection.lexical import query_terms
from lib.core.context_text import pages_label
from lib.documents.pdf import symbol_bullets
from lib.documents.tables import PassageRows, rows_asked
from lib.retrieval.retriever import Retriever

SNIPPET_CHARS = 320
MAX_SNIPPET_ROWS = 3  # a table passage's snippet: the rows the query asks about, at most this many
CELL_STYLE = "border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top"


@dataclass(frozen=True)
class FoundPassage:
    """One passage a search found in a document: where it is, its text, and a snippet to show."""

    page_start: int
    page_end: int
    section: str
    snippet_html: str  # escaped, with the query's terms marked
    text: str
    ocr: tuple[int, ...] = ()  # its pages that are scans whose text OCR read
    highlight: tuple[str, ...] = ()  # a table passage: the rows the query asks about, each marked on its own

    @property
    def marked(self) -> str | tuple[str, ...]:
        """What its page highlights: the rows asked about, or the whole passage."""
        return self.highlight or self.text

    @property
    def where(self) -> str:
        """"4.3 Water Resources, p. 12", "pp. 12–13" where the passage has no section, "p. 212, read by OCR"."""
        return ", ".join(x for x in (self.section, pages_label(self.page_start, self.page_end, self.ocr)) if x)


@dataclass
class DocResult:
    doc_id: str
    name: str
    best_rank: int
    score: float
    passages: list[FoundPassage] = field(default_factory=list)
    matched_terms: list[str] = field(default_factory=list)  # query words found in its passages (none: by meaning)


def snippet(text: str, terms: list[str], width: int = SNIPPET_CHARS) -> str:
    """An escaped window of ``text`` around the first query term, with the terms marked."""
    flat = " ".join(symbol_bullets(text).split())
    lower = flat.lower()
    first = min((i for t in terms if (i := lower.find(t)) >= 0), default=0)
    start = max(0, first - width // 3)
    end = min(len(flat), start + width)
    if start and (space := flat.find(" ", start, first)) >= 0:  # whole words: begin after a space …
        start = space + 1
    if end < len(flat) and (space := flat.rfind(" ", max(start, first), end)) > first:  # … and end before one
        end = space
    return ("…" if start else "") + _marked(flat[start:end], terms) + ("…" if end < len(flat) else "")


def _marked(text: str, terms: list[str]) -> str:
    """``text`` escaped, with the query's terms in <mark>: the terms are found in the raw text, then every piece
    is escaped, so our <mark> never splits an &entity;."""
    pieces, pos = [], 0
    if terms:
        pattern = re.compile(r"\b(" + "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True))
                             + r")\w*", re.IGNORECASE)
        for m in pattern.finditer(text):
            pieces.append(html.escape(text[pos:m.start()]) + f"<mark>{html.escape(m.group(0))}</mark>")
            pos = m.end()
    pieces.append(html.escape(text[pos:]))
    return "".join(pieces)


def table_snippet(asked: PassageRows, terms: list[str]) -> str:
    """A table passage's rows asked about (else its first rows), as a small table under its header (every cell
    escaped, then marked)."""
    def row(cells: list[str], tag: str) -> str:
        return "<tr>" + "".join(f"<{tag} style='{CELL_STYLE}'>{_marked(c, terms)}</{tag}>" for c in cells) + "</tr>"
    body = "".join(row(r, "td") for r in asked.rows[:MAX_SNIPPET_ROWS])
    more = len(asked.rows) - MAX_SNIPPET_ROWS
    return ("<table style='border-collapse:collapse;font-size:0.88rem'>" + (row(asked.header, "th") if asked.header
            else "") + body + "</table>" + (f"<div>… and {more} more row(s) of this passage</div>" if more > 0 else ""))


def search_documents(retriever: Retriever, query: str, doc_ids: list[str] | None = None, k: int = 30,
                     per_doc: int = 3) -> list[DocResult]:
    """Hybrid search over the scope; hits grouped by document, documents in the order of their best hit."""
    terms = [t for t in query_terms(query) if len(t) > 2]
    hits = retriever.search_scope(doc_ids, query, k, "hybrid")
    results: dict[str, DocResult] = {}
    for h in hits:
        r = results.setdefault(h.doc_id, DocResult(h.doc_id, h.doc_name, h.rank, h.score))
        if len(r.passages) < per_doc:
            asked = rows_asked(h.chunk.text, query)  # a table passage: the rows the query asks about
            r.passages.append(FoundPassage(
                h.chunk.page_start, h.chunk.page_end, h.chunk.section,
                snippet(h.chunk.text, terms) if asked is None else table_snippet(asked, terms), h.chunk.text,
                tuple(h.ocr_pages), asked.highlights if asked is not None and asked.matched else ()))
    for r in results.values():
        text = " ".join(p.text for p in r.passages).lower()
        r.matched_terms = [t for t in terms if re.search(r"\b" + re.escape(t), text)]
    return sorted(results.values(), key=lambda r: r.best_rank)

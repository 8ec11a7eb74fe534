"""Ask's sources under an answer: one short line per source, and each source opening on its PDF page with the
sentences the answer quotes from it highlighted (the passage as text behind a toggle)."""
from __future__ import annotations

import hashlib

import streamlit as st

from lib.core import UserError, short_titles
from lib.qa import ask as ask_lib
from lib.qa import citations, support
from pages import _support_view as support_view
from pages._ui import cited_page, ocr_note, opening_page, plain, services, show_passage


def sources_of(r: ask_lib.AskResult) -> list:
    """A RAG answer's numbered sources, as the page and the answer number them."""
    if r.mode != "rag" or not r.contexts:
        return []
    default_doc = st.session_state.get("ask_doc")  # contexts of single-document RAG do not name their document
    default_name = None
    if default_doc and not all(c.doc_name for c in r.contexts):
        try:
            default_name = services().docs.get(default_doc).name
        except UserError:
            default_doc = None
    return citations.number_sources(r.contexts, default_doc, default_name)


def cell_key(r: ask_lib.AskResult, where: str = "grid") -> str:
    """A widget-key prefix of one answer cell (where it is drawn, its question, model, mode and answer)."""
    return f"src_{where}_" + hashlib.sha1("\x1f".join((r.question, r.model, r.mode, r.answer or "")).encode()).hexdigest()[:12]


def locator(r: ask_lib.AskResult) -> support_view.Locate:
    """Source number → (document, first page, last page) to open, for the support view's evidence."""
    if r.mode == "pdf":  # each kept page is a source: its evidence's page is the one to open
        spots = support.pdf_pages(r.contexts, services().docs.pages)
        return lambda n: (spots[n - 1][0], spots[n - 1][1], spots[n - 1][1]) if 0 < n <= len(spots) else None
    by_n = {s.n: s for s in sources_of(r)}

    def locate(n: int) -> tuple[str, int, int] | None:
        s = by_n.get(n)
        return (s.doc_id, s.page_start, s.page_end or s.page_start) if s and s.doc_id and s.page_start else None
    return locate


def sources_line(sources: list, cited: set[int]) -> str:
    """One short line per source: its number, and with several documents the document's short title, then its
    pages; the numbers the answer cites after the heading."""
    cites = " — the answer cites " + ", ".join(f"[{n}]" for n in sorted(cited)) if cited else ""
    if len({s.doc_id for s in sources}) > 1:
        short = short_titles([s.doc_name or "" for s in sources])
        return "Sources" + cites + "  \n" + "  \n".join(
            f"[{s.n}] {plain(', '.join(x for x in (short.get(s.doc_name or ''), s.pages) if x))}" for s in sources)
    return "Sources: " + " · ".join(f"{plain(s.pages or s.label)} [{s.n}]" for s in sources) + cites


def render_sources(r: ask_lib.AskResult, where: str = "grid") -> None:
    """A RAG answer's sources, numbered and de-duplicated by document and page span; the ones the answer cites
    are marked. Each opens on its PDF page, the quoted sentences highlighted (else the passage), and pages through
    the PDF from there; its text is behind a toggle."""
    sources = sources_of(r)
    cited = citations.cited_numbers(r.answer, max_n=len(sources))
    st.caption(sources_line(sources, cited))
    report = r.support(services().docs.pages)
    base = cell_key(r, where)
    for s in sources:
        with st.expander(f"[{s.n}] {plain(s.label)}" + (f" · {s.ocr_note}" if s.ocr else "")
                         + (" · **cited**" if s.n in cited else ""),
                         expanded=bool(st.session_state.get(f"{base}_text_{s.n}")
                                       or st.session_state.get(f"{base}_paged_{s.n}")
                                       or st.session_state.get(f"{base}_open_{s.n}"))):
            # a source the user paged or opened as text stays open across the rerun that causes
            # a cited source opens on its page; the others' pages are one toggle away (each page drawn is a
            # render of the PDF, on every rerun of the page)
            if s.doc_id and s.page_start is not None and (
                    s.n in cited or st.toggle("Open page", key=f"{base}_open_{s.n}")):
                _page(s, base, report.quoted_from(s.n) if report else (), r.question)
            elif not s.doc_id or s.page_start is None:
                st.caption("No page to open: this source does not name its document's page.")
            if st.toggle("Show the passage as text", key=f"{base}_text_{s.n}"):
                show_passage(s.text)  # PDF text is untrusted: shown as text (a table's rows as a table)


def _page(s: citations.Source, base: str, quotes: tuple[str, ...], question: str) -> None:
    pkey = f"{base}_page_{s.n}"
    marked = s.marked(question)  # a table passage: only the rows matching the question (a tuple of them)
    rows = isinstance(marked, tuple)
    if pkey not in st.session_state:  # opens where the rows asked about, or most of the passage, are
        st.session_state[pkey] = opening_page(s.doc_id, s.page_start, s.page_end or s.page_start, marked)
    number = st.session_state[pkey]
    own = s.page_start <= number <= (s.page_end or s.page_start)
    got = cited_page(s.doc_id, number, quotes if own else (), marked if own else None)
    if got is None:
        show_passage(s.text)  # no page to show: the passage itself
        return
    png, lines, n_pages, what = got
    prev, where, nxt = st.columns([1, 2, 1])
    def turn(step: int) -> None:
        st.session_state[pkey] += step
        st.session_state[f"{base}_paged_{s.n}"] = True

    prev.button("◀ Previous", key=f"{base}_prev_{s.n}", disabled=number <= 1, on_click=turn, args=(-1,))
    nxt.button("Next ▶", key=f"{base}_next_{s.n}", disabled=number >= n_pages, on_click=turn, args=(1,))
    note = ""
    if own:
        note = {"quotes": " · the quoted sentences highlighted",
                "passage": " · the table rows matching the question highlighted" if rows else " · the cited passage highlighted"}.get(
            what, " · the passage was not found on this page")
    where.caption(f"Page {number} of {n_pages}{note}{ocr_note(s.doc_id, number)}")
    st.image(png, width="stretch")

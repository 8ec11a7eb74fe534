"""Shared widgets for the pages: cached services, the document picker, error display, and the two ways to put
untrusted text (answers, PDF text, file names, servers' messages) where Streamlit renders Markdown."""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd
import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

from lib.app import Services, get_services, queue_reembed, text_width
from lib.app import search as search_case
from lib.app import volumes as volumes_case
from lib.collection import repair, stale_vectors
from lib.core import UserError, access, config, readable_name
from lib.documents import metadata, originals, page_render, symbol_bullets, tables
from lib.models import ProviderError


def _leave_pages_folder_mode() -> None:
    """Streamlit treats `pages/` as the old automatic navigation until streamlit_app.py has run st.navigation once
    in the process: a first visit straight to /documents would get that; switch and rerun through the app (and its gate)."""
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()


_leave_pages_folder_mode()


@st.cache_resource(show_spinner="Loading the embedding model and index…")
def _services(home: str, chroma_url: str, model: str) -> Services:
    svc = get_services()
    with access.acting_as(access.APP_START):  # the app's own start-up maintenance, not a visitor's action
        repair(svc.docs)  # lease-aware: it never touches a document being written
        queue_reembed()  # documents another embedder made are embedded again in the background
    svc.retriever.warm()  # the keyword index's segments, read in the background
    return svc


def services() -> Services:
    return _services(str(config.paths().home), config.get("NEPAQA_CHROMA_URL") or "", config.get("NEPAQA_EMBED_MODEL") or "")


def words_only_note(svc: Services) -> None:
    """One line when some documents are searched by their words only: another embedding model made their vectors,
    and they wait to be embedded again (lib/collection/maintenance.py)."""
    stale = stale_vectors(svc.docs)
    if stale:
        st.caption(f"⏳ {len(stale)} document(s) wait to be embedded again (another embedding model made their "
                   "vectors). Until then searches find them by their words only, so their passages may rank "
                   "differently afterwards. Progress: the Documents page.")


@st.cache_data(max_entries=256, show_spinner=False)
def _page_png(doc: str, number: int, highlight: str | tuple[str, ...] | None, kept: int,
              cover: float = 0.0) -> tuple[bytes, int, int]:
    return page_render.render_marked(doc, number, highlight or None, cover=cover)


def page_png(doc: str, number: int, highlight: str | tuple[str, ...] | None,
             cover: float = 0.0) -> tuple[bytes, int, int]:
    """A rendered PDF page, the number of lines highlighted on it, and the document's page count. The kept
    original's mtime is part of the cache key, so a deleted or replaced original is never served from the cache.
    Raises NoOriginalError, UserError or OSError for the caller to show."""
    kept = originals.path(doc)
    return _page_png(doc, number, highlight, kept.stat().st_mtime_ns if kept else 0, cover)


def ocr_note(doc: str, number: int) -> str:
    """" · read by OCR" under a page that is a scan whose text OCR read (its words may hold OCR's mistakes)."""
    try:
        scanned = number in services().docs.get(doc).ocr_pages
    except UserError:  # a document deleted meanwhile: the page viewer says so itself
        scanned = False
    return " · read by OCR: check a figure against the image" if scanned else ""


def _or_notice(fn: Callable[[], Any]) -> Any:
    """fn(), or None after saying plainly why the page cannot be shown (the original gone or never kept, a page
    that does not exist)."""
    try:
        return fn()
    except OSError:  # the original went away between the two looks
        st.info("The original PDF of this document is no longer kept.", icon="📄")
    except page_render.NoOriginalError:
        st.info("The original PDF was not kept for this document (indexed before citations could open "
                "pages); upload the same PDF again (Documents) to keep it and open pages.", icon="📄")
    except UserError as exc:
        st.error(said(exc), icon="⚠️")
    return None


QUOTE_COVER = page_render.QUOTE_COVER  # a quote is highlighted only where the page holds most of its words in order


def page_or_notice(doc: str, number: int, highlight: str | None, cover: float = 0.0) -> tuple[bytes, int, int] | None:
    """``page_png``, or None after saying why the page cannot be shown."""
    return _or_notice(lambda: page_png(doc, number, highlight, cover))


def show_passage(text: str) -> None:
    """A passage as text; a table passage's rows as a table under its caption (cells shown as data, never as
    Markdown), with any prose joined to it as text."""
    read = tables.read_back(text)
    if read is None:
        st.text(text)  # PDF text is untrusted: shown as text
        return
    found, prose = read
    if prose:
        st.text(prose)
    for caption, header, rows in found:
        width = max([len(header), *map(len, rows)])
        names: list[str] = []
        for i, h in enumerate(header + [""] * (width - len(header))):
            name = h or f"column {i + 1}"
            names.append(name if name not in names else f"{name} ({i + 1})")
        if caption:
            st.caption(plain(caption))
        table(pd.DataFrame([r + [""] * (width - len(r)) for r in rows], columns=names), hide_index=True)


def opening_page(doc: str, start: int, end: int, marked: str | tuple[str, ...]) -> int:
    """The page of a passage's span to open on: the one holding the table rows asked about (``marked`` a tuple),
    else the one holding most of the passage; ``start`` when the page cannot be read (showing it then says why)."""
    try:
        if isinstance(marked, tuple):
            return page_render.page_holding(doc, start, end, marked)
        return page_render.page_most_of(doc, start, end, marked)
    except (page_render.NoOriginalError, UserError, OSError):
        return start


def cited_page(doc: str, number: int, quotes: tuple[str, ...],
               passage: str | tuple[str, ...] | None) -> tuple[bytes, int, int, str] | None:
    """A cited page with the sentences the answer quotes from it highlighted, or, when none of them is on the
    page, the whole cited passage: (png, lines highlighted, page count, "quotes" | "passage" | ""). None after a
    notice when the page cannot be shown."""
    def render() -> tuple[bytes, int, int, str]:
        if quotes:
            png, lines, n = page_png(doc, number, quotes, page_render.QUOTE_COVER)
            if lines:
                return png, lines, n, "quotes"
        png, lines, n = page_png(doc, number, passage)
        return png, lines, n, "passage" if lines else ""
    return _or_notice(render)


def run_safely(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call fn; show a UserError, or a model server's failure, as a red message and return None."""
    try:
        return fn(*args, **kwargs)
    except (UserError, ProviderError) as exc:
        st.error(said(exc), icon="⚠️")
        return None


def doc_picker(label: str = "Document", key: str = "doc") -> str | None:
    docs = services().docs.list()
    if not docs:
        st.info("No documents indexed yet. Go to **Documents** to upload an EIS or load the sample.", icon="📄")
        return None
    options = titled(docs, with_size=True)
    return st.selectbox(label, list(options), format_func=options.get, key=key)


def titled(docs: list, with_size: bool = False) -> dict[str, str]:
    """Documents by title (their file name where no title is known), for lists and pickers."""
    metas = metadata.get_many([d.doc_id for d in docs], services().docs.engine)
    volume = volumes_case.labels(services())  # a volume of an EIS: told apart from its other volumes
    return {d.doc_id: metadata.display_title(metas[d.doc_id], d.name)
            + (f" — {volume[d.doc_id]}" if d.doc_id in volume else "")
            + (f" ({d.pages} pages, {d.chunks} chunks)" if with_size else f" ({d.pages} pages)") for d in docs}


KEPT = "_kept_"


def keep(key: str, valid: Callable[[Any], bool] | None = None, **defaults: Any) -> dict[str, Any]:
    """Keyword arguments that make a widget's value outlive a visit to another page. Streamlit forgets a widget's
    state when its page is not drawn; a copy saved on each change puts it back (when still ``valid``: a document
    since deleted is not). The widget's defaults are passed only when nothing is put back, so Streamlit never
    warns that a value came both ways."""
    saved = st.session_state.get(KEPT + key)
    if key not in st.session_state and KEPT + key in st.session_state and (valid is None or valid(saved)):
        st.session_state[key] = saved
        defaults = {}
    return {"key": key, "on_change": _save, "args": (key,), **defaults}


def _save(key: str) -> None:
    st.session_state[KEPT + key] = st.session_state.get(key)


def doc_label(ref: str | None) -> str:
    """A document as people name it, from a name or id a record keeps: the title of the indexed document it
    names, else the name as words (no underscores or extension). The id stays in exports and tooltips."""
    if not ref:
        return ""
    try:
        found = services().docs.find(str(ref))
    except UserError:
        found = None
    if found is not None:
        title = titled([found])[found.doc_id].rsplit(" (", 1)[0]
        return readable_name(title) if title == found.name else title  # no title known: the file name as words
    return readable_name(str(ref))


SCOPES = ("One document", "One EIS, all its volumes", "Several documents", "All documents", "By metadata")


def scope_picker(key: str = "scope") -> tuple[str | list[str] | None, bool]:
    """Which documents to search: one id, a list of ids, "*" for all, or the ids a metadata filter selects;
    and whether to balance retrieval across them (comparison questions)."""
    docs = services().docs.list()
    if not docs:
        st.info("No documents indexed yet. Go to **Documents** to upload an EIS or load the sample.", icon="📄")
        return None, False
    names = titled(docs)
    eis = {e.eis_id: e for e in volumes_case.every(services())}
    offered = [s for s in SCOPES if eis or s != SCOPES[1]]  # "One EIS" where some EIS is in volumes
    how = st.radio("Search in", offered, horizontal=True, **keep(f"{key}_how", lambda v: v in offered))
    balanced = False
    if how == "One document":
        return st.selectbox("Document", list(names), format_func=names.get,
                            **keep(key, lambda v: v in names)), False
    if how == SCOPES[1]:
        chosen_eis = st.selectbox("EIS", list(eis), format_func=lambda e: eis[e].name,
                                  **keep(f"{key}_eis", lambda v: v in eis))
        st.caption("Volumes: " + "; ".join(plain(v.label) for v in eis[chosen_eis].volumes))
        return eis[chosen_eis].doc_ids, False
    if how == "Several documents":
        chosen = st.multiselect("Documents", list(names), format_func=names.get,
                                **keep(f"{key}_many", lambda v: set(v or []) <= set(names), default=list(names)[:2]))
        scope: str | list[str] | None = chosen or None
    elif how == "All documents":
        scope = "*"
    else:
        library = search_case.Collection(services())  # the Search page's facets and filters: one rule for both
        facets = library.facets()

        def sub(options: list[str]) -> Callable[[Any], bool]:
            return lambda v: set(v or []) <= set(options)

        c1, c2, c3, c4, c5 = st.columns(5)
        filters = search_case.Filters(
            agencies=c1.multiselect("Lead agency", facets.agencies, **keep(f"{key}_ag", sub(facets.agencies))),
            states=c2.multiselect("State", facets.states, **keep(f"{key}_st", sub(facets.states)),
                                  format_func=lambda c: f"{c} · {metadata.STATES.get(c, c)}"),
            types=c3.multiselect("Document type", facets.types, **keep(f"{key}_ty", sub(facets.types))),
            years=c4.text_input("Years (e.g. 2010-2020)", **keep(f"{key}_yr")),
            tags=c5.multiselect("Tag", facets.tags, **keep(f"{key}_tag", sub(facets.tags))))
        ids = run_safely(library.scope, filters) if filters.any else [d.doc_id for d in docs]
        if ids:
            st.caption(f"{len(ids)} document(s) match: " + "; ".join(plain(names[i].rsplit(' (', 1)[0]) for i in ids[:8])
                       + (" …" if len(ids) > 8 else ""))
        elif ids is not None:
            st.caption("No document matches these filters.")
        scope = ids or None
    balanced = st.toggle("Balanced: the best passages of each document in turn (for comparison questions)",
                         **keep(f"{key}_bal"))
    return scope, balanced


# Untrusted text must never render as Markdown: an answer or a PDF chunk holding ![x](http://host/?d=...) would
# make the browser fetch that URL, and [text](url) or HTML would show as ours. Whole blocks go through st.text or
# st.code; where a Markdown string of ours (an alert, a caption, a toast, a widget or expander label) has to carry
# untrusted text, it goes in through plain() or code().
_MD_ANYWHERE = re.compile(r"([\\`*_{}\[\]()#!|~$<>&])")
_MD_LINE_START = re.compile(r"(?m)^([ \t]*)(?:([-+=])|(\d+)([.)]))")


_AUTOLINK = re.compile(r"(?i)\b(https?|ftp|mailto)(:)|\b(www)(\.)")


def plain(text: object) -> str:
    """``text`` with every Markdown control character backslash-escaped, so it shows exactly as written: no image,
    link, HTML, LaTeX, heading, list or emphasis; and no bare URL turned into a link (GitHub-flavoured Markdown, which
    Streamlit renders, links "http://…" and "www.…" by themselves: an escaped ":" or "." breaks that)."""
    s = _MD_ANYWHERE.sub(r"\\\1", "" if text is None else str(text))
    s = _AUTOLINK.sub(lambda m: f"{m.group(1)}\\:" if m.group(1) else f"{m.group(3)}\\.", s)
    return _MD_LINE_START.sub(lambda m: m.group(1) + ("\\" + m.group(2) if m.group(2) else m.group(3) + "\\" + m.group(4)), s)


def said(text: object) -> str:
    """A message (an error's text) as Markdown that shows it as written, as ``plain`` does, except that a command
    or setting in backticks (`python -m lib check`) is shown as code, not with its backticks."""
    parts = re.split(r"(`[^`\n]+`)", "" if text is None else str(text))
    return "".join(code(p[1:-1]) if len(p) > 2 and p[0] == p[-1] == "`" else plain(p) for p in parts)


def code(text: object) -> str:
    """``text`` as an inline code span on one line, shown literally: fenced with more backticks than any inside."""
    s = " ".join(("" if text is None else str(text)).splitlines())
    if not s.strip():
        return ""
    fence = "`" * (max((len(run) for run in re.findall(r"`+", s)), default=0) + 1)
    pad = " " if s.startswith("`") or s.endswith("`") or (s.startswith(" ") and s.endswith(" ")) else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def passage_text(text: object) -> str:
    """A PDF passage for reading: symbol-font bullets (U+F020–U+F0FF, which browsers draw as empty boxes) as "•",
    and the PDF's line breaks and runs of spaces as single spaces. For st.text (it is still untrusted text)."""
    return " ".join(symbol_bullets("" if text is None else str(text)).split())


def tidy(df: pd.DataFrame, blank: str = "—") -> pd.DataFrame:
    """A table for people: missing values (None, NaN, pandas' <NA>) shown as ``blank``, never as "None"; a column
    mixing text and numbers all text, as the grid would show it anyway (converting it, with a warning in the log)."""
    out = df.astype(object).where(df.notna(), blank)
    for col in out.columns:
        if 0 < out[col].map(lambda v: isinstance(v, str)).sum() < len(out):
            out[col] = out[col].map(str)
    return out


def table(df: pd.DataFrame, column_config: dict[str, Any] | None = None, where: Any = None,
          long: Sequence[str] = (), **kwargs: Any) -> None:
    """``st.dataframe`` with each column as wide as its title and text (up to 700 px), so no text is cut where it
    could be shown whole: the grid draws on a canvas and cuts at the column's edge. A width in pixels set in
    ``column_config`` is kept; "small", "medium" or "large" is replaced (those cut titles and names); a column
    hidden with None stays hidden. ``where``: the column or container to draw in (the page by default).
    ``long``: columns of long text (an answer, a question) that share what the others leave of the page and wrap
    to three lines, so the table fits the page; the page says where such a text is read whole."""
    given = {c: {"label": cfg} if isinstance(cfg, str) else cfg for c, cfg in (column_config or {}).items()}
    names = [str(c) for c in df.columns]
    if len(set(names)) != len(names):  # columns read by name would be ambiguous: drawn as Streamlit sizes them
        (where or st).dataframe(df, column_config=column_config, **kwargs)
        return
    titles = {c: cfg.get("label") or c for c, cfg in given.items() if isinstance(cfg, dict)}
    widths = text_width.column_widths({name: df.iloc[:, i].tolist() for i, name in enumerate(names)}, titles)
    if long:
        order = kwargs.get("column_order")
        shown = {n: px for n, px in widths.items() if given.get(n, {}) is not None and (not order or n in order)}
        widths |= text_width.fit_long(shown, [n for n in long if n in shown])
        kwargs.setdefault("row_height", text_width.WRAP_ROW)
        if isinstance(kwargs.get("height"), int):  # as many rows in view as at the usual row height, up to 600 px
            kwargs["height"] = min(600, kwargs["height"] * text_width.WRAP_ROW // 35)
    merged: dict[str, Any] = dict(given)
    for name, px in widths.items():
        cfg = given.get(name, {})
        if cfg is None or (isinstance(cfg, dict) and isinstance(cfg.get("width"), int)):
            continue  # hidden, or a width in pixels chosen by the page
        if isinstance(cfg, dict):
            merged[name] = {**cfg, "width": px}
    (where or st).dataframe(df, column_config=merged, **kwargs)

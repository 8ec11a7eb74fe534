"""Shared widgets for the pages: cached services, the document picker, error display, and the two ways to put
untrusted text (answers, PDF text, file names, servers' messages) where Streamlit renders Markdown."""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import streamlit as st

from lib import config
from lib.errors import UserError
from lib.services import Services, get_services


def _leave_pages_folder_mode() -> None:
    """Streamlit treats a `pages/` folder as the old automatic navigation until streamlit_app.py has run
    st.navigation once in the process. A first visit straight to /documents would get that old sidebar;
    switch the flag and rerun so st.navigation (the real one) takes over."""
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()


_leave_pages_folder_mode()


@st.cache_resource(show_spinner="Loading the embedding model and index…")
def _services(home: str, chroma_url: str, model: str) -> Services:
    from lib.maintenance import repair

    svc = get_services()
    repair(svc.docs)  # once when the app starts: lease-aware, it never touches a document being written
    return svc


def services() -> Services:
    return _services(str(config.paths().home), config.get("NEPAQA_CHROMA_URL") or "", config.get("NEPAQA_EMBED_MODEL") or "")


def run_safely(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call fn; show a UserError as a red message and return None."""
    try:
        return fn(*args, **kwargs)
    except UserError as exc:
        st.error(plain(str(exc)), icon="⚠️")
        return None


def doc_picker(label: str = "Document", key: str = "doc") -> str | None:
    docs = services().docs.list()
    if not docs:
        st.info("No documents indexed yet. Go to **Documents** to upload an EIS or load the sample.", icon="📄")
        return None
    options = {d.doc_id: f"{d.name} ({d.pages} pages, {d.chunks} chunks)" for d in docs}
    return st.selectbox(label, list(options), format_func=options.get, key=key)


# Untrusted text must never render as Markdown: an answer or a PDF chunk holding ![x](http://host/?d=...) would
# make the browser fetch that URL, and [text](url) or HTML would show as ours. Whole blocks go through st.text or
# st.code; where a Markdown string of ours (an alert, a caption, a toast, a widget or expander label) has to carry
# untrusted text, it goes in through plain() or code().
_MD_ANYWHERE = re.compile(r"([\\`*_{}\[\]()#!|~$<>&])")
_MD_LINE_START = re.compile(r"(?m)^([ \t]*)(?:([-+=])|(\d+)([.)]))")


def plain(text: object) -> str:
    """``text`` with every Markdown control character backslash-escaped, so it shows exactly as written: no image,
    link, HTML, LaTeX, heading, list or emphasis."""
    s = _MD_ANYWHERE.sub(r"\\\1", "" if text is None else str(text))
    return _MD_LINE_START.sub(lambda m: m.group(1) + ("\\" + m.group(2) if m.group(2) else m.group(3) + "\\" + m.group(4)), s)


def code(text: object) -> str:
    """``text`` as an inline code span (shown literally, in monospace), fenced with more backticks than any run
    inside it, on one line."""
    s = " ".join(("" if text is None else str(text)).splitlines())
    if not s.strip():
        return ""
    fence = "`" * (max((len(run) for run in re.findall(r"`+", s)), default=0) + 1)
    pad = " " if s.startswith("`") or s.endswith("`") or (s.startswith(" ") and s.endswith(" ")) else ""
    return f"{fence}{pad}{s}{pad}{fence}"

"""Shared widgets for the pages: cached services, the document picker, error display."""
from __future__ import annotations

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
    return get_services()


def services() -> Services:
    return _services(str(config.paths().home), config.get("NEPAQA_CHROMA_URL") or "", config.get("NEPAQA_EMBED_MODEL") or "")


def run_safely(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call fn; show a UserError as a red message and return None."""
    try:
        return fn(*args, **kwargs)
    except UserError as exc:
        st.error(str(exc), icon="⚠️")
        return None


def doc_picker(label: str = "Document", key: str = "doc") -> str | None:
    docs = services().docs.list()
    if not docs:
        st.info("No documents indexed yet. Go to **Documents** to upload an EIS or load the sample.", icon="📄")
        return None
    options = {d.doc_id: f"{d.name} ({d.pages} pages, {d.chunks} chunks)" for d in docs}
    return st.selectbox(label, list(options), format_func=options.get, key=key)

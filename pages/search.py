"""Search the collection: documents ranked with their best passages, query terms highlighted, metadata beside."""
import streamlit as st

from lib.app import search, volumes
from lib.core import UserError
from lib.documents import metadata, page_render
from lib.retrieval import FoundPassage
from pages._gate import through_gate
from pages._ui import ocr_note, opening_page, page_png, plain, run_safely, said, services, words_only_note

through_gate()  # a page reached without the app's sign-in gate goes back through it

st.title("🔎 Search the collection")
st.caption("Which of our EISs discuss caribou? What did past Alaska EISs say about permafrost? Hybrid search "
           "(meaning + keywords) over every indexed document, or a filtered part of the collection.")
svc = services()
coll = search.Collection(svc)
if not coll.docs:
    st.info("No documents are indexed yet. Add EIS PDFs on the Documents page (or load the sample there).")
    st.stop()
words_only_note(svc)

with st.form("corpus_search"):
    query = st.text_input("Search", placeholder="impacts on caribou calving grounds", key="corpus_query")
    c1, c2, c3, c4, c5 = st.columns(5)
    facets = coll.facets()
    filters = search.Filters(
        agencies=c1.multiselect("Lead agency", facets.agencies),
        states=c2.multiselect("State", facets.states, format_func=lambda c: f"{c} · {metadata.STATES.get(c, c)}"),
        types=c3.multiselect("Document type", facets.types),
        years=c4.text_input("Years (e.g. 2010-2020)", ""),
        tags=c5.multiselect("Tag", facets.tags))
    eis = {e.eis_id: e for e in volumes.every(svc)}
    one_eis = st.selectbox("EIS", [None, *eis], format_func=lambda e: "Every document" if e is None else eis[e].name,
                           help="An EIS published in volumes: search all its volumes, and only them.") if eis else None
    go = st.form_submit_button("Search", type="primary")

if go and query.strip():
    scope = run_safely(coll.scope, filters) if filters.any else None
    if filters.any and scope is None:  # the filter itself was refused (its message is shown): nothing more to say
        st.stop()
    if one_eis is not None:
        scope = search.within(eis[one_eis].doc_ids, scope)
    if (filters.any or one_eis is not None) and not scope:
        st.warning("No document matches these filters.")
        st.session_state.pop("corpus_results", None)
    else:
        results = run_safely(coll.search, query, scope)
        if results is not None:  # kept, so opening a page (a rerun) does not lose the results
            st.session_state["corpus_results"] = (query, results)
elif go:
    st.warning("Type something to search for.")
    st.session_state.pop("corpus_results", None)


def open_page(doc_id: str, p: FoundPassage, key: str) -> None:
    if not st.toggle("Open page", key=key):
        return
    try:
        number = opening_page(doc_id, p.page_start, p.page_end, p.marked)  # where its rows, or most of it, are
        png, lines, n_pages = page_png(doc_id, number, p.marked)
    except page_render.NoOriginalError:
        st.info("The original PDF was not kept for this document; upload the same PDF again to open pages.", icon="📄")
        return
    except (UserError, OSError) as exc:
        st.error(said(exc), icon="⚠️")
        return
    note = ("the table rows matching your search highlighted" if p.highlight else "passage highlighted") if lines else \
        "the passage was not found on this page"
    st.caption(f"Page {number} of {n_pages} · {note}{ocr_note(doc_id, number)}")
    st.image(png, width="stretch")


shown = st.session_state.get("corpus_results")
if shown:
    shown_query, results = shown
    st.caption(f"{len(results)} document(s) · ranked by their best passage (hybrid search)")
    if not results:
        st.info("Nothing matched. Try other words, or clear the filters.")
    for found in coll.shown(results):  # a document deleted since is left out
        r = found.result
        with st.container(border=True):
            st.markdown(f"**{found.rank}.**")
            st.text(found.title)
            if found.facts:
                st.text(" · ".join(found.facts))
            if not r.matched_terms:
                st.caption("None of your search words appear in these passages: found by meaning only, "
                           "which may be a weak match.")
            for i, p in enumerate(r.passages):
                st.caption(plain(p.where))
                # escaped first (lib.retrieval.corpus_search.snippet), then our own <mark> tags
                st.html(f"<div style='font-size:0.92rem;line-height:1.45'>{p.snippet_html}</div>")
                open_page(r.doc_id, p, key=f"sr_open_{r.doc_id}_{p.page_start}_{i}")

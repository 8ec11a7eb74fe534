"""Search the collection: documents ranked with their best passages, query terms highlighted, metadata beside."""
import streamlit as st

from lib.core import UserError
from lib.documents import metadata, page_render
from lib.retrieval import FoundPassage, search_documents
from pages._ui import page_png, plain, run_safely, services, words_only_note

st.title("🔎 Search the collection")
st.caption("Which of our EISs discuss caribou? What did past Alaska EISs say about permafrost? Hybrid search "
           "(meaning + keywords) over every indexed document, or a filtered part of the collection.")
svc = services()
docs = svc.docs.list()
if not docs:
    st.info("No documents are indexed yet. Add EIS PDFs on the Documents page (or load the sample there).")
    st.stop()
words_only_note(svc)

meta = {d.doc_id: metadata.get(d.doc_id, svc.docs.engine) for d in docs}


def value(doc_id: str, key: str) -> str:
    v = (meta[doc_id].get(key) or {}).get("value")
    return ", ".join(v) if isinstance(v, list) else (str(v) if v not in (None, "") else "")


with st.form("corpus_search"):
    query = st.text_input("Search", placeholder="impacts on caribou calving grounds", key="corpus_query")
    c1, c2, c3, c4, c5 = st.columns(5)
    agencies = sorted({value(d.doc_id, "lead_agency") for d in docs} - {""})
    states = sorted({s for d in docs for s in (meta[d.doc_id].get("states") or {}).get("value") or []})
    types = sorted({value(d.doc_id, "document_type") for d in docs} - {""})
    all_tags = metadata.tags_many([d.doc_id for d in docs], svc.docs.engine)
    agency = c1.multiselect("Lead agency", agencies)
    state = c2.multiselect("State", states, format_func=lambda c: f"{c} · {metadata.STATES.get(c, c)}")
    dtype = c3.multiselect("Document type", types)
    years = c4.text_input("Years (e.g. 2010-2020)", "")
    tag = c5.multiselect("Tag", sorted({t for ts in all_tags.values() for t in ts}))
    go = st.form_submit_button("Search", type="primary")

if go and query.strip():
    where = {}
    if state:
        where["states"] = state
    if dtype:
        where["document_type"] = dtype
    if years.strip():
        where["year"] = years.strip()
    if tag:
        where["tag"] = tag
    scope = run_safely(metadata.collection_filter, docs, where, svc.docs.engine) if where else None
    if where and scope is None:  # the filter itself was refused (its message is shown): nothing more to say
        st.stop()
    if agency:  # any of the chosen agencies
        pool = scope if scope is not None else [d.doc_id for d in docs]
        scope = [i for i in pool if value(i, "lead_agency") in agency]
        where["lead_agency"] = agency
    if where and not scope:
        st.warning("No document matches these filters.")
        st.session_state.pop("corpus_results", None)
    else:
        results = run_safely(search_documents, svc.retriever, query, scope)
        if results is not None:  # kept, so opening a page (a rerun) does not lose the results
            st.session_state["corpus_results"] = (query, results)
elif go:
    st.warning("Type something to search for.")
    st.session_state.pop("corpus_results", None)


def open_page(doc_id: str, p: FoundPassage, key: str) -> None:
    if not st.toggle("Open page", key=key):
        return
    try:
        png, lines, n_pages = page_png(doc_id, p.page_start, p.text)
    except page_render.NoOriginalError:
        st.info("The original PDF was not kept for this document; upload the same PDF again to open pages.", icon="📄")
        return
    except (UserError, OSError) as exc:
        st.error(plain(str(exc)), icon="⚠️")
        return
    note = "passage highlighted" if lines else "the passage was not found on this page"
    st.caption(f"Page {p.page_start} of {n_pages} · {note}")
    st.image(png, width="stretch")


shown = st.session_state.get("corpus_results")
if shown:
    shown_query, results = shown
    st.caption(f"{len(results)} document(s) · ranked by their best passage (hybrid search)")
    if not results:
        st.info("Nothing matched. Try other words, or clear the filters.")
    for rank, r in enumerate([r for r in results if r.doc_id in meta], start=1):  # a document deleted since is left out
        with st.container(border=True):
            title = value(r.doc_id, "title") or r.name
            st.markdown(f"**{rank}.**")
            st.text(title)
            facts = [x for x in (value(r.doc_id, "document_type"), value(r.doc_id, "lead_agency"),
                                 value(r.doc_id, "states"), value(r.doc_id, "publish_date")) if x]
            if facts:
                st.text(" · ".join(facts))
            if not r.matched_terms:
                st.caption("None of your search words appear in these passages: found by meaning only, "
                           "which may be a weak match.")
            for i, p in enumerate(r.passages):
                st.caption(plain(p.where))
                # escaped first (lib.retrieval.corpus_search.snippet), then our own <mark> tags
                st.html(f"<div style='font-size:0.92rem;line-height:1.45'>{p.snippet_html}</div>")
                open_page(r.doc_id, p, key=f"sr_open_{r.doc_id}_{p.page_start}_{i}")

"""Documents: upload or load the sample EIS, watch ingest progress, inspect chunks and retrieval."""
import pandas as pd
import streamlit as st

from lib import config
from lib.documents import STAGES
from lib.retrieval import METHODS
from pages._ui import code, plain, run_safely, services

st.title("📄 Documents")
svc = services()
emb = svc.docs.index.embedder

with st.sidebar:
    st.subheader("Chunking")
    chunk_size = st.number_input(
        "Chunk size (tokens)", min_value=16, max_value=emb.max_tokens,
        value=min(int(config.get("NEPAQA_CHUNK_SIZE") or 200), emb.max_tokens), step=8,
        help=f"At most {emb.max_tokens}: the embedding model reads {emb.max_tokens + 2} tokens and would cut the rest.",
    )
    chunk_overlap = st.number_input(
        "Overlap (tokens)", min_value=0, max_value=int(chunk_size) - 1,
        value=min(int(config.get("NEPAQA_CHUNK_OVERLAP") or 40), int(chunk_size) - 1), step=8,
    )


def ingest_with_progress(label: str, call) -> None:
    """Run one ingest with a progress bar per stage, then show its summary. ``label`` is a file name as uploaded:
    the status label renders Markdown, so it goes in as text."""
    with st.status(f"Indexing {plain(label)}…", expanded=True) as status:
        bars = {s: st.progress(0.0, text=f"{s}: waiting") for s in STAGES}

        def progress(stage: str, frac: float, msg: str) -> None:
            bars[stage].progress(min(1.0, max(0.0, frac)), text=f"{stage}: {msg}")

        res = run_safely(call, progress)
        if res is None:
            status.update(label=f"{plain(label)}: not indexed", state="error")
            return
        state = "already indexed" if res.skipped else f"indexed in {res.seconds:.1f} s"
        status.update(label=f"{plain(res.name)}: {state}", state="complete", expanded=False)
    st.session_state["last_ingest"] = res


tab_add, tab_docs, tab_search = st.tabs(["Add documents", "Indexed documents", "Try retrieval"])

with tab_add:
    left, right = st.columns([3, 2])
    with left:
        files = st.file_uploader("Upload EIS PDFs", type=["pdf"], accept_multiple_files=True)
        if st.button("Index uploaded files", type="primary", disabled=not files):
            for f in files:
                ingest_with_progress(
                    f.name,
                    lambda p, f=f: svc.docs.ingest_bytes(
                        f.getvalue(), f.name.removesuffix(".pdf"), chunk_size=chunk_size,
                        chunk_overlap=chunk_overlap, progress=p,
                    ),
                )
    with right:
        st.markdown("**No PDF at hand?** Load the bundled sample: the CONUS Interceptor Site Final EIS "
                    "executive summary (74 pages, DoD Missile Defense Agency, 2017).")
        if st.button("Load sample EIS", icon="🌲"):
            ingest_with_progress(
                "the sample EIS",
                lambda p: svc.docs.ingest_file(
                    str(config.SAMPLE_PDF), chunk_size=chunk_size, chunk_overlap=chunk_overlap, progress=p
                ),
            )
    res = st.session_state.get("last_ingest")
    if res is not None:
        st.success(f"{code(res.name)} is ready (id {code(res.doc_id)})" + (" — it was already indexed." if res.skipped else "."))
        cols = st.columns(5)
        cols[0].metric("Pages", res.pages)
        cols[1].metric("Characters", f"{res.chars:,}")
        cols[2].metric("Tokens", f"{res.tokens:,}")
        cols[3].metric("Chunks", res.chunks)
        cols[4].metric("Time", f"{res.seconds:.1f} s")
        if res.empty_pages:
            shown = ", ".join(map(str, res.empty_pages[:30])) + (" …" if len(res.empty_pages) > 30 else "")
            st.warning(
                f"{len(res.empty_pages)} page(s) have no text layer and were skipped (scanned or blank): {shown}. "
                "Run OCR on the PDF to include them."
            )

docs = svc.docs.list()
with tab_docs:
    if not docs:
        st.info("No documents yet. Upload a PDF or load the sample in **Add documents**.")
    else:
        st.dataframe(
            pd.DataFrame([
                {"id": d.doc_id, "name": d.name, "pages": d.pages, "characters": d.chars, "tokens": d.tokens,
                 "chunks": d.chunks, "chunk size": d.chunk_size, "overlap": d.chunk_overlap,
                 "empty pages": len(d.empty_pages), "ingest s": d.seconds}
                for d in docs
            ]),
            hide_index=True, width="stretch",
        )
        names = {d.doc_id: f"{d.name} ({d.doc_id})" for d in docs}
        chosen = st.selectbox("Document", list(names), format_func=names.get, key="docs_pick")
        info = next(d for d in docs if d.doc_id == chosen)
        chunks = svc.docs.chunks(chosen)
        st.markdown(f"**Chunks of {plain(info.name)}** ({len(chunks)}; size {info.chunk_size}, overlap {info.chunk_overlap} tokens)")
        st.dataframe(
            pd.DataFrame([
                {"#": c.index, "pages": f"{c.page_start}" if c.page_start == c.page_end else f"{c.page_start}–{c.page_end}",
                 "tokens": c.n_tokens, "text": c.text}
                for c in chunks
            ]),
            hide_index=True, width="stretch", height=300,
        )
        c1, c2 = st.columns(2)
        with c1:
            if st.button(f"Re-index with size {chunk_size} / overlap {chunk_overlap}", key="reindex"):
                ingest_with_progress(info.name, lambda p: svc.docs.reindex(chosen, int(chunk_size), int(chunk_overlap), p))
                st.rerun()
        with c2:
            confirm = st.checkbox("Yes, delete this document", key="confirm_delete")
            if st.button("Delete document", type="secondary", disabled=not confirm, key="delete"):
                run_safely(svc.docs.delete, chosen)
                st.session_state.pop("last_ingest", None)
                st.toast(f"Deleted {plain(info.name)}")
                st.rerun()

with tab_search:
    if not docs:
        st.info("Index a document first.")
    else:
        names = {d.doc_id: d.name for d in docs}
        doc_id = st.selectbox("Document", list(names), format_func=names.get, key="search_doc")
        query = st.text_input("Query", placeholder="e.g. Which sites were evaluated for the interceptor?")
        c1, c2 = st.columns([1, 3])
        k = c1.slider("k", 1, 20, 5)
        method = c2.radio("Method", METHODS, horizontal=True, help="hybrid = reciprocal-rank fusion of dense and BM25")
        compare = st.checkbox("Compare all three methods side by side")
        if query:
            methods = METHODS if compare else (method,)
            cols = st.columns(len(methods))
            for col, m in zip(cols, methods, strict=True):
                hits = run_safely(svc.retriever.search, doc_id, query, k, m) or []
                with col:
                    st.markdown(f"**{m}**")
                    for h in hits:
                        pages = f"p. {h.chunk.page_start}" if h.chunk.page_start == h.chunk.page_end else f"pp. {h.chunk.page_start}–{h.chunk.page_end}"
                        with st.expander(f"#{h.rank} · {pages} · score {h.score:.3f}"):
                            st.text(h.chunk.text)  # PDF text: shown as text, never rendered as Markdown

"""Documents: upload or load the sample EIS, watch ingest progress, find documents by their metadata (filter, sort,
edit, fill gaps with a connected model), inspect chunks and retrieval."""
import json

import pandas as pd
import streamlit as st

from lib.app import accounts, ingest_params, queue_reembed, reindex_params, search, stage_upload, workers
from lib.app import documents as docs_case
from lib.app import volumes as volumes_case
from lib.core import access, config
from lib.documents import is_navigation, tables
from lib.documents import metadata as meta_lib
from lib.qa import scope_ids
from lib.retrieval import METHODS
from pages._documents_metadata import metadata_panel
from pages._documents_volumes import take_out_button, volumes_panel
from pages._gate import through_gate
from pages._jobs import watch
from pages._ui import doc_label, passage_text, plain, run_safely, scope_picker, services, show_passage, table

through_gate()  # a page reached without the app's sign-in gate goes back through it

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


METHOD_LABELS = {"hybrid": "Hybrid (meaning + words)", "dense": "Meaning (embeddings)",
                 "lexical": "Words (full-text BM25)"}
# Each method's score, named and explained: the three are on different scales and never compared.
SCORE_LABELS = {
    "hybrid": ("fusion score (rank-based; 0.033 = first by meaning and by words)", "Reciprocal rank fusion (RRF): the sum, over the meaning and word rankings, of "
                               "1 / (60 + rank). Only the order matters; 0.033 is first in both rankings."),
    "dense": ("cosine similarity", "How close the passage's meaning is to the query's, from −1 to 1 (for this "
                                   "embedding model, above about 0.5 is close)."),
    "lexical": ("BM25 score", "Word-match score from the full-text index: higher means more of the query's words, "
                              "and rarer ones. It has no upper bound and compares passages within one query only."),
}
SNIPPET = 320  # characters of each passage shown without a click


def start_ingest(params: dict, title: str) -> str:
    """Index in the background: the job keeps running while the user works elsewhere in the app."""
    job_id = docs_case.start_ingest(params, title)
    st.session_state.setdefault("ingest_jobs", []).insert(0, job_id)
    return job_id


# A returning user lands on their documents; a new one on "Add documents". Chosen once per session, so the tab
# does not jump after the first ingest.
first_tab = st.session_state.setdefault("docs_first_tab", "Indexed documents" if svc.docs.list() or not
                                       access.allowed(access.Action.UPLOAD) else "Add documents")
tab_add, tab_docs, tab_search = st.tabs(["Add documents", "Indexed documents", "Try retrieval"], default=first_tab)

with tab_add:
    if not access.allowed(access.Action.UPLOAD):
        st.info("Adding documents needs the analyst role. Ask an admin of this app if you need it.")
    else:
        left, right = st.columns([3, 2])
        with left:
            files = st.file_uploader("Upload EIS PDFs", type=["pdf"], accept_multiple_files=True)
            as_volumes = len(files or []) >= 2 and st.checkbox(
                "These files are volumes of one EIS", key="docs_as_volumes",
                help="They are checked together before any is indexed, and become one EIS: Ask and Search can then "
                     "cover all its volumes, and citations name the volume.")
            order = volumes_case.in_volume_order([(f.name, f) for f in files]) if as_volumes else []
            if as_volumes:
                st.caption("In this order (by file name): " + "; ".join(f"volume {n}: {plain(name)}"
                                                                          for n, (name, _) in enumerate(order, start=1)))
            if st.button("Index uploaded files", type="primary", disabled=not files):
                if as_volumes:
                    started = run_safely(volumes_case.start_set, [(name, f.getvalue()) for name, f in order],
                                         int(chunk_size), int(chunk_overlap))
                    st.session_state.setdefault("ingest_jobs", [])[:0] = started or []
                for f in files if not as_volumes else []:
                    name = f.name.removesuffix(".pdf")
                    path = stage_upload(f.getvalue())
                    start_ingest(ingest_params(path, name, int(chunk_size), int(chunk_overlap), staged=True,
                                               file_name=f.name),
                                 f"Index {name}")
            with st.expander("A whole folder, with a metadata manifest"):
                st.caption("Every PDF in the folder (and its subfolders) becomes one indexing job"
                           + (", run by the workers" if workers.enabled() else "") + ". Files already indexed or "
                           "queued are skipped; a file named .pdf that is not one is refused with the reason, and the rest "
                           "go on (files of other types are left out). A manifest "
                           "(CSV) with a `file` column and metadata columns in the CEQ names (" +
                           ", ".join(c for c in meta_lib.manifest_csv.COLUMNS[1:] if c != meta_lib.manifest_csv.EIS_COLUMN)
                           + ") sets those values over what is read from the covers; rows with the same name in an `eis` "
                             "column are the volumes of one EIS, in row order.")
                folder = st.file_uploader("Folder of PDFs", type=["pdf"], accept_multiple_files="directory",
                                          key="docs_folder")
                sheet = st.file_uploader("Manifest (CSV, optional)", type=["csv"], key="docs_manifest")
                if st.button("Queue the folder", disabled=not folder):
                    summary = run_safely(workers.queue_uploads, [(f.name, f.getvalue()) for f in folder],
                                         (sheet.name, sheet.getvalue()) if sheet else None, int(chunk_size),
                                         int(chunk_overlap))
                    if summary is not None:
                        st.session_state["docs_bulk"] = summary
                        st.session_state.setdefault("ingest_jobs", [])[:0] = summary.jobs
                if (bulk := st.session_state.get("docs_bulk")) is not None:
                    st.write(f"**{bulk.queued}** queued · **{bulk.skipped}** already indexed or queued, skipped · "
                             f"**{len(bulk.refused)}** refused"
                             + (f" · metadata updated from the manifest for **{bulk.metadata_updated}** indexed"
                                if bulk.metadata_updated else ""))
                    if bulk.refused:
                        table(pd.DataFrame(bulk.refused).rename(columns={"file": "File", "reason": "Why"}),
                                     hide_index=True, column_config={"Why": st.column_config.TextColumn(width="large")})
                    if bulk.manifest_unmatched:
                        st.warning("Manifest rows that name no uploaded PDF (their values were not used): "
                                   + "; ".join(bulk.manifest_unmatched[:20]))
        with right:
            st.markdown("**No PDF at hand?** Load the bundled sample: the CONUS Interceptor Site Final EIS "
                        "executive summary (74 pages, DoD Missile Defense Agency, 2017).")
            if st.button("Load sample EIS", icon="🌲"):
                start_ingest(ingest_params(str(config.SAMPLE_PDF), None, int(chunk_size), int(chunk_overlap)),
                             "Index the sample EIS")
        # This session's ingests, and any still running (started before a reload, in another tab, or from the CLI).
        started = docs_case.watched_ingests(st.session_state.get("ingest_jobs", []))
        if started:
            st.caption("Indexing runs in the background: you can use the rest of the app meanwhile; the sidebar shows "
                       "progress on every page.")
            for job_id in started[:10]:
                watch(job_id, "docs")
        res = run_safely(docs_case.last_finished, started)
        if res is not None:
            st.success(plain(res.headline(doc_label(res.doc_id or res.name))))
            cols = st.columns(5)
            cols[0].metric("Pages", res.pages)
            cols[1].metric("Characters", f"{res.chars:,}")
            cols[2].metric("Tokens (embedder)", f"{res.tokens:,}",
                           help=f"Counted by the embedding model's tokenizer ({emb.name}). A chat model counts the same "
                                "text with its own tokenizer (or estimates it), so its figure on the Ask page differs.")
            cols[3].metric("Chunks", res.chunks)
            cols[4].metric("Time", f"{res.seconds:.1f} s")
            for level, note in res.page_notes():
                (st.warning if level == "warning" else st.info)(note)

    library = docs_case.Library(svc)
    docs, titles = library.docs, library.titles
    facets = library.facets()

    # The filters sit in the sidebar, beside the chunking settings: they narrow the documents table and its picker.
    with st.sidebar:
        st.subheader("Find documents")
        f_text = st.text_input("Title, file name or EIS number contains", key="docs_f_text")
        f_agencies = st.multiselect("Lead agency", facets.agencies, key="docs_f_agency")
        f_states = st.multiselect("State", facets.states, key="docs_f_states",
                                  format_func=lambda c: f"{c} · {meta_lib.STATES.get(c, c)}")
        f_types = st.multiselect("Document type", facets.types, key="docs_f_type")
        f_tags = st.multiselect("Tag (any of)", facets.tags, key="docs_f_tags", disabled=not facets.tags,
                                help=None if facets.tags else "No document has tags yet: add them under Metadata.")
        f_years = ""
        if len(facets.years) >= 2:
            low, high = st.slider("Year published", facets.years[0], facets.years[-1],
                                  (facets.years[0], facets.years[-1]), key="docs_f_year")
            f_years = facets.year_range(low, high)
        sort_by = st.selectbox("Sort by", meta_lib.SORTS, key="docs_sort")
        descending = st.toggle("Descending", key="docs_desc")
    filters = search.Filters(agencies=f_agencies, states=f_states, types=f_types, years=f_years, tags=f_tags, text=f_text)


with tab_docs:
    if not docs:
        st.info("No documents yet. Upload a PDF or load the sample in **Add documents**.")
    else:
        stale = library.stale()
        if stale:
            running = docs_case.reembed_running()
            st.info(f"{len(stale)} of {len(docs)} documents were embedded by another model or precision than the one "
                    "searches use now. Until each is embedded again, it is found by its words only (marked *by "
                    "words only* below). " + ("They are being embedded again in the background (progress under "
                                              "Jobs, in the sidebar)." if running else
                                              "No re-embedding is running now (it was cancelled or could not "
                                              "start): press the button, or the app starts it when it next starts."))
            if not running and access.allowed(access.Action.SETTINGS) and st.button("Embed them again now", key="docs_reembed"):
                if run_safely(queue_reembed) is None:
                    st.warning("The job could not be queued just now (the store was busy); try again in a moment.")
                else:
                    st.rerun()
        shown = run_safely(library.listed, filters, sort_by, descending) or []
        if len(shown) < len(docs):
            st.caption(f"{len(shown)} of {len(docs)} documents match the filters in the sidebar.")
        every = st.toggle("Every column", key="docs_every_column",
                          help="Also the file name, its size in characters and tokens, how it was cut into chunks, "
                               "how long indexing took, and its id. The table then scrolls sideways.")
        table(pd.DataFrame(library.rows(shown, stale), columns=docs_case.COLUMNS), hide_index=True, width="stretch",
              column_order=None if every else docs_case.SHOWN_FIRST, long=[] if every else ["title"])
        st.download_button(
            f"Download metadata of the {len(shown)} document(s) shown (CEQ NEPA Data Standard JSON)",
            accounts.download(f"metadata of {len(shown)} document(s) (CEQ JSON)",
                              lambda: json.dumps(volumes_case.export(shown, svc), indent=1)), "nepa_metadata.json",
            "application/json", disabled=not shown,
            help="projects, processes and documents as the standard names them; values unknown here are left out "
                 "and listed under other.missing_required")
        if not shown:
            st.info("No document matches these filters. Clear some in the sidebar.")
        else:
            names = library.names(shown)  # titles, with the file name where two read the same
            with st.expander("EISs in volumes"):
                volumes_panel(svc, titles)
            chosen = st.selectbox("Document", list(names), format_func=names.get, key="docs_pick")
            info = library.info(chosen)
            with st.expander("Metadata", expanded=True):
                metadata_panel(svc, chosen, library.meta[chosen], library.tags[chosen], library.every_tag())
            chunks = svc.docs.chunks(chosen)
            for level, note in docs_case.page_notes(info):
                (st.warning if level == "warning" else st.info)(note)
            st.markdown(f"**Chunks of {plain(titles[chosen])}** ({len(chunks)}; size {info.chunk_size}, overlap {info.chunk_overlap} tokens)")
            table(
                pd.DataFrame(docs_case.chunk_rows(chunks, info.ocr_pages)),
                hide_index=True, width="stretch", height=300,
            )
            c1, c2 = st.columns(2)
            with c1:
                if access.allowed(access.Action.UPLOAD) and st.button(
                        f"Re-index with size {chunk_size} / overlap {chunk_overlap}", key="reindex"):
                    st.session_state["docs_reindex"] = start_ingest(
                        reindex_params(chosen, chunk_size, chunk_overlap), f"Re-index {titles[chosen]}")
                watch(st.session_state.get("docs_reindex"), "reindex")  # its progress here, where it was asked
            with c2:
                if access.allowed(access.Action.EDIT_METADATA):
                    take_out_button(svc, chosen)
                # one confirmation per document: a tick never carries over to the next one picked
                confirm = access.allowed(access.Action.DELETE) and st.checkbox(
                    "Yes, delete this document", key=f"confirm_delete_{chosen}")
                if access.allowed(access.Action.DELETE) and st.button(
                        "Delete document", type="secondary", disabled=not confirm, key="delete"):
                    run_safely(svc.docs.delete, chosen)
                    st.toast(f"Deleted {plain(titles[chosen])}")
                    st.rerun()

with tab_search:
    if not docs:
        st.info("Index a document first.")
    else:
        scope, balanced = scope_picker(key="try")
        query = st.text_input("Query", placeholder="e.g. Which sites were evaluated for the interceptor?",
                              key="try_query")
        c1, c2 = st.columns([1, 3])
        k = c1.slider("k", 1, 20, 5, key="try_k")
        method = c2.radio("Method", METHODS, horizontal=True, key="try_method",
                          format_func=lambda x: METHOD_LABELS[x],
                          help="Hybrid (the default everywhere) fuses the meaning and word-match rankings. Each "
                               "method scores on its own scale: compare ranks, not scores, across methods.")
        compare = st.checkbox("Compare all three methods side by side")
        if query and scope is None:
            st.warning("The scope holds no document: pick at least one, or widen the filter.")
        elif query:
            ids = scope_ids(svc, scope)
            methods = METHODS if compare else (method,)
            cols = st.columns(len(methods))
            for col, m in zip(cols, methods, strict=True):
                hits = run_safely(svc.retriever.search_scope, ids, query, k, m, balanced) or []
                with col:
                    st.markdown(f"**{METHOD_LABELS[m]}**")
                    if not hits:
                        st.caption("No passage matched.")
                    for h in hits:
                        pages = docs_case.pages_of(h.chunk)
                        where = " › ".join(x for x in (titles.get(h.doc_id, h.doc_name), h.chunk.section) if x)
                        name, tip = SCORE_LABELS[m]
                        with st.container(border=True):
                            st.markdown(f"**#{h.rank}** · {plain(where)}, {pages}")
                            moved = is_navigation(h.chunk.text)
                            st.caption(f"{name} {h.score:.3f}" + (" · a table of contents: ranked after the text, "
                                                                  "whatever its score" if moved else ""), help=tip)
                            if tables.is_table_passage(h.chunk.text):  # its rows as a table, not Markdown pipes
                                show_passage(h.chunk.text)
                                continue
                            text = passage_text(h.chunk.text)
                            st.text(docs_case.snippet(text, SNIPPET))
                            if len(text) > SNIPPET:
                                with st.expander("Whole passage"):
                                    st.text(h.chunk.text)  # PDF text: shown as text, never rendered as Markdown

"""Home: what the tool is, what is indexed, which models are available."""
import pandas as pd
import streamlit as st

from lib.core import config, redact, told_apart
from lib.models import registry, warm_status
from pages._gate import through_gate
from pages._ui import code, plain, services, table, titled

through_gate()  # a page reached without the app's sign-in gate goes back through it

st.title("🌲 NEPA QA Studio")
st.markdown(
    "Question answering and evaluation for **Environmental Impact Statements**. Index an EIS, ask it questions "
    "with several models side by side, run NEPAQuAD-style benchmarks, have NEPA experts validate items, and run "
    "the EnviroExam environmental-science exam. Everything runs on this machine; cloud models light up when "
    "a key is configured."
)

st.subheader("Start here")
tour = [*st.columns(4), *st.columns(3)]  # two rows: each step's name fits
for col, (page, icon, step, what) in zip(tour, [
    ("pages/documents.py", "📄", "1 · Documents", "Click **Load sample EIS** (the 74-page summary of a Final EIS), or upload your own PDFs."),
    ("pages/ask.py", "💬", "2 · Ask", "Press **One-click demo**, then type your own question and press **Run**."),
    ("pages/search.py", "🔎", "3 · Search", "Find passages across every indexed EIS, with pages to open."),
    ("pages/benchmark.py", "📊", "4 · Benchmark", "**Load the sample set**, then **Run**: scores with n and intervals."),
    ("pages/validate.py", "✅", "5 · Validate", "Experts label items (keys 1–7) and see how far they agree."),
    ("pages/arena.py", "⚖️", "6 · Arena", "Vote blind on pairs of answers (keys ← → T X); models earn ratings."),
    ("pages/enviroexam.py", "🎓", "7 · EnviroExam", "The 42-course exam (in Chinese): run a model, or take the quiz."),
], strict=True):
    with col.container(border=True):
        try:
            st.page_link(page, label=step, icon=icon)
        except Exception:  # noqa: BLE001 - the page run on its own (no navigation to link into): a plain title
            st.markdown(f"**{icon} {step}**")
        st.caption(what)

svc = services()
docs = svc.docs.list()
c1, c2, c3 = st.columns(3)
c1.metric("Documents indexed", len(docs))
c2.metric("Pages", f"{sum(d.pages for d in docs):,}")
c3.metric("Chunks", f"{sum(d.chunks for d in docs):,}")

st.subheader("Indexed documents")
if docs:
    titles = titled(docs)  # two documents with one title are told apart by their files
    shown = told_apart({d.doc_id: titles[d.doc_id].rsplit(" (", 1)[0] for d in docs}, {d.doc_id: d.name for d in docs})
    table(
        pd.DataFrame(
            [{"document": shown[d.doc_id], "pages": d.pages, "chunks": d.chunks, "tokens (embedder)": d.tokens}
             for d in docs]
        ),
        hide_index=True,
        width="stretch",
        long=["document"],  # a title runs long; its file name and the rest are on Documents
    )
else:
    st.info("Nothing indexed yet. Open **Documents** to upload an EIS or load the bundled sample in one click.")

st.subheader("Models")
emb = svc.docs.index.embedder
warm = warm_status()
if getattr(emb, "loaded", True) and warm["state"] != "loading":  # the search model loads right after this one
    backend = getattr(emb, "backend", "torch")
    st.markdown(f"- **Search model:** {plain(emb.name)}: ready, on this machine")
    with st.expander("Search model details"):
        st.markdown(f"`{emb.name}` on {backend}: a window of {emb.max_tokens + 2} tokens, {emb.dimension} "
                    "dimensions, offline")
elif warm["state"] == "failed":
    st.markdown(f"- **Embedding:** `{emb.name}`: could not load ({plain(warm['error'])})")
else:  # this page does not wait for the model: it loads in the background
    st.markdown(f"- **Embedding:** `{emb.name}` (offline): loading in the background; the first start on a machine "
                "also converts it to ONNX once (about 30 s)")
try:
    statuses = registry.status_all(check=True)
    # a list, not a table: a note runs to a sentence, and a list wraps it where a table's column would run past
    # the page's edge
    st.markdown("\n".join(f"- {'🟢' if ok else '⚪'} **{plain(p.label)}**: {plain(reason)}" for p, ok, reason in statuses))
    with st.expander("Model ids (for the command line and settings)"):
        table(pd.DataFrame([{"model": p.label, "id": p.id} for p, _, _ in statuses]), hide_index=True,
                     width="stretch")
except ImportError:
    pass

with st.expander("Where things are stored"):
    st.markdown(
        f"- Data folder: {code(config.paths().home)} (set by {config.source_of('NEPAQA_HOME')}; "
        "change it with the NEPAQA\\_HOME setting)\n"
        f"- Index: {'Chroma server ' + code(redact(config.get('NEPAQA_CHROMA_URL'))) if config.get('NEPAQA_CHROMA_URL') else code(config.paths().chroma)}\n"
        f"- Database: {'from NEPAQA_DATABASE_URL' if config.get('NEPAQA_DATABASE_URL') else code(config.paths().database)}"
    )

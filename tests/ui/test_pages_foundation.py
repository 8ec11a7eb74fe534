"""AppTest: the Home and Documents pages, with the real index underneath."""
from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT, SAMPLE_PDF, settle

T = 180  # seconds: the first run loads the embedding model


def page(name: str) -> AppTest:
    return AppTest.from_file(str(ROOT / "pages" / name), default_timeout=T)


def test_app_navigation_runs():
    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=T).run()
    assert not at.exception
    assert "NEPA QA Studio" in at.title[0].value


def test_home_lists_models_and_empty_state_or_docs(services):
    at = page("home.py").run()
    assert not at.exception
    text = " ".join(m.value for m in at.markdown)
    assert "all-MiniLM-L6-v2" in text
    tables = [d.value for d in at.dataframe]
    # the models as a list that wraps its notes: the local one ready, a cloud one without its key not (no ids here)
    models = next(m.value for m in at.markdown if "gpt" in m.value).replace("\\", "")  # shown as written: unescaped
    lines = models.splitlines()
    assert next(x for x in lines if "SmolLM2" in x).startswith("- 🟢 **SmolLM2-135M (tiny local model)**: "), lines
    assert next(x for x in lines if "gpt" in x).startswith("- ⚪ **OpenAI gpt"), lines
    assert "openai/gpt-4o-mini" not in models
    ids = next(t for t in tables if "id" in t.columns and "model" in t.columns)
    assert set(ids.loc[ids["model"] == "OpenAI gpt-4o-mini", "id"]) == {"openai/gpt-4o-mini"}


def test_documents_upload_preview_search_delete(services, pdf_factory):
    at = page("documents.py").run()
    assert not at.exception
    path = pdf_factory("upload_me.pdf", ["Noise from the interceptor site construction would be temporary. " * 30,
                                         "Wetland delineation found two wetlands near the access road. " * 30])
    at.file_uploader[0].set_value([(path.name, path.read_bytes(), "application/pdf")])
    at.run()
    next(b for b in at.button if b.label == "Index uploaded files").click().run()
    settle(at)
    assert not at.exception
    assert any(s.value == "upload me is ready." for s in at.success), [s.value for s in at.success]  # as words
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Pages"] == "2" and int(metrics["Chunks"]) >= 1
    doc_id = next(d.doc_id for d in services.docs.list() if d.name == "upload_me")

    # retrieval tab: hybrid by default, top chunk is about wetlands
    at.selectbox(key="try").select(doc_id).run()
    at.text_input(key="try_query").input("wetlands near the access road").run()
    assert at.radio(key="try_method").value == "hybrid"
    # each hit: its rank, where it is, a labelled score, and the start of its text without a click
    hits = [m.value for m in at.markdown if m.value.startswith("**#")]
    assert hits and any("p. 2" in h for h in hits)
    assert any(c.value.startswith("fusion score ") for c in at.caption)
    assert any("Wetland delineation found two wetlands" in t.value for t in at.text)

    # re-index with other chunk settings: a background job, after which the document has them
    at.selectbox(key="docs_pick").select(doc_id).run()
    next(n for n in at.number_input if n.label == "Chunk size (tokens)").set_value(120).run()
    at.button(key="reindex").click().run()
    settle(at)
    assert not at.exception, at.exception
    assert next(d for d in services.docs.list() if d.doc_id == doc_id).chunk_size == 120

    # delete needs the confirmation tick
    at.selectbox(key="docs_pick").select(doc_id).run()
    delete = at.button(key="delete")
    assert delete.disabled
    at.checkbox(key=f"confirm_delete_{doc_id}").check().run()
    at.button(key="delete").click().run()
    assert not at.exception
    assert doc_id not in [d.doc_id for d in services.docs.list()]


def test_documents_tags_filter_and_retrieval_across_documents(services, pdf_factory):
    ids = {}
    for name, text in (("caribou_eis", "Caribou calving grounds lie north of the proposed pipeline corridor. "),
                       ("wetland_eis", "Wetland fill along the highway would be mitigated by a wetland bank. ")):
        ids[name] = services.docs.ingest_file(str(pdf_factory(f"{name}.pdf", [text * 30, "Noise would be brief. " * 40]))).doc_id
    at = page("documents.py").run()
    at.selectbox(key="docs_pick").select(ids["caribou_eis"]).run()
    at.multiselect(key=f"tags_{ids['caribou_eis']}").set_value(["Arctic", "wildlife"])  # new tags, typed
    next(b for b in at.button if b.label == "Save tags").click().run()  # a form: its values go with the submit
    assert not at.exception
    assert any("Saved the tags" in s.value for s in at.success)
    at.multiselect(key="docs_f_tags").set_value(["arctic"]).run()
    table = at.dataframe[0].value
    assert list(table["id"]) == [ids["caribou_eis"]] and list(table["tags"]) == ["arctic, wildlife"]

    # Try retrieval over two documents, balanced: both are represented and each hit names its document
    at.radio(key="try_how").set_value("Several documents").run()
    at.multiselect(key="try_many").set_value([ids["caribou_eis"], ids["wetland_eis"]]).run()
    at.toggle(key="try_bal").set_value(True).run()
    at.text_input(key="try_query").input("wetland mitigation bank").run()
    assert not at.exception
    from lib.documents import metadata as M
    from pages._ui import plain

    title = {n: plain(M.display_title(M.get(d, services.docs.engine), n)) for n, d in ids.items()}
    labels = [m.value for m in at.markdown if m.value.startswith("**#")]
    assert len(labels) == 5
    assert labels[0].startswith(f"**#1** · {title['wetland_eis']}")  # the best passage is about the wetland bank
    assert labels[1].startswith(f"**#2** · {title['caribou_eis']}")  # balanced: the other document comes next

    # by metadata: the tag picks one document, named under the filters; every hit is from it
    at.radio(key="try_how").set_value("By metadata").run()
    at.multiselect(key="try_tag").set_value(["arctic"]).run()
    assert any(c.value == f"1 document(s) match: {title['caribou_eis']}" for c in at.caption), [c.value for c in at.caption]
    hits = [m.value for m in at.markdown if m.value.startswith("**#")]
    assert hits and all(h.split(" · ")[1].startswith(title["caribou_eis"]) for h in hits)


def test_documents_bad_upload_shows_reason(services, bad_files):
    before = [d.doc_id for d in services.docs.list()]
    at = page("documents.py").run()
    data = Path(bad_files["encrypted"]).read_bytes()
    at.file_uploader[0].set_value([("locked.pdf", data, "application/pdf")])
    at.run()
    next(b for b in at.button if b.label == "Index uploaded files").click().run()
    settle(at)
    # named as the user named it, with its .pdf (the document's name drops it; the staged copy's is ours)
    assert any(e.value.startswith("'locked.pdf' is password-protected") for e in at.error), [e.value for e in at.error]
    assert [d.doc_id for d in services.docs.list()] == before


def test_documents_load_sample(services):
    at = page("documents.py").run()
    next(b for b in at.button if b.label == "Load sample EIS").click().run()
    settle(at)
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Pages"] == "74"
    assert SAMPLE_PDF.stem in [d.name for d in services.docs.list()]


def test_search_page_ranks_documents_with_highlighted_snippets(services, sample_doc):
    at = page("search.py").run()
    assert not at.exception
    at.text_input(key="corpus_query").input("wetland mitigation")
    next(b for b in at.button if b.label == "Search").click().run()
    assert not at.exception
    assert any("document(s) · ranked by their best passage" in c.value for c in at.caption)
    snippets = [h.proto.body for h in at.get("html")]
    assert snippets and any("<mark>" in s.lower() and "wetland" in s.lower() for s in snippets)
    # a passage opens its PDF page, and the results stay through the rerun that causes
    at.toggle[0].set_value(True).run()
    assert not at.exception
    assert len(at.get("image")) == 1
    assert any(c.value.startswith("Page ") and c.value.endswith("· passage highlighted") for c in at.caption)
    assert any("<mark>" in h.proto.body for h in at.get("html"))
    # filters (lib/app/search.py): one that no document meets says so; one written wrongly says how to write it
    next(t for t in at.text_input if t.label.startswith("Years")).input("1900")
    next(b for b in at.button if b.label == "Search").click().run()
    assert [w.value for w in at.warning] == ["No document matches these filters."], [e.value for e in at.error]
    next(t for t in at.text_input if t.label.startswith("Years")).input("last decade")
    next(b for b in at.button if b.label == "Search").click().run()
    assert any("year takes a year or a range such as 2010-2020" in e.value for e in at.error), [e.value for e in at.error]


def test_home_renders_before_the_embedder_loads(tmp_path):
    """Instant start: the first page needs no model; in a fresh process it renders without importing torch."""
    import os
    import subprocess
    import sys

    code = ("import sys\nfrom streamlit.testing.v1 import AppTest\n"
            f"at = AppTest.from_file({str(ROOT / 'pages' / 'home.py')!r}, default_timeout=120).run()\n"
            "assert not at.exception, at.exception\n"
            "print('TEXT=' + ' '.join(m.value for m in at.markdown).replace(chr(10), ' '))\n"
            "print('HEAVY=' + str(sorted(m for m in ('torch', 'sentence_transformers') if m in sys.modules)))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "NEPAQA_HOME": str(tmp_path / "home")})
    assert out.returncode == 0, out.stderr[-2000:]
    assert "HEAVY=[]" in out.stdout
    assert "loading in the background" in out.stdout  # the status line, while the page is already up


def test_tidy_shows_missing_values_as_a_dash_and_a_mixed_column_as_text():
    """A number column with a missing value held numbers and "—": the grid could not take it as it was and
    converted it itself, with a warning in the log (EnviroExam's tables)."""
    import pandas as pd
    import pyarrow as pa

    from pages._ui import tidy

    out = tidy(pd.DataFrame({"I": [0.21, None], "n": [42, 3], "who": ["a", None]}))
    assert list(out["I"]) == ["0.21", "—"] and list(out["who"]) == ["a", "—"] and list(out["n"]) == [42, 3]
    pa.Table.from_pandas(out)  # what st.dataframe does first: a mixed column failed here

"""A store whose vectors another embedder made (here: fp32, while searches now embed with int8) keeps working: its
documents are searched by their words only, labelled so on the Documents page, and embedded again in the
background with progress, after which they are searched by meaning too. No ranking mixes two kinds of vectors."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from lib.collection import stale_vectors
from lib.storage import jobs, leases
from tests.conftest import ROOT

PAGES = ["Caribou calving grounds lie north of the proposed pad; helicopter traffic would avoid them in June. " * 4,
         "Permafrost thaw under the gravel road could change drainage; culverts are sized for breakup flows. " * 4,
         "Wetland fill of 42 acres would be offset by restoring marsh habitat along the river delta. " * 4]


@pytest.fixture
def fp32_store(tmp_path: Path, pdf_factory, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str, Path]:
    """A document indexed by another process with NEPAQA_EMBED_BACKEND=onnx (fp32 vectors); this process then
    uses the default (int8)."""
    home = tmp_path / "home"
    pdf = pdf_factory("arctic.pdf", PAGES)
    env = {**os.environ, "NEPAQA_HOME": str(home), "NEPAQA_EMBED_BACKEND": "onnx"}
    out = subprocess.run([sys.executable, "-m", "lib", "ingest", str(pdf)], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    monkeypatch.setenv("NEPAQA_HOME", str(home))
    monkeypatch.delenv("NEPAQA_EMBED_BACKEND", raising=False)
    return home, json.loads(out.stdout)["doc_id"], pdf_factory("tundra.pdf", [
        "Caribou calving on the coastal plain peaks in early June; aircraft keep above 1,500 feet. " * 4])


def test_documents_of_another_embedder_are_searched_by_words_then_embedded_again(fp32_store):
    home, doc_id, _ = fp32_store
    from lib.app.services import get_services

    svc = get_services()
    [info] = svc.docs.list()
    assert info.embed_model == "all-MiniLM-L6-v2 (onnx)"
    assert [d.doc_id for d in stale_vectors(svc.docs)] == [doc_id]
    query = "how many acres of wetland fill are offset"
    # meaning would compare an int8 query with fp32 vectors: the document is ranked by its words, by every method
    lexical = svc.retriever.search(doc_id, query, 3, "lexical")
    assert "42 acres" in lexical[0].chunk.text
    for method in ("dense", "hybrid"):
        assert [h.chunk.index for h in svc.retriever.search(doc_id, query, 3, method)] == \
            [h.chunk.index for h in lexical], method
    # with a document of today's kind beside it, that one is ranked by meaning and both come back
    other = svc.docs.ingest_file(str(fp32_store[2]))
    both = svc.retriever.search_scope([doc_id, other.doc_id], "caribou calving and wetland fill acres", 6, "dense")
    assert {h.doc_id for h in both} == {doc_id, other.doc_id}
    svc.docs.delete(other.doc_id)

    # the app, when it starts, queues the re-embedding and labels the document until it is done (the test holds
    # the document's lease meanwhile, so the page is read before the job can finish)
    with leases.held(f"doc:{doc_id}", svc.docs.engine, "the test"):
        at = AppTest.from_file(str(ROOT / "pages" / "documents.py"), default_timeout=120)
        at.session_state["docs_first_tab"] = "Indexed documents"
        at.run()
        assert not at.exception
        assert any("1 of 1 documents were embedded by another model" in i.value for i in at.info)
        table = at.dataframe[0].value
        assert table.loc[table["id"] == doc_id, "search"].tolist() == ["by words only, until embedded again"]
        search = AppTest.from_file(str(ROOT / "pages" / "search.py"), default_timeout=120)
        search.run()
        assert not search.exception
        assert any("1 document(s) wait to be embedded again" in c.value for c in search.caption)
        [job] = [j for j in jobs.list_jobs(10) if j.kind == "reembed"]
        time.sleep(1.0)
        assert jobs.get(job.job_id).status == "running"  # waiting for the lease
    done = jobs.wait(job.job_id, 600)
    assert done.status == "done", done.error
    assert done.progress == 1.0 and done.result == {"documents": 1, "chunks": info.chunks,
                                                     "embedder": "all-MiniLM-L6-v2 (onnx-int8)"}

    [after] = svc.docs.list()
    assert after.embed_model == "all-MiniLM-L6-v2 (onnx-int8)" and after.gen != info.gen
    assert stale_vectors(svc.docs) == []
    search = AppTest.from_file(str(ROOT / "pages" / "search.py"), default_timeout=120)
    search.run()
    assert not search.exception and not [c for c in search.caption if "wait to be embedded" in c.value]
    dense = svc.retriever.search(doc_id, query, 3, "dense")
    assert dense and "42 acres" in dense[0].chunk.text
    # nothing more to do: starting again queues nothing
    from lib.app import queue_reembed

    assert queue_reembed() is None


def test_indexing_the_same_file_again_embeds_it_with_todays_model(fp32_store):
    """An ingest that returns leaves its document at final quality, also when the file was indexed before by
    another embedder: "already indexed" would leave it searched by words only."""
    home, doc_id, _ = fp32_store
    from lib.app.services import get_services

    svc = get_services()
    pdf = home.parent / "arctic.pdf"  # where the fixture made it
    res = svc.docs.ingest_file(str(pdf))
    assert res.doc_id == doc_id and not res.skipped
    [info] = svc.docs.list()
    assert info.embed_model == "all-MiniLM-L6-v2 (onnx-int8)" and stale_vectors(svc.docs) == []
    again = svc.docs.ingest_file(str(pdf))
    assert again.skipped  # now it is done

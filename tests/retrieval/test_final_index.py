"""One pass to a final index: an ingest that returns leaves its document at the search quality it keeps. Its first
search ranks exactly as it does once every job the ingest queued has finished, and as in the store opened again
by another process later."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pymupdf

from lib.app.job_handlers import ingest_params
from lib.core import config
from lib.evaluation.benchmark.dataset import load_items
from lib.storage import jobs
from tests.conftest import ROOT, SAMPLE_PDF

QUESTIONS = 40
K = 5


def _ranks(services, doc_id: str, questions: list[str], method: str) -> list[list]:
    """Top K of each question: in the document (chunk indexes), or over every document ("all": doc and index)."""
    if method == "all":
        return [[[h.doc_id, h.chunk.index] for h in services.retriever.search_scope(None, q, K, "hybrid")]
                for q in questions]
    return [[h.chunk.index for h in services.retriever.search(doc_id, q, K, method)] for q in questions]


def test_the_first_search_after_an_ingest_ranks_as_after_every_job_and_in_a_reopened_store(services, tmp_path):
    # a document of its own (the sample's first 30 pages), indexed the way the app indexes an upload: a job
    pdf = tmp_path / "first_pages.pdf"
    with pymupdf.open(SAMPLE_PDF) as src:
        src.select(list(range(30)))
        src.save(pdf)
    job_id = jobs.submit("ingest", ingest_params(str(pdf), "First pages"), "Index first_pages.pdf")
    done = jobs.wait(job_id, 600)
    assert done.status == "done", done.error
    doc_id = done.result["doc_id"]
    items, _ = load_items(config.SAMPLE_QUESTIONS)
    questions = list(dict.fromkeys(it.question for it in items))[:QUESTIONS]

    methods = ("dense", "hybrid", "all")
    first = {m: _ranks(services, doc_id, questions, m) for m in methods}
    assert all(len(r) == K for r in first["dense"])

    # every job anything queued meanwhile runs to its end (there should be none: nothing is left for later)
    for job in jobs.list_jobs(50):
        if job.active:
            jobs.wait(job.job_id, 600)
    assert not [j.kind for j in jobs.list_jobs(50) if j.active]
    after = {m: _ranks(services, doc_id, questions, m) for m in methods}
    assert after == first

    # another process opens the store later: the same ranking
    queries = tmp_path / "questions.txt"
    queries.write_text("\n".join(questions), encoding="utf-8")
    for method in methods:
        scope = ["--all", "--method", "hybrid"] if method == "all" else ["--doc", doc_id, "--method", method]
        out = subprocess.run([sys.executable, "-m", "lib", "search", *scope, "-k", str(K), "--queries", str(queries)],
                             cwd=ROOT, env=dict(os.environ), capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr[-2000:]
        reopened = [[[h["doc_id"], h["chunk_index"]] if method == "all" else h["chunk_index"] for h in hits]
                    for hits in json.loads(out.stdout)]
        assert reopened == first[method], method

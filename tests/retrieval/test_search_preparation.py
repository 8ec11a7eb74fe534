"""Search preparation after an ingest (lib/app/job_handlers.py's "prepare" job over rescoring.fill): queued by the
ingest job, it makes every missing exact vector in the background, gives way to a waiting ingest, and the
Documents page says how far it is and starts it for documents indexed from the command line."""
from __future__ import annotations

import time

import pytest
from sqlalchemy import update
from streamlit.testing.v1 import AppTest

from lib.app.job_handlers import PREPARE, ingest_params
from lib.retrieval import rescoring
from lib.storage import jobs, tables
from tests.conftest import ROOT

PAGES = ["Caribou calving grounds lie north of the proposed pad; helicopter traffic would avoid them in June. " * 4,
         "Permafrost thaw under the gravel road could change drainage; culverts are sized for breakup flows. " * 4]


@pytest.fixture(autouse=True)
def fill_after_ingest(monkeypatch):
    """The fill after an ingest on (tests/conftest.py turns it off for the other tests), with no job of an earlier
    test still running in the shared store."""
    from lib.app import job_handlers

    for job in jobs.list_jobs(50):
        if job.active:
            jobs.wait(job.job_id, 120)
    monkeypatch.setattr(job_handlers, "PREPARE_AFTER_INGEST", True)


def _prepare_jobs_after(t0: float) -> list[jobs.Job]:
    return [j for j in jobs.list_jobs(50, kind=PREPARE) if j.created_at >= t0]


def test_an_ingest_job_queues_the_preparation_which_makes_every_exact_vector(services, pdf_factory):
    t0 = time.time()
    job = jobs.wait(jobs.submit("ingest", ingest_params(str(pdf_factory("prep_a.pdf", PAGES))), "Index prep_a"), 120)
    assert job.status == "done"
    doc_id = job.result["doc_id"]
    queued = _prepare_jobs_after(t0)
    assert len(queued) == 1  # one job, queued by the ingest
    done = jobs.wait(queued[0].job_id, 300)
    assert done.status == "done" and done.result["missing"] == 0 and done.result["made"] >= job.result["chunks"]
    assert rescoring.missing(services.docs, doc_id) == []
    made, total = rescoring.prepared(services.docs)
    assert made == total > 0


def test_the_preparation_gives_way_to_a_waiting_ingest(services, pdf_factory):
    doc = services.docs.ingest_file(str(pdf_factory("prep_b.pdf", PAGES[::-1])), chunk_size=24, chunk_overlap=0)
    waiting = jobs._insert("ingest", "Index another EIS", {}, "app", services.docs.engine, "queued")
    try:
        res = jobs.run_foreground(PREPARE, {"doc_ids": [doc.doc_id]}, "Prepare search")
        assert res["gave_way_to_ingest"] and res["made"] == 0
        assert rescoring.missing(services.docs, doc.doc_id) == list(range(doc.chunks))  # nothing made yet
        # an ingest past its commit (writing its vectors) is not waited for
        with services.docs.engine.begin() as c:
            c.execute(update(tables.jobs).where(tables.jobs.c.job_id == waiting)
                      .values(status="running", progress=0.95))
        res = jobs.run_foreground(PREPARE, {"doc_ids": [doc.doc_id]}, "Prepare search")
        assert not res["gave_way_to_ingest"] and res["made"] == doc.chunks and res["missing"] == 0
    finally:
        with services.docs.engine.begin() as c:
            c.execute(update(tables.jobs).where(tables.jobs.c.job_id == waiting).values(status="done"))
    assert rescoring.missing(services.docs, doc.doc_id) == []


def test_an_ingest_that_fails_still_queues_the_preparation_it_made_wait(services, pdf_factory, bad_files):
    """The fill gave way to an ingest, and that ingest fails (not a PDF): it queues the fill all the same, so no
    vector stays missing until the next upload."""
    doc = services.docs.ingest_file(str(pdf_factory("prep_d.pdf", PAGES)), chunk_size=20, chunk_overlap=0)
    assert rescoring.missing(services.docs, doc.doc_id)
    t0 = time.time()
    failed = jobs.wait(jobs.submit("ingest", ingest_params(str(bad_files["not_pdf"])), "Index report"), 120)
    assert failed.status == "failed"
    queued = _prepare_jobs_after(t0)
    assert len(queued) == 1 and jobs.wait(queued[0].job_id, 300).status == "done"
    assert rescoring.missing(services.docs, doc.doc_id) == []


def test_the_documents_page_says_how_far_search_is_prepared_and_starts_it(services, pdf_factory):
    """A document indexed from the command line (no job after it): the page says how many passages still lack
    their exact vectors and offers to make them; once made, it says nothing."""
    services.docs.ingest_file(str(pdf_factory("prep_c.pdf", PAGES)), chunk_size=24, chunk_overlap=0)
    made, total = rescoring.prepared(services.docs)
    assert made < total
    at = AppTest.from_file(str(ROOT / "pages" / "documents.py"), default_timeout=180).run()
    note = [i.value for i in at.info if "passages are done" in i.value]
    assert note and f"{made:,} of {total:,} passages" in note[0]
    t0 = time.time()
    next(b for b in at.button if b.label == "Prepare search now").click().run()
    started = _prepare_jobs_after(t0)
    assert len(started) == 1
    assert jobs.wait(started[0].job_id, 300).status == "done"
    at.run()
    assert not [i.value for i in at.info if "passages are done" in i.value]
    assert not [b for b in at.button if b.label == "Prepare search now"]

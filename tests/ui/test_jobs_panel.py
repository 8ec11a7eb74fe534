"""AppTest: the sidebar's jobs panel keeps a failed job small and lets the user dismiss it. (The panel's row is
drawn alone: the session's shared store holds other tests' jobs, which would take the panel's six places.)"""
import time
import uuid

from sqlalchemy import insert
from streamlit.testing.v1 import AppTest

from lib.storage import get_engine, tables


def _row(job_id: str) -> None:
    import streamlit as st

    from lib.storage import jobs
    from pages._jobs import _visible, job_row

    with st.sidebar:
        for job in _visible([jobs.get(job_id)]):
            job_row(job, "side")


def test_a_failed_job_shows_its_reason_in_one_line_and_can_be_dismissed_for_good():
    job_id = uuid.uuid4().hex
    error = ("'notes.pdf' is not a PDF: its content looks like a plain text file. Export it as PDF and upload it "
             "again.\nA second line the sidebar does not need")
    now = time.time()
    with get_engine().begin() as c:
        c.execute(insert(tables.jobs).values(job_id=job_id, kind="ingest", title="Index notes.pdf", status="failed",
                                             progress=0.0, params="{}", error=error, created_at=now - 5,
                                             started_at=now - 5, ended_at=now - 1))
    at = AppTest.from_function(_row, args=(job_id,), default_timeout=60).run()
    assert not at.exception, at.exception
    assert not at.sidebar.error  # no large red box
    line = next(c for c in at.sidebar.caption if "notes" in c.value and "is not a PDF" in c.value)
    assert line.value.startswith(":red[") and "second line" not in line.value  # the reason's first line only
    at.button(key=f"dismiss-side-{job_id}").click().run()
    assert not at.exception, at.exception
    assert not [c for c in at.sidebar.caption if "is not a PDF" in c.value]
    assert not [b for b in at.button if b.key == f"dismiss-side-{job_id}"]
    # for good: a new browser session (or a restarted app) does not show it either; the store and the CLI's list
    # still have it
    again = AppTest.from_function(_row, args=(job_id,), default_timeout=60).run()
    assert not again.exception, again.exception
    assert not [c for c in again.sidebar.caption if "is not a PDF" in c.value]
    from lib.storage import jobs
    assert jobs.get(job_id).dismissed and jobs.get(job_id).status == "failed"


def _row_and_card(job_id: str) -> None:
    import streamlit as st

    from lib.storage import jobs
    from pages._jobs import _visible, job_row, watch

    with st.sidebar:
        for job in _visible([jobs.get(job_id)]):
            job_row(job, "side")
    watch(job_id, "docs")  # the page's own card of the job it started (Documents' ingest)


def test_a_dismissed_job_leaves_the_page_that_started_it_too():
    """Dismissed in the sidebar, a failed ingest's card went from the sidebar but stayed in the Documents page's
    body, red, until a reload."""
    job_id = uuid.uuid4().hex
    now = time.time()
    with get_engine().begin() as c:
        c.execute(insert(tables.jobs).values(job_id=job_id, kind="ingest", title="Index scan.pdf", status="failed",
                                             progress=0.0, params="{}", error="'scan.pdf' has no text layer.",
                                             created_at=now - 5, started_at=now - 5, ended_at=now - 1))
    at = AppTest.from_function(_row_and_card, args=(job_id,), default_timeout=60).run()
    assert not at.exception, at.exception
    assert [e for e in at.main.error if "no text layer" in e.value]  # the page's card says why, in full
    at.button(key=f"dismiss-side-{job_id}").click().run()
    assert not at.exception, at.exception
    assert not [e for e in at.main.error if "no text layer" in e.value]
    assert not [c for c in at.sidebar.caption if "no text layer" in c.value]


def test_a_job_still_running_cannot_be_dismissed():
    import pytest

    from lib.core import UserError
    from lib.storage import jobs

    job_id = uuid.uuid4().hex
    with get_engine().begin() as c:
        c.execute(insert(tables.jobs).values(job_id=job_id, kind="ingest", title="Index big.pdf", status="queued",
                                             origin="worker", progress=0.0, params="{}", created_at=time.time()))
    try:
        with pytest.raises(UserError, match="cancel it before dismissing"):
            jobs.dismiss(job_id)
        assert not jobs.get(job_id).dismissed
    finally:  # not left queued in the session's shared store, where later tests wait for the jobs to end
        jobs.cancel(job_id)
    assert jobs.get(job_id).status == "cancelled"
    jobs.dismiss(job_id)  # once it has ended, it can be
    assert jobs.get(job_id).dismissed

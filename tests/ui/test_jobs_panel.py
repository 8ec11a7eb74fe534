"""AppTest: the sidebar's jobs panel keeps a failed job small and lets the user dismiss it."""
import time
import uuid

from sqlalchemy import insert
from streamlit.testing.v1 import AppTest

from lib.storage import get_engine, tables
from tests.conftest import ROOT


def test_a_failed_job_shows_its_reason_in_one_line_and_can_be_dismissed():
    job_id = uuid.uuid4().hex
    error = ("“notes.pdf” is not a PDF: its first bytes are text. Export it as PDF and upload it again.\n"
             "Traceback details the user does not need in the sidebar")
    now = time.time()
    with get_engine().begin() as c:
        c.execute(insert(tables.jobs).values(job_id=job_id, kind="ingest", title="Index notes.pdf", status="failed",
                                             progress=0.0, params="{}", error=error, created_at=now - 5,
                                             started_at=now - 5, ended_at=now - 1))
    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=120).run()
    assert not at.exception, at.exception
    side = at.sidebar
    assert not [e for e in side.error if "notes.pdf" in e.value]  # no large red box
    line = next(c for c in side.caption if "notes.pdf" in c.value)
    assert line.value.startswith(":red[") and "Traceback" not in line.value  # the reason's first line only
    at.button(key=f"dismiss-side-{job_id}").click().run()
    assert not at.exception, at.exception
    assert not [c for c in at.sidebar.caption if "notes.pdf" in c.value]
    assert not [b for b in at.button if b.key == f"dismiss-side-{job_id}"]

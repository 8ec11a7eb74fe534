"""End to end: `streamlit run` on 127.0.0.1 driven by headless Chromium (Debian's chromium + chromium-driver)."""
import sqlite3

import pytest

from tests.browser import Browser, StreamlitServer
from tests.conftest import SAMPLE_PDF


@pytest.fixture(scope="module")
def app():
    with StreamlitServer() as server:
        browser = Browser(server.url)
        try:
            yield server, browser
        finally:
            browser.close()


def indexed_chunks(server, name: str) -> int:
    with sqlite3.connect(server.home / "nepaqa.db") as con:
        row = con.execute("select n_chunks from documents where name = ?", (name,)).fetchone()
    assert row, f"{name} not indexed"
    return row[0]


def test_upload_sample_pdf_and_see_chunk_count(app):
    server, b = app
    b.open("documents")
    b.wait_text("Upload EIS PDFs")
    b.upload(SAMPLE_PDF)
    b.wait_for_css("[data-testid='stFileChip']", 60)
    b.click_button("Index uploaded files")
    b.wait_text("is ready", 300)
    chunks = indexed_chunks(server, SAMPLE_PDF.stem)
    assert chunks > 50
    b.wait_text(f"Chunks\n{chunks}\n", 30)  # the summary metric shows the indexed count
    b.screenshot(server.home / "documents.png")

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


@pytest.fixture(autouse=True)
def page_on_failure(request, app):
    """On a failure, print what the page showed (and keep a screenshot in the server's home)."""
    yield
    rep = getattr(request.node, "rep_call", None)
    if rep is not None and rep.failed:
        server, b = app
        b.screenshot(server.home / f"failed_{request.node.name}.png")
        print(f"--- page text at failure (screenshot in {server.home}) ---\n{b.body_text()[-4000:]}")


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


def test_ask_one_click_demo_fills_grid(app):
    server, b = app
    b.open("ask")
    b.click_button("One-click demo")
    b.wait_text("Demo: the sample EIS", 120)
    # 3 questions × 2 offline models × 3 modes; every cell shows its timing line when answered
    b.wait_until(lambda t: t.count(" tokens in · ") == 18, 600, "the demo grid did not fill")
    text = b.body_text()
    assert "Verdict:" in text and "Sources: p." in text
    b.screenshot(server.home / "ask_demo.png")


def test_benchmark_sample_run_shows_chart(app):
    server, b = app
    b.open("benchmark")
    b.click_button("Load the sample set (20 items)")
    b.wait_text("20 items from", 60)
    b.click_tab("2 · Run")
    limit = b.wait_for_css("input[aria-label='Limit (0 = all)']")
    limit.send_keys("\b\b\b3\n")
    b.wait_idle()
    b.click_button("Run")
    b.wait_text("See the Results tab", 900)
    b.click_tab("3 · Results")
    b.wait_for_css("[data-testid='stVegaLiteChart'], .vega-embed", 60)
    b.wait_text("95% interval", 60)
    text = b.body_text()
    # a proxy-scored run: named as such, with n and intervals, and no published figures anywhere on the page
    assert "token-F1 proxy (not RAGAS)" in text and "Majority baseline" in text
    assert "GPT-4" not in text and "Published" not in text and "74.36" not in text
    from selenium.webdriver.common.by import By

    headers = [e.text.strip() for e in b.driver.find_elements(By.CSS_SELECTOR, "[data-testid='stTable'] th")]
    assert headers.count("n") >= 2 and headers.count("95% interval") >= 2, headers
    b.screenshot(server.home / "benchmark.png")


def test_validate_label_one_item(app):
    server, b = app
    b.open("benchmark")
    b.click_button("Load the sample set (20 items)")
    b.wait_text("20 items from", 60)
    b.click_button("Send these items to the validation queue")
    b.wait_idle()
    b.open("validate")
    name = b.wait_for_css("input[aria-label^='Your name']")
    name.send_keys("E2E Expert\n")
    b.wait_text("Item 1 of 20", 60)
    from selenium.webdriver.common.by import By

    b.wait_for_css("[data-testid='stRadioOption']", 60)
    for group in b.driver.find_elements(By.CSS_SELECTOR, "[data-testid='stRadio']")[:3]:
        option = group.find_elements(By.CSS_SELECTOR, "[data-testid='stRadioOption']")[0]
        b.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", option)
        option.click()
    b.click_button("Save and next")
    b.wait_text("1 of 20 reviewed by you", 60)
    with sqlite3.connect(server.home / "nepaqa.db") as con:
        n = con.execute("select count(*) from labels where annotator = 'E2E Expert'").fetchone()[0]
    assert n == 3


def test_enviroexam_leaderboard_chart(app):
    server, b = app
    b.open("enviroexam")
    b.wait_text("Leaderboard", 60)
    b.wait_for_css("[data-testid='stVegaLiteChart'], .vega-embed", 60)
    assert "llama-3-70b-instruct" in b.body_text() or b.driver.find_elements("css selector", "canvas, svg")
    b.screenshot(server.home / "enviroexam.png")


def test_markdown_image_in_an_answer_is_not_fetched(app):
    """Issue 10, case 8: an answer quoting `![x](http://127.0.0.1:PORT/leak.png)` (here, the extractive baseline
    quoting a gold passage) shows the characters as written, and the browser never requests the image."""
    import threading
    import time
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    hits: list[str] = []

    class Counting(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's name
            hits.append(self.path)
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args):  # noqa: ANN002 - quiet
            pass

    leak = ThreadingHTTPServer(("127.0.0.1", 0), Counting)
    threading.Thread(target=leak.serve_forever, daemon=True).start()
    port = leak.server_address[1]
    image = f"![x](http://127.0.0.1:{port}/leak.png)"
    try:
        server, b = app
        b.open("ask")
        b.wait_text("Context modes", 120)
        # one cell: the extractive baseline in gold-passage mode
        for chip in ("SmolLM2-135M (tiny local model)", "No context", "RAG"):
            for button in b.driver.find_elements(By.CSS_SELECTOR, f"button[aria-label={('Remove ' + chip)!r}]"):
                b.driver.execute_script("arguments[0].click();", button)
                b.wait_idle()
        modes = b.wait_for_css("input[aria-label='Context modes']")
        modes.click()
        modes.send_keys("Gold")
        b.wait_text("Gold passage", 30)
        modes.send_keys(Keys.ENTER)
        b.wait_idle()
        gold = b.wait_for_css("textarea[aria-label='Gold passage']", 60)
        gold.send_keys(f"The wetland mitigation plan is shown in {image} for the selected site. "
                       "Wetlands near the access road would be avoided by the selected alternative.", Keys.TAB)
        b.wait_idle()
        question = b.wait_for_css("textarea[aria-label='Question']")
        question.send_keys(f"Where is the wetland mitigation plan shown ![q](http://127.0.0.1:{port}/q.png)?", Keys.TAB)
        b.wait_idle()
        b.click_button("Run")
        b.wait_until(lambda t: t.count(" tokens in · ") == 1, 300, "the answer did not arrive")
        b.wait_idle()
        # the answer cell shows the Markdown characters as written (not the gold passage's text area)
        shown = [e.text for e in b.driver.find_elements(By.CSS_SELECTOR, "[data-testid='stText']")]
        assert any(image in t for t in shown), shown
        time.sleep(3)  # give a rendered <img> time to load
        assert hits == [], f"the browser fetched {hits}"
        # control: the browser can reach the counting server, so 0 above means nothing was requested
        b.driver.get(f"http://127.0.0.1:{port}/control")
        assert hits == ["/control"]
    finally:
        leak.shutdown()
        leak.server_close()


"""End to end, issue 11: ask across two documents in the browser, open a numbered source and see its PDF page.

The two documents are indexed with the command line into the server's NEPAQA_HOME (searchable at once)
before `streamlit run` starts (uploading through the browser is covered by test_e2e.py)."""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pymupdf
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from tests.e2e.browser import ROOT, Browser, StreamlitServer

pytestmark = pytest.mark.slow  # left out by `bash .ci/run --fast`

DOCS = {
    "Arctic Refuge Leasing EIS": ["Final Environmental Impact Statement\nArctic Refuge Coastal Plain Oil and Gas "
                                  "Leasing Program\nBureau of Land Management\nAlaska",
                                  "Caribou calving grounds on the coastal plain would be protected by seasonal "
                                  "restrictions on drilling from May 20 to June 20. " * 8],
    "Fort Drum Interceptor EIS": ["Final Environmental Impact Statement\nContinental United States Interceptor "
                                  "Site\nMissile Defense Agency\nNew York",
                                  "Wetland losses at Fort Drum would be mitigated by restoring wetlands at a "
                                  "two-to-one ratio near the access road. " * 8],
}


def make_pdf(path: Path, pages: list[str]) -> Path:
    doc = pymupdf.open()
    for text in pages:
        doc.new_page().insert_textbox(pymupdf.Rect(50, 50, 550, 800), text, fontsize=11)
    doc.save(path)
    doc.close()
    return path


@pytest.fixture(scope="module")
def app():
    home = Path(tempfile.mkdtemp(prefix="nepaqa_e2e_coll_"))
    env = {**os.environ, "NEPAQA_HOME": str(home)}
    ids = {}
    for name, pages in DOCS.items():
        pdf = make_pdf(home / f"{name.split()[0].lower()}.pdf", pages)
        out = subprocess.run([sys.executable, "-m", "lib", "ingest", str(pdf), "--name", name], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr[-2000:]
        ids[name] = json.loads(out.stdout)["doc_id"]
    with StreamlitServer(home=home) as server:
        browser = Browser(server.url)
        try:
            yield server, browser, ids
        finally:
            browser.close()


def click_label(b: Browser, text: str) -> None:
    """Click a radio option or toggle by its visible label."""
    el = next(e for e in b.driver.find_elements(By.XPATH, f"//label[contains(normalize-space(.), {text!r})]")
              if e.is_displayed())
    b.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", el)
    el.click()
    b.wait_idle()


def test_ask_across_two_documents_and_open_a_cited_page(app):
    server, b, ids = app
    b.open("ask")
    b.wait_text("Search in", 120)
    click_label(b, "Several documents")  # its picker starts with the first two documents: both of ours
    b.wait_text("Documents", 30)
    click_label(b, "Balanced")
    # one model (the extractive baseline) in RAG mode: quick, and its answer quotes the sources
    for chip in ("SmolLM2-135M (tiny local model)", "No context"):
        for button in b.driver.find_elements(By.CSS_SELECTOR, f"button[aria-label={('Remove ' + chip)!r}]"):
            b.driver.execute_script("arguments[0].click();", button)
            b.wait_idle()
    question = b.wait_for_css("textarea[aria-label='Question']")
    question.send_keys("How are caribou calving grounds and wetlands protected?", Keys.TAB)
    b.wait_idle()
    b.click_button("Run")
    b.wait_until(lambda t: t.count("Answered in ") == 1, 300, "the answer did not arrive")
    b.wait_idle()
    text = b.body_text()
    # balanced retrieval: both documents are among the numbered sources, one short line each, named by the
    # project title read from each cover (short), with its pages
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("Sources"))
    sources, listed = lines[head], []
    for line in lines[head + 1:]:  # the caption's lines: [1], [2], … (the expanders below start again at [1])
        if not line.startswith(f"[{len(listed) + 1}] "):
            break
        listed.append(line)
    assert any(line.startswith("[") and "] Arctic Refuge Coastal Plain" in line and line.endswith(", p. 2")
               for line in listed), listed
    assert any("] Continental United States Interceptor" in line and line.endswith(", p. 2") for line in listed), listed
    assert all(len(line) <= 60 and "›" not in line for line in listed), listed  # no walls of section paths
    summaries = b.driver.find_elements(By.CSS_SELECTOR, "[data-testid='stExpander'] summary")
    labels = [e.text for e in summaries if "[1]" in e.text or "[2]" in e.text or "[3]" in e.text]
    assert any("caribou" in x.lower() or "arctic" in x.lower() for x in labels), labels
    assert any("fort drum" in x.lower() or "interceptor" in x.lower() for x in labels), labels
    # the answer cites its sources with [n] markers, and the cited sources say so
    assert "the answer cites [" in sources and any(x.rstrip().endswith("cited") for x in labels), (sources, labels)

    # open source [1]: its PDF page is what shows first, an image, with the page number and the highlight note
    summary = next(e for e in summaries if "[1]" in e.text)
    b.driver.execute_script("arguments[0].scrollIntoView({block: 'center'}); arguments[0].click();", summary)
    b.wait_idle()
    b.wait_until(lambda t: "Page 2 of 2" in t, 120, "the cited page did not open")
    assert "highlighted" in b.body_text()
    img = b.wait_for_css("[data-testid='stExpander'] [data-testid='stImage'] img", 60)
    b.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", img)
    natural = b.driver.execute_script("return [arguments[0].complete, arguments[0].naturalWidth];", img)
    assert natural[0] and natural[1] > 500, natural  # a real, loaded page image
    b.screenshot(server.home / "cited_page.png")
    # page through the PDF from there
    b.click_button("◀ Previous")
    b.wait_until(lambda t: "Page 1 of 2" in t, 60, "paging back did not work")

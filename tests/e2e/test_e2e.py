"""End to end: `streamlit run` on 127.0.0.1 driven by headless Chromium (Debian's chromium + chromium-driver)."""
import pytest

from tests.e2e.browser import Browser, StreamlitServer

pytestmark = pytest.mark.slow  # left out by `bash .ci/run --fast`


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


def test_readme_tour(app):
    """The README's tour (tests/e2e/tour.py): sample → demo → own question → benchmark → validate → exam, asserting that
    the demo survives typing in the question box, an upload error is visible without a click, two experts label
    (one with keyboard shortcuts) and the adjudication view shows the item."""
    from tests.e2e.tour import walk

    server, b = app
    walk(server, b)


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
        for chip in ("SmolLM2-135M (tiny local model)", "No context", "Retrieved passages (RAG)"):
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
        shown = [e.text for e in b.driver.find_elements(By.CSS_SELECTOR, "[data-testid='stText'], [data-testid='stHtml']")]
        assert any(image in t for t in shown), shown
        time.sleep(3)  # give a rendered <img> time to load
        assert hits == [], f"the browser fetched {hits}"
        # control: the browser can reach the counting server, so 0 above means nothing was requested
        b.driver.get(f"http://127.0.0.1:{port}/control")
        assert hits == ["/control"]
    finally:
        leak.shutdown()
        leak.server_close()


def test_the_closed_toggle_follows_each_new_question_in_the_browser(app):
    """A browser keeps a keyed toggle's last value unless the page sets it: typing a yes/no question and pressing Run
    turns "Closed (yes/no) question" on (the answer is asked as closed, and the toggle says so), and an open question
    turns it off again. (AppTest does not keep widget values as a browser does, so only a browser shows this.)"""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    server, b = app
    b.open("ask")
    b.wait_text("Context modes", 120)

    def closed() -> bool | None:
        """The toggle's state; None while the page is redrawing it."""
        try:
            toggle = b.driver.find_elements(By.XPATH, "//*[@data-testid='stMain']//*[@data-testid='stCheckbox' or "
                                                      "@data-testid='stToggle'][.//*[contains(text(),'Closed (yes/no)')]]")
            return toggle[0].find_element(By.CSS_SELECTOR, "input").is_selected() if toggle else None
        except StaleElementReferenceException:
            return None

    def ask(question: str) -> None:
        box = b.driver.find_element(By.XPATH, "//*[@data-testid='stMain']//label[normalize-space(.)='Question']"
                                              "/following::textarea[1]")
        box.click()
        box.send_keys(Keys.CONTROL, "a")
        box.send_keys(question)
        b.click_button("Run", exact=True)
        b.wait_idle()

    ask("Is wetland mitigation required at the site?")
    b.wait_until(lambda _: closed() is True, 60, "the toggle did not turn on for a yes/no question")
    ask("What mitigation is proposed for wetlands?")
    b.wait_until(lambda _: closed() is False, 60, "the toggle did not turn off for an open question")

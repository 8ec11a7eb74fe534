"""Reusable end-to-end harness: a real `streamlit run` on 127.0.0.1 and headless Chromium through Selenium."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parents[2]

# Every wait below is written in seconds on an idle machine and stretched by the machine's load at the moment the
# wait starts (a 2-core runner that also runs the test session, the server and Chromium is slower than the tour
# was written on): by 1.5 at rest, up to 4 under load. NEPAQA_E2E_SLOWDOWN sets the factor outright.
MIN_SLOWDOWN, MAX_SLOWDOWN = 1.5, 4.0


def slowdown() -> float:
    if os.environ.get("NEPAQA_E2E_SLOWDOWN"):
        return float(os.environ["NEPAQA_E2E_SLOWDOWN"])
    load = os.getloadavg()[0] / (os.cpu_count() or 1)
    return min(MAX_SLOWDOWN, max(MIN_SLOWDOWN, 1.0 + load))


def bound(seconds: float) -> float:
    """A wait of ``seconds`` (on an idle machine), stretched by the load now."""
    return seconds * slowdown()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class StreamlitServer:
    """`streamlit run streamlit_app.py` with its own NEPAQA_HOME, stopped on exit."""

    def __init__(self, home: Path | None = None, env: dict[str, str] | None = None, args: tuple[str, ...] = (),
                 port: int | None = None) -> None:
        self.home = home or Path(tempfile.mkdtemp(prefix="nepaqa_e2e_"))
        self.port = port or free_port()
        self.args = args  # more of streamlit's options, e.g. ("--secrets.files", path)
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, "NEPAQA_HOME": str(self.home), **(env or {})}
        self.log = self.home / "streamlit.log"
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> StreamlitServer:
        cmd = [sys.executable, "-m", "streamlit", "run", "streamlit_app.py", "--server.port", str(self.port),
               "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false",
               *self.args]
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=self.env, stdout=self.log.open("w"), stderr=subprocess.STDOUT)
        limit = bound(90)
        deadline = time.time() + limit
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(self.url + "/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        return self
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError("streamlit exited:\n" + self.log.read_text()) from None
                time.sleep(0.5)
        raise RuntimeError(f"streamlit did not start in {limit:.0f} s:\n" + self.log.read_text())

    def __exit__(self, *exc) -> None:  # noqa: ANN002
        if self.proc:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def chromium() -> tuple[str, str] | None:
    chrome = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    return (chrome, driver) if chrome and driver else None


class Browser:
    """Headless Chromium with helpers for Streamlit's DOM."""

    def __init__(self, base_url: str) -> None:
        found = chromium()
        if found is None:
            raise RuntimeError("Chromium and chromedriver are needed: apt-get install chromium chromium-driver")
        chrome, driver = found
        opts = webdriver.ChromeOptions()
        opts.binary_location = chrome
        for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
                     "--no-first-run", "--disable-background-networking", "--disable-component-update",
                     "--disable-sync", "--window-size=1400,1000", f"--user-data-dir={tempfile.mkdtemp()}"):
            opts.add_argument(flag)
        self.driver = webdriver.Chrome(service=Service(driver), options=opts)
        self.base = base_url

    def open(self, path: str = "") -> Browser:
        self.driver.get(f"{self.base}/{path}")
        self.wait_for_css("[data-testid='stApp']", 60)
        self.wait_idle()
        return self

    def wait_for_css(self, css: str, timeout: float = 30) -> WebElement:
        return WebDriverWait(self.driver, bound(timeout)).until(EC.presence_of_element_located((By.CSS_SELECTOR, css)))

    def wait_idle(self, timeout: float = 120) -> None:
        """Wait until Streamlit's script is not running (no 'Running...' status widget)."""
        time.sleep(0.5)
        WebDriverWait(self.driver, bound(timeout)).until(
            lambda d: not d.find_elements(By.CSS_SELECTOR, "[data-testid='stStatusWidget'] [data-testid='stStatusWidgetRunningIcon']")
            and not d.find_elements(By.XPATH, "//*[contains(text(),'Running...')]")
        )

    def wait_until(self, condition, timeout: float = 120, message: str = "") -> None:  # noqa: ANN001
        """Wait until condition(body_text) is true."""
        WebDriverWait(self.driver, bound(timeout)).until(lambda d: condition(d.find_element(By.TAG_NAME, "body").text),
                                                         message)

    def wait_text(self, text: str, timeout: float = 120) -> None:
        WebDriverWait(self.driver, bound(timeout)).until(lambda d: text in d.find_element(By.TAG_NAME, "body").text)

    def body_text(self) -> str:
        return self.driver.find_element(By.TAG_NAME, "body").text

    def click_button(self, label: str, timeout: float = 30, exact: bool = False) -> None:
        """Click the first button whose text contains ``label`` (or, ``exact``, is ``label``; tabs are left out)."""
        if exact:
            xp = f"//button[not(@role='tab')][normalize-space(.) = {label!r}]"
        else:
            xp = f"//button[.//*[contains(normalize-space(.), {label!r})] or contains(normalize-space(.), {label!r})]"
        from selenium.common.exceptions import StaleElementReferenceException

        for attempt in range(5):  # the page may rerun between finding the button and clicking it
            try:
                btn = WebDriverWait(self.driver, bound(timeout)).until(EC.element_to_be_clickable((By.XPATH, xp)))
                self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", btn)
                btn.click()
                return
            except StaleElementReferenceException:
                if attempt == 4:
                    raise
                time.sleep(0.5)

    def click_tab(self, label: str) -> None:
        xp = f"//*[@role='tab'][contains(normalize-space(.), {label!r})]"
        WebDriverWait(self.driver, bound(30)).until(EC.element_to_be_clickable((By.XPATH, xp))).click()

    def upload(self, path: Path) -> None:
        inp = self.wait_for_css("input[type='file']")
        inp.send_keys(str(path))

    def screenshot(self, path: Path) -> None:
        self.driver.save_screenshot(str(path))

    def keys(self, *keys: str) -> None:
        """Press keys with nothing focused (a click on the page's title first), as a keyboard user would."""
        from selenium.webdriver.common.action_chains import ActionChains

        self.driver.execute_script("document.activeElement && document.activeElement.blur();")
        for k in keys:
            ActionChains(self.driver).send_keys(k).perform()
            self.wait_idle()

    def close(self) -> None:
        self.driver.quit()

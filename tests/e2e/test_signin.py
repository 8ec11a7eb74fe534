"""Sign-in end to end (issue 45): a real OpenID Connect provider (oidc-provider-mock) on loopback, the app started
with docs/accounts.md's loopback block, and headless Chromium signing in as people with different roles. Nothing
here stubs st.user: the browser goes to the provider, picks an account, and comes back with Streamlit's signed
cookie."""
from __future__ import annotations

import json
import re
import time
from datetime import timedelta
from pathlib import Path

import pytest
from oidc_provider_mock import User, run_server_in_thread
from selenium.webdriver.common.by import By

from tests.e2e.browser import ROOT, Browser, StreamlitServer, free_port

pytestmark = pytest.mark.slow  # left out by `bash .ci/run --fast`

PEOPLE = [User(sub="ada", claims={"email": "ada@epa.gov", "name": "Ada", "groups": ["nepa-experts"]}),
          User(sub="root", claims={"email": "root@epa.gov", "name": "Root"}),
          User(sub="newbie", claims={"email": "new@epa.gov", "name": "New"})]
ROLES = "root@epa.gov=admin, group:nepa-experts=expert"


def docs_block() -> str:
    """The loopback provider's block in docs/accounts.md: what the tests run is what the docs say."""
    page = (ROOT / "docs" / "accounts.md").read_text()
    section = page.split("### Loopback provider (the tests')", 1)[1]
    return section.split("```toml\n", 1)[1].split("```", 1)[0]


def secrets_for(tmp: Path, app_port: int, provider_port: int) -> Path:
    block = docs_block()
    assert "127.0.0.1:8501" in block and "localhost:9400" in block
    path = tmp / "secrets.toml"
    path.write_text(block.replace("127.0.0.1:8501", f"127.0.0.1:{app_port}")
                    .replace("localhost:9400", f"localhost:{provider_port}"))
    return path


def signed_in_app(tmp: Path, provider_port: int) -> StreamlitServer:
    port = free_port()
    (tmp / "home").mkdir(exist_ok=True)
    return StreamlitServer(home=tmp / "home", port=port, env={"NEPAQA_ROLES": ROLES},
                           args=("--secrets.files", str(secrets_for(tmp, port, provider_port))))


def sign_in(b: Browser, who: str) -> None:
    """From the app's sign-in page: Log in, then the provider's page, then the account ``who``."""
    b.open()
    b.wait_text("Sign in to use NEPA QA Studio", 60)
    b.click_button("Log in")
    b.wait_for_css(f"button[name=sub][value={who}]", 30).click()
    b.wait_for_css("[data-testid='stApp']", 60)
    b.wait_idle()


def grid_text(b: Browser) -> str:
    """The page's text with the tables' cells (a data grid draws on a canvas; its cells are in an accessible table
    that is not shown, so not in the body's visible text)."""
    return b.driver.execute_script("return document.body.textContent")


def wait_grid_text(b: Browser, text: str, timeout: float = 60) -> None:
    b.wait_until(lambda _: text in grid_text(b), timeout, f"{text!r} in the page's tables")


def nav_labels(b: Browser) -> list[str]:
    return [a.text.splitlines()[-1] for a in b.driver.find_elements(By.CSS_SELECTOR, "[data-testid='stSidebarNav'] a")
            if a.text.strip()]


@pytest.fixture(scope="module")
def provider():
    with run_server_in_thread(port=free_port(), user_claims=PEOPLE) as server:
        yield server.server_port


def test_two_people_sign_in_with_their_roles_and_an_admin_gives_one(provider, tmp_path):
    with signed_in_app(tmp_path, provider) as server:
        ada, root, new, forger = (Browser(server.url) for _ in range(4))
        try:
            # an expert (by the provider's group): uploads, but no Accounts page
            sign_in(ada, "ada")
            ada.wait_text("Signed in as ada@epa.gov (expert)", 60)
            assert "Accounts" not in nav_labels(ada)
            ada.open("documents")
            ada.wait_text("Upload EIS PDFs", 300)  # once the embedder has loaded (a first start)
            # a person with no role yet: one page, naming the admin to ask
            sign_in(new, "newbie")
            new.wait_text("has no role here yet", 60)
            assert "root@epa.gov" in new.body_text() and "Documents" not in nav_labels(new)
            # the admin: the Accounts page; gives the newcomer the viewer role
            sign_in(root, "root")
            root.wait_text("Signed in as root@epa.gov (admin)", 60)
            assert "Accounts" in nav_labels(root)
            root.open("accounts")
            wait_grid_text(root, "group:nepa-experts")
            box = root.wait_for_css("input[aria-label='E-mail or group:<name>']", 30)
            box.send_keys("new@epa.gov")
            root.click_button("Give this role")
            root.wait_text("new@epa.gov is now viewer", 60)
            # the change applies on the newcomer's next action: here, opening the app again
            new.open("documents")
            new.wait_text("Signed in as new@epa.gov (viewer)", 60)
            new.wait_text("Try retrieval", 120)
            new.click_tab("Add documents")  # a viewer reads; adding documents is an analyst's
            new.wait_text("Adding documents needs the analyst role", 60)
            assert not new.driver.find_elements(By.CSS_SELECTOR, "input[type='file']")
            # the audit record shows the role change, by whom
            root.open("accounts")
            root.click_tab("Audit record")
            wait_grid_text(root, "no role → viewer")
            assert "manage roles" in grid_text(root) and "root@epa.gov" in grid_text(root)
            # a forged session: a cookie not signed with the app's secret is not a sign-in
            forger.open()
            forger.wait_text("Sign in to use NEPA QA Studio", 60)
            forged = json.dumps({"email": "root@epa.gov", "is_logged_in": True, "provider": "default",
                                 "exp": int(time.time()) + 3600})
            forger.driver.add_cookie({"name": "_streamlit_user", "value": forged, "path": "/"})
            forger.open("accounts")
            forger.wait_text("Sign in to use NEPA QA Studio", 60)
            assert "Signed in as" not in forger.body_text() and "Audit record" not in forger.body_text()
        finally:
            for b in (ada, root, new, forger):
                b.close()


def test_an_expired_sign_in_is_refused(tmp_path):
    lifetime = 25  # seconds an ID token lives at this provider
    short = run_server_in_thread(port=free_port(), user_claims=PEOPLE, access_token_max_age=timedelta(seconds=lifetime))
    with short as prov, signed_in_app(tmp_path, prov.server_port) as server:
        b = Browser(server.url)
        try:
            sign_in(b, "ada")
            b.wait_text("Signed in as ada@epa.gov (expert)", 60)
            signed = time.monotonic()  # the token was issued before this
            time.sleep(max(0.0, lifetime + 2 - (time.monotonic() - signed)))
            b.open("documents")
            b.wait_text("Your sign-in has expired", 60)
            assert "Signed in as" not in b.body_text() and "Indexed documents" not in b.body_text()
        finally:
            b.close()


def test_a_provider_that_is_down_gives_a_clear_sign_in_error(tmp_path):
    closed = free_port()  # nothing listens here
    with signed_in_app(tmp_path, closed) as server:
        b = Browser(server.url)
        try:
            b.open("accounts")  # the server's first request, straight to a page: it too meets the gate
            b.wait_text("is not working", 30)
            text = b.body_text()
            assert re.search(rf"sign-in service \(localhost:{closed}\) is not working: it cannot be reached", text)
            assert "Traceback" not in text and "Log in" not in text
        finally:
            b.close()


def test_a_server_open_to_the_network_without_sign_in_serves_only_a_message(tmp_path):
    """Started some other way than `bash .ci/start` (which refuses; tests/test_start_refuses.py), on every interface
    and with no [auth]: every address shows how to configure sign-in, and nothing else."""
    (tmp_path / "home").mkdir()
    with StreamlitServer(home=tmp_path / "home", args=("--server.address", "0.0.0.0")) as server:
        b = Browser(server.url)
        try:
            b.open("documents")
            b.wait_text("without sign-in", 60)
            text = b.body_text()
            assert "It serves nothing until sign-in is configured" in text and "NEPAQA_ALLOW_ANONYMOUS=1" in text
            assert "Upload EIS PDFs" not in text and "Indexed documents" not in text and "Documents" not in nav_labels(b)
        finally:
            b.close()

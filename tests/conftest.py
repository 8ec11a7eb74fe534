"""Shared fixtures: a private NEPAQA_HOME per session, PDFs good and bad, the sample EIS indexed once."""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pymupdf
import pytest

ROOT = Path(__file__).resolve().parent.parent
# pytest imports this file as "conftest"; a test's `from tests.conftest import ROOT` imports it a second time, as
# "tests.conftest". The session's set-up below runs once: run again mid-session it would clear the settings a
# fixture had just set and move the session's home.
_AGAIN = any(getattr(m, "__file__", None) == __file__ for n, m in list(sys.modules.items()) if n != __name__)
if not _AGAIN:
    sys.path.insert(0, str(ROOT))
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ.setdefault("NEPAQA_SECRETS", str(ROOT / "tests" / "no-secrets.toml"))
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_COMPAT_BASE_URL", "NEPAQA_CHROMA_URL",
                "NEPAQA_DATABASE_URL", "NEPAQA_GGUF_PATH"):
        os.environ.pop(var, None)

    # Everything the tests store goes under a private home (set before lib is imported).
    os.environ["NEPAQA_HOME"] = tempfile.mkdtemp(prefix="nepaqa_test_home_")
    # The embedder's ONNX export is made once per test session and shared by every home and subprocess in it.
    os.environ["NEPAQA_MODEL_CACHE"] = tempfile.mkdtemp(prefix="nepaqa_test_models_")

SAMPLE_PDF = ROOT / "data" / "eis" / "eis_Continental_United_States_Interceptor_Site.pdf"


@pytest.fixture(autouse=True)
def _nobody_signed_in():
    """Each test starts as the single local user with sign-in off (an AppTest of the app with sign-in turns it on
    for its process; lib/core/access.py)."""
    from lib.core import access
    access.require_sign_in(False)
    access.set_actor(None)
    access.set_resolver(None)
    yield
    access.require_sign_in(False)
    access.set_actor(None)
    access.set_resolver(None)


@pytest.fixture(scope="session")
def session_home() -> Path:
    return Path(os.environ["NEPAQA_HOME"])


@pytest.fixture(scope="session")
def services(session_home: Path):
    from lib.app.services import get_services

    return get_services()


@pytest.fixture(scope="session")
def sample_doc(services):
    """The sample EIS, indexed once for the whole session."""
    return services.docs.ingest_file(str(SAMPLE_PDF))


@pytest.fixture
def pg_url():
    """A fresh PostgreSQL database for this test, on the server `bash .ci/run` starts on 127.0.0.1."""
    import os
    import uuid

    from sqlalchemy import create_engine, text

    from lib.storage import engine as engine_mod

    admin = os.environ.get("NEPAQA_TEST_PG_URL")
    assert admin, "set NEPAQA_TEST_PG_URL to a PostgreSQL admin URL (bash .ci/run starts one and sets it)"
    name = f"nepaqa_test_{uuid.uuid4().hex[:8]}"
    eng = create_engine(admin, isolation_level="AUTOCOMMIT")
    with eng.connect() as c:
        c.execute(text(f'CREATE DATABASE "{name}"'))
    url = admin.rsplit("/", 1)[0] + "/" + name
    yield url
    engine_mod.forget(url)
    with eng.connect() as c:
        c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    eng.dispose()


def make_text_pdf(path: Path, pages: list[str]) -> Path:
    doc = pymupdf.open()
    for text in pages:
        page = doc.new_page()
        if text:
            page.insert_textbox(pymupdf.Rect(50, 50, 550, 800), text, fontsize=10)
    doc.save(path)
    doc.close()
    return path


@pytest.fixture
def pdf_factory(tmp_path: Path):
    def make(name: str, pages: list[str]) -> Path:
        return make_text_pdf(tmp_path / name, pages)

    return make


@pytest.fixture
def bad_files(tmp_path: Path) -> dict[str, Path]:
    """One file per kind of bad input the product must explain."""
    out: dict[str, Path] = {}
    good = make_text_pdf(tmp_path / "good.pdf", ["Hello world. " * 50, "Second page text. " * 40])
    data = good.read_bytes()
    out["corrupt"] = tmp_path / "corrupt.pdf"
    out["corrupt"].write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 40)
    enc = pymupdf.open(good)
    out["encrypted"] = tmp_path / "encrypted.pdf"
    enc.save(out["encrypted"], encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="owner", user_pw="secret")
    enc.close()
    scanned = pymupdf.open()
    for _ in range(3):
        page = scanned.new_page()
        pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 60, 60), False)
        pix.clear_with(200)
        page.insert_image(pymupdf.Rect(50, 50, 300, 300), pixmap=pix)
    out["scanned"] = tmp_path / "scanned.pdf"
    scanned.save(out["scanned"])
    scanned.close()
    out["zero_pages"] = tmp_path / "zero.pdf"
    out["zero_pages"].write_bytes(
        b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
        b"2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n"
    )
    out["empty"] = tmp_path / "empty.pdf"
    out["empty"].write_bytes(b"")
    out["not_pdf"] = tmp_path / "report.pdf"
    out["not_pdf"].write_bytes(b"PK\x03\x04" + b"\x00" * 200)
    out["good"] = good
    assert data.startswith(b"%PDF")
    return out


def gated_page(page: str) -> None:
    """An AppTest script: the app's sign-in gate, then one page (AppTest's switch_page runs a page without the
    app's main script). Self-contained, as AppTest.from_function needs: it runs only this body."""
    import runpy

    from pages._gate import draw, enter
    _, closed = enter()
    if closed is not None:
        draw(closed)
    else:
        runpy.run_path(page, run_name="__main__")


def settle(at, timeout: float = 600.0):
    """Wait until no job is running (jobs run on threads of this process under AppTest), then rerun the page."""
    import time

    from lib.storage import jobs

    deadline = time.monotonic() + timeout
    while any(j.active for j in jobs.list_jobs(50)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return at.run()


@pytest.fixture(scope="session")
def chromium_paths() -> tuple[str, str] | None:
    chrome = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    return (chrome, driver) if chrome and driver else None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Expose each phase's report on the test item (used by the e2e failure dump)."""
    outcome = yield
    rep = outcome.get_result()
    setattr(item, f"rep_{rep.when}", rep)


# ----- lanes ------------------------------------------------------------------------------------------------------
# `bash .ci/run` runs every test; `bash .ci/run --fast` leaves out those marked slow. The tests that start real
# model servers have a stated budget within the run, and the run fails when they take longer.
REAL_SERVER_BUDGET_S = 300.0
_real_server_s = [0.0]


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: takes long (a real server, a browser, a long PDF); left out by "
                                       "`bash .ci/run --fast`")
    config.addinivalue_line("markers", f"real_server: starts a real model server; all of them together have "
                                       f"{REAL_SERVER_BUDGET_S:.0f} s")


def pytest_runtest_logreport(report):
    if "real_server" in report.keywords:
        _real_server_s[0] += report.duration  # setup (the server's start) and teardown included


def pytest_terminal_summary(terminalreporter):
    servers = sys.modules.get("tests.model_servers")  # imported by the real-server tests, where they ran
    for table in getattr(servers, "TABLES", []):
        terminalreporter.write_line(table)
    if _real_server_s[0]:
        over = _real_server_s[0] > REAL_SERVER_BUDGET_S
        terminalreporter.write_line(f"real-server tests: {_real_server_s[0]:.0f} s of their "
                                    f"{REAL_SERVER_BUDGET_S:.0f} s budget" + (": over budget, so the run fails" if over else ""),
                                    red=over)


def pytest_sessionfinish(session):
    if _real_server_s[0] > REAL_SERVER_BUDGET_S and session.exitstatus == 0:
        session.exitstatus = 1  # over budget: a failed run, said in the summary above


def metadata_panel(at):
    """The Documents page's metadata table (AppTest) indexed by each field's name in the CEQ standard, which the page
    lists in its own table under an expander."""
    shown, names = at.dataframe[1].value, at.dataframe[2].value.set_index("field")["name in the standard"]
    return shown.assign(name=shown["field"].map(names)).set_index("name")

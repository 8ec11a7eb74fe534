"""The documentation site covers what the code offers: every command of `python -m lib` is in the CLI page, every
setting the code reads is in the site, every page of the site is in its navigation, and the README stays a README
(its tour, its two commands, links into the site). `.ci/run` builds the site with `mkdocs build --strict`."""
from __future__ import annotations

import ast
import re

import yaml

from tests.conftest import ROOT

DOCS = ROOT / "docs"


def site_text() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(DOCS.glob("*.md")))


def commands() -> list[str]:
    from lib.app.cli.entry import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")  # argparse keeps its subcommands here
    return sorted(sub.choices)


SETTING = re.compile(r"(?:NEPAQA|OPENAI|ANTHROPIC)_[A-Z0-9_]+")
APP = ("lib", "pages", "streamlit_app.py", "bench")


def _python_files(parts):
    for part in parts:
        path = ROOT / part
        yield from ([path] if path.is_file() else sorted(path.rglob("*.py")))


def _environment_reads(tree: ast.AST) -> set[str]:
    """Names read from, or defaulted in, the environment: os.environ.get("X"), os.environ["X"], os.getenv("X"),
    os.environ.setdefault("X", …)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            f = ast.unparse(node.func)
            if f in ("os.getenv", "os.environ.get", "os.environ.setdefault", "environ.get", "environ.setdefault"):
                names.add(node.args[0].value)
        if isinstance(node, ast.Subscript) and ast.unparse(node.value) in ("os.environ", "environ") \
                and isinstance(node.slice, ast.Constant):
            names.add(node.slice.value)
    return names


def settings_read() -> set[str]:
    """Every setting name the code reads: the defaults' keys; in the app and the benches, every string that is a
    setting's whole name (given to config.get or os.environ, or kept in a model's ``needs`` or a table of settings)
    and every environment variable read or defaulted for a dependency; in the tests, the environment variables
    they read (a test's made-up setting in a fixture is not one)."""
    from lib.core import config

    names = set(config.DEFAULTS)
    for path in _python_files(APP):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names |= _environment_reads(tree)
        names |= {n.value for n in ast.walk(tree)
                  if isinstance(n, ast.Constant) and isinstance(n.value, str) and SETTING.fullmatch(n.value)}
    for path in _python_files(["tests"]):
        names |= _environment_reads(ast.parse(path.read_text(encoding="utf-8")))
    return names


def test_every_command_is_documented_on_the_cli_page():
    page = (DOCS / "cli.md").read_text(encoding="utf-8")
    # whole names: "python -m lib metadata-eval" does not document "meta"
    missing = [c for c in commands() if not re.search(rf"python -m lib {re.escape(c)}(?![\w-])", page)]
    assert len(commands()) >= 20 and not missing, f"commands not on docs/cli.md: {missing}"


def test_every_setting_the_code_reads_is_on_the_settings_page():
    page = (DOCS / "settings.md").read_text(encoding="utf-8")
    names = settings_read()
    missing = sorted(n for n in names if not re.search(rf"\b{re.escape(n)}\b", page))
    assert {"NEPAQA_HOME", "OPENAI_API_KEY", "NEPAQA_WORKERS", "NEPAQA_TEST_PG_URL", "HF_HUB_OFFLINE"} <= names
    assert not missing, f"settings the code reads that docs/settings.md does not name: {missing}"


def test_every_page_is_in_the_navigation_and_every_picture_is_shown():
    conf = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    in_nav = {next(iter(entry.values())) for entry in conf["nav"]}
    assert in_nav == {p.name for p in DOCS.glob("*.md")}
    text = site_text()
    assert all(f"]({png.name})" in text for png in DOCS.glob("*.png")), "a tour picture no page shows"


def test_the_readme_is_short_and_links_into_the_site():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 150
    assert "bash .ci/start" in readme and "bash .ci/run" in readme
    linked = set(re.findall(r"\]\(docs/([\w-]+\.md)\)", readme))
    assert linked == {p.name for p in DOCS.glob("*.md")} - {"index.md"}



def _literals(paths) -> set[str]:
    return {node.value for path in paths for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)}


def tour_faults(readme=None) -> list[str]:
    """What is wrong with the README's tour: a step on a page that does not exist, a label to click that is no text
    of that page's code (a one-word label whole: "Run" is not "Run the exam"), Home's Start here listing other
    pages or another order."""
    from tests.e2e import readme_tour

    steps = readme_tour.steps(readme or readme_tour.README)
    faults = []
    for s in steps:
        files = [ROOT / "pages" / f"{s.url}.py", *(ROOT / "pages").glob(f"_{s.url}_*.py")]
        if not files[0].exists():
            faults.append(f"step {s.number}: no page {files[0].name}")
            continue
        texts = _literals(files)
        for label in s.clicks:
            if not (label in texts if " " not in label else any(label in t for t in texts)):
                faults.append(f"step {s.number} ({s.page}): the README says to click {label!r}; the page has none")
    home = (ROOT / "pages" / "home.py").read_text(encoding="utf-8")
    if re.findall(r'\("pages/(\w+)\.py", "[^"]*", "\d+ · ', home) != [s.url for s in steps]:
        faults.append("Home's Start here lists other pages, or another order, than the README's tour")
    return faults


def test_the_readme_tour_names_pages_and_buttons_the_app_has():
    """The tour's bold paths ("**Benchmark → Load the sample set (20 items) → 2 · Run → Run.**") are what the browser
    tour opens and clicks (tests/e2e/tour.py); here they are held to the pages' code in the fast lane."""
    from tests.e2e import readme_tour

    steps = readme_tour.steps()
    assert [(s.page, s.clicks) for s in steps] == [
        ("Documents", ("Load sample EIS",)), ("Ask", ("One-click demo",)), ("Search", ()),
        ("Benchmark", ("Load the sample set (20 items)", "2 · Run", "Run")), ("Validate", ()),
        ("Arena", ("Start the arena",)), ("EnviroExam", ())]
    assert tour_faults() == []


def test_a_readme_tour_with_a_missing_button_or_page_is_caught(tmp_path):
    from tests.e2e import readme_tour

    bad = tmp_path / "README.md"
    bad.write_text("# x\n\n## A five-minute tour\n\n1. **Documents → Load sample EIS.** one\n"
                   "3. **Ask → Ask me anything.** two\n\n## Next\n", encoding="utf-8")
    try:
        readme_tour.steps(bad)
    except ValueError as e:
        assert "1..n" in str(e)
    else:
        raise AssertionError("a tour numbered 1, 3 was accepted")
    bad.write_text("# x\n\n## A five-minute tour\n\n1. **Documents → Load sample EIS.** one\n"
                   "2. **Ask → Ask me anything.** two\n3. **Benchmark → Run the benchmark.**\n4. **Maps.**\n",
                   encoding="utf-8")
    assert tour_faults(bad) == [
        "step 2 (Ask): the README says to click 'Ask me anything'; the page has none",
        "step 3 (Benchmark): the README says to click 'Run the benchmark'; the page has none",
        "step 4: no page maps.py",
        "Home's Start here lists other pages, or another order, than the README's tour"]

"""The README's tour as data: each numbered step of "A five-minute tour" opens with its path in bold, the page and
then what to click on it ("**Benchmark → Load the sample set (20 items) → 2 · Run → Run.**"). The browser tour
(`tests/e2e/tour.py`) opens those pages and clicks those labels, so a README that names a button the app does not
have fails the end-to-end test, and `tests/test_docs.py` checks the same labels against the pages' code in the fast
lane. No selenium here: the fast lane imports it."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
SECTION = "## A five-minute tour"
STEP = re.compile(r"^(\d+)\. \*\*(.+?)\*\*", re.M)


@dataclass(frozen=True)
class Step:
    number: int
    page: str  # as the navigation names it: "Documents"
    clicks: tuple[str, ...]  # buttons and tabs, in order: ("Load sample EIS",)

    @property
    def url(self) -> str:
        """The page's address under the app's root (Streamlit names it after the file: pages/documents.py)."""
        return self.page.lower()


def steps(readme: Path = README) -> list[Step]:
    """The tour's steps, in the README's order. Raises ValueError when the section or a step's path is missing."""
    text = readme.read_text(encoding="utf-8")
    if SECTION not in text:
        raise ValueError(f"{readme.name} has no '{SECTION}' section")
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    found = []
    for number, path in STEP.findall(section):
        page, *clicks = [part.strip() for part in path.rstrip(".").split("→")]
        found.append(Step(int(number), page, tuple(clicks)))
    if [s.number for s in found] != list(range(1, len(found) + 1)) or not found:
        raise ValueError(f"the tour's steps are not numbered 1..n: {[s.number for s in found]}")
    return found


def step(page: str, readme: Path = README) -> Step:
    """The tour's step on ``page`` (KeyError when the README's tour does not visit it)."""
    for s in steps(readme):
        if s.page == page:
            return s
    raise KeyError(f"the README's tour has no step on {page}")

"""How wide a text is drawn in the app's body font (Source Sans, weight 400), so that a table's columns can be
sized to their text: Streamlit's tables draw on a canvas and cut what a column cannot hold ("Lead agenc").

The widths are Source Sans's own advance widths (source_sans_widths.json, written by .ci/subset_fonts.py from the font
file Streamlit serves; tests/test_fonts.py checks they match it). A character Source Sans does not draw (Chinese, an
icon) is counted a full em, as the fallback fonts draw it. Kerning is left out: it narrows a text by about 1%.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

WIDTHS = Path(__file__).with_name("source_sans_widths.json")


@lru_cache(maxsize=1)
def _widths() -> dict[int, int]:
    return {int(cp): w for cp, w in json.loads(WIDTHS.read_text(encoding="utf-8")).items()}


def text_width(text: str, px: float = 14.0) -> float:
    """The width, in CSS pixels, of ``text`` set on one line in Source Sans at ``px`` (tables use 14 px)."""
    widths = _widths()
    return sum(widths.get(ord(c), 1000) for c in text) * px / 1000


PADDING = 2 * 8 + 2  # the grid's cell padding on both sides, and a pixel of slack each side
WIDEST = 700  # px: a column is never made wider; longer text (a whole answer) is read where its row is opened


PAGE = 880  # px: the main column's width at a 1400 px window with the sidebar open (930; 896 in a tab), less a margin
LONG_NARROWEST = 220  # px: a long-text column shares what is left, but never gets narrower than this
WRAP_ROW = 66  # px: rows taller than 4 rem wrap their text (Streamlit's grid): three lines of a long text


def fit_long(widths: dict[str, int], long: list[str], page: int = PAGE) -> dict[str, int]:
    """Widths where the ``long`` columns (an answer, a question, a passage) share what the other columns leave of
    ``page``, so the table fits it instead of scrolling sideways with columns out of view. A long column keeps its
    own width where that is less; what it cannot show is read where its row is opened."""
    out, squeezed = dict(widths), [n for n in long if n in widths]
    while squeezed:  # a long column narrower than its share keeps its width and leaves the rest to the others
        share = max(LONG_NARROWEST, (page - sum(px for n, px in out.items() if n not in squeezed)) // len(squeezed))
        fits = [n for n in squeezed if widths[n] <= share]
        if not fits:
            return out | {n: share for n in squeezed}
        squeezed = [n for n in squeezed if n not in fits]
    return out


def _shown(value: object) -> str:
    """A cell as the grid shows it, near enough for its width: empty for a missing value (None, NaN, pandas' NA)."""
    try:
        missing = value is None or bool(value != value)  # NaN is not equal to itself
    except (TypeError, ValueError):  # pandas' NA has no truth value; an array compares element by element
        missing = value is not value or type(value).__name__ == "NAType"
    return "" if missing else str(value)


def column_widths(columns: dict[str, list[object]], titles: dict[str, str] | None = None, widest: int = WIDEST,
                  narrowest: int = 50) -> dict[str, int]:
    """Each column's width, in px, that shows its title and every cell whole (up to ``widest``): the column's values
    as shown (None as empty), titled by ``titles`` where a column is shown under another name."""
    out = {}
    longest = int(widest / 2.5) + 1  # no character is narrower than 2.5 px at 14 px: longer text is as wide
    for name, values in columns.items():
        title = (titles or {}).get(name, name)
        texts = [_shown(v)[:longest].replace("\n", " ") for v in values]
        need = max([text_width(title), *map(text_width, texts)]) + PADDING
        out[name] = int(min(max(need, narrowest), widest) + 0.999)
    return out

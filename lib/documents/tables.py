"""Tables kept as tables: found by PyMuPDF's table finder, read cell by cell, and indexed as passages of Markdown
rows, each passage repeating the table's caption and header row.

The finder looks only at pages that may show a table: a caption line ("Table ES-2 CIS Mission Support Facilities
Summary"), ruled lines, or the page after a table's (which may continue it). Each cell's text is the page's words inside the cell (the text layer's spacing, not
the finder's own, which glues words on many PDFs). A table that starts at the top of a page, under no caption of
its own, with the previous page's table's columns, continues it (the header row the page repeats is dropped).
A table the finder cannot read is left out: its text stays in the page's prose, indexed as before.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lib.core.text import PASSAGE_GAP, tokenize
from lib.documents import mupdf_cache

# A caption line: "Table ES-5 Comparative Summary …", "Table 3.2-1. Noise Levels" (as chunking's _CAPTION)
CAPTION = re.compile(r"^\s*(Table\s+(?:[A-Z]{1,3}[-.]?)?\d+(?:[.-]\d+)*[a-z]?)[.:]?\s+(\(continued\)|[A-Z(].{2,160}?)\s*$")
RULED = 6  # drawn lines and rectangles from which a page may hold a ruled table (a 2 × 2 grid has 6)
MIN_ROWS, MIN_COLS = 2, 2  # data rows and columns: fewer is a box or a layout grid, not a table
# PyMuPDF 2's finder first runs a layout model (ONNX) on the page; on the sample EIS's 25 table pages it found the
# same tables with the ruled-line finder alone (use_layout=False), in a fifth of the time (2.8 s against 13.9 s).
LINES_ONLY = True
TOP_SHARE = 0.25  # a table starting in the top quarter of a page, under no caption, may continue the last one
# A table most of whose rows do not fit a passage whole, under the caption and header that every passage repeats,
# is a table of paragraphs ("Comparative Summary of Impacts", a paragraph per site): cut into parts, its rows would
# no longer be read whole, and the parts, each repeating the caption and header, would crowd out other passages (bench/retrieval.py: on the sample EIS, Table
# ES-5's parts cost up to 6 questions a set). It stays prose: each cell's paragraph still reads whole there, but
# which row and column it belongs to is left to the paragraph's own words.
PARAGRAPH_ROWS = 0.5


@dataclass
class Table:
    caption: str  # "Table ES-2 CIS Mission Support Facilities Summary", or "" when no caption names it
    header: list[str]
    rows: list[list[str]] = field(default_factory=list)
    pages: list[int] = field(default_factory=list)  # each row's page (from 1)

    @property
    def page_start(self) -> int:
        return min(self.pages)

    @property
    def page_end(self) -> int:
        return max(self.pages)


def worth_looking(page: Any, text: str) -> bool:
    """Whether a page may hold a table: a caption line in its text, or enough ruled lines."""
    if any(CAPTION.match(line) for line in text.splitlines()):
        return True
    try:
        drawn = sum(1 for d in page.get_cdrawings() for item in d.get("items", ()) if item[0] in ("l", "re"))
    except Exception:  # noqa: BLE001 - a page whose drawings cannot be read holds no table we can find
        return False
    return drawn >= RULED


def _cell_text(rect: Any, words: Sequence[tuple]) -> str:
    """The words whose centre lies in the cell, in reading order, one space apart."""
    x0, y0, x1, y1 = rect
    inside = [w for w in words if x0 <= (w[0] + w[2]) / 2 <= x1 and y0 <= (w[1] + w[3]) / 2 <= y1]
    return " ".join(w[4] for w in inside)


def _caption_above(lines: Sequence[tuple[float, str]], top: float) -> str:
    """The nearest caption line above ``top`` (a table's first row), or "", written as chunking labels the
    table's prose ("Table 3.2-1 Noise Levels": the number's own full stop or colon dropped)."""
    above = [(y, m) for y, t in lines if y < top and (m := CAPTION.match(" ".join(t.split())))]
    if not above:
        return ""
    m = max(above, key=lambda a: a[0])[1]
    return f"{m.group(1)} {m.group(2)}"


def page_tables(page: Any, number: int) -> list[tuple[Table, float]]:
    """The tables the finder reads on one page, each with where it starts (its share of the page's height from
    the top). A page the finder fails on gives none."""
    try:
        found = page.find_tables(use_layout=not LINES_ONLY).tables
        words = page.get_text("words", sort=False)
        lines = [(float(ln["bbox"][1]), " ".join(sp["text"] for sp in ln["spans"]))
                 for b in page.get_text("dict", flags=0)["blocks"] for ln in b.get("lines", ())]
    except Exception:  # noqa: BLE001 - the finder's failure: the page's text stays prose
        return []
    height = float(page.rect.height) or 1.0
    out = []
    for t in found:
        try:
            rows = [[_cell_text(c, words) if c else "" for c in row.cells] for row in t.rows]
        except Exception:  # noqa: BLE001 - a table it cannot read stays prose
            continue
        rows = [r for r in rows if any(c.strip() for c in r)]
        if len(rows) < MIN_ROWS + 1 or max(len(r) for r in rows) < MIN_COLS:
            continue
        header, body = rows[0], rows[1:]
        caption = _caption_above(lines, float(t.bbox[1]))
        out.append((Table(caption, header, body, [number] * len(body)), float(t.bbox[1]) / height))
    return out


def find_tables(doc: Any, texts: Sequence[str]) -> list[Table]:
    """Every table of an open PDF (``texts``: each page's text, from page 1), a table that runs over pages as one."""
    tables: list[Table] = []
    last_page = 0
    for i, text in enumerate(texts):
        mupdf_cache.shrink_every(i)
        if not text:
            continue
        page = doc.load_page(i)
        if last_page != i and not worth_looking(page, text):  # a page after a table's page may continue it
            continue
        for table, top in page_tables(page, i + 1):
            prev = tables[-1] if tables else None
            if (prev is not None and not table.caption and top <= TOP_SHARE and last_page == i
                    and len(table.header) == len(prev.header)):
                same_header = [c.split() for c in table.header] == [c.split() for c in prev.header]
                prev.rows += table.rows if same_header else [table.header, *table.rows]
                prev.pages += table.pages if same_header else [i + 1] * (len(table.rows) + 1)
            else:
                tables.append(table)
            last_page = i + 1
    return tables


_RULE_LINE = re.compile(r"^\|(?: --- \|)+$", re.M)


def is_table_passage(text: str) -> bool:
    """Whether a chunk is one of a table's passages (its header row's rule line is in it)."""
    return bool(_RULE_LINE.search(text))


MIN_SHARED = 2  # query words a row must share to be "the row asked about" (one common word, "acres", is not)


@dataclass(frozen=True)
class PassageRows:
    """A table passage read back: its caption and header, and the rows a query asks about (``matched``), or, when
    no row shares enough of its words, all the table's rows (``matched`` False); with any prose joined to it in one
    source (a table passage and a prose chunk of the same pages), which is shown but not highlighted."""

    caption: str
    header: list[str]
    rows: list[list[str]]
    matched: bool
    around: str = ""

    @property
    def highlights(self) -> tuple[str, ...]:
        """What the page highlight marks: each row's cells, each row placed on its own (so every row asked about
        is marked, in its own band of the table, and nothing else is)."""
        rows = tuple(" ".join(c for c in row if c and c != "…") for row in self.rows)
        return tuple(r for r in rows if r)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip()[1:-1].split(" | ")]


def read_back(text: str) -> tuple[list[tuple[str, list[str], list[list[str]]]], str] | None:
    """A table passage's tables as (caption, header, rows), one per table (two passages of one table joined: one),
    and the prose around them; None for a passage that is not a table's."""
    return _read_back(text) if is_table_passage(text) else None


def _read_back(text: str) -> tuple[list[tuple[str, list[str], list[list[str]]]], str]:
    lines = text.splitlines()
    rules = {i for i, ln in enumerate(lines) if _RULE_LINE.fullmatch(ln)}
    heads = {i - 1 for i in rules if i and lines[i - 1].startswith("|")}
    captions = {i - 2 for i in rules if i - 1 in heads and i > 1 and not lines[i - 2].startswith("|")}
    blocks: dict[tuple[str, tuple[str, ...]], list[list[str]]] = {}
    current: list[list[str]] | None = None
    early: list[list[str]] = []  # rows before the first header (a chunk that starts inside a table)
    prose = []
    for i, ln in enumerate(lines):
        if i in rules:
            key = (lines[i - 2] if i - 2 in captions else "", tuple(_cells(lines[i - 1])) if i - 1 in heads else ())
            current = blocks.setdefault(key, [])
        elif ln.startswith("|") and i not in heads:
            (current if current is not None else early).append(_cells(ln))
        elif i not in heads and i not in captions and ln.strip() and ln.strip() != PASSAGE_GAP:
            prose.append(ln.strip())
    tables = [(caption, list(header), rows) for (caption, header), rows in blocks.items()]
    if early and tables:
        tables[0][2][:0] = early
    return tables, " ".join(prose)


def rows_asked(text: str, query: str) -> PassageRows | None:
    """A table passage's rows that share the most of the query's words (at least MIN_SHARED, or all of a shorter
    query's), in order, from the table that holds the best; when none shares enough, the first table's rows, not
    matched. None for a passage that is not a table's."""
    if not is_table_passage(text):
        return None
    found, around = _read_back(text)
    asked = set(tokenize(query))
    needed = min(MIN_SHARED, len(asked)) or 1
    scored = [(len(asked & set(tokenize(" ".join(r)))), t, r) for t, (_, _, rows) in enumerate(found) for r in rows]
    best = max((n for n, _, _ in scored), default=0)
    if best < needed:
        caption, header, rows = found[0]
        return PassageRows(caption, header, rows, False, around)
    table = next(t for n, t, _ in scored if n == best)
    caption, header, _ = found[table]
    return PassageRows(caption, header, [r for n, t, r in scored if t == table and n == best], True, around)


def passage_highlight(text: str, query: str) -> str | tuple[str, ...]:
    """What to highlight on the page for a passage found for ``query``: a table passage's rows asked about, each
    on its own; any other passage, or a table passage none of whose rows the query asks about, whole."""
    asked = rows_asked(text, query)
    return asked.highlights if asked is not None and asked.matched else text


def _md(cells: Sequence[str]) -> str:
    return "| " + " | ".join(" ".join(c.replace("|", "/").split()) for c in cells) + " |"


def _row_parts(cells: Sequence[str], fits: Callable[[str], bool]) -> list[str]:
    """A row as Markdown, or, where the whole row is longer than a passage may be, as several rows of the same
    columns, each with the row's first cell and some of its other cells, the rest shown as "…" (so every part still
    reads under the header). A cell longer than a passage on its own is cut at a word, ending in "…"."""
    whole = _md(cells)
    if fits(whole) or len(cells) < 2:
        return [whole]
    parts: list[str] = []
    shown: list[int] = []

    def part(cols: list[int]) -> str:
        return _md([c if i == 0 or i in cols else "…" for i, c in enumerate(cells)])

    for i in range(1, len(cells)):
        if shown and not fits(part([*shown, i])):
            parts.append(part(shown))
            shown = []
        shown.append(i)
        if not fits(part(shown)):  # this one cell alone is too long: cut it
            words = cells[i].split()
            while len(words) > 1 and not fits(_md([c if j == 0 else (" ".join(words) + " …" if j == i else "…")
                                                 for j, c in enumerate(cells)])):
                words = words[: len(words) * 9 // 10]
            parts.append(_md([c if j == 0 else (" ".join(words) + " …" if j == i else "…") for j, c in enumerate(cells)]))
            shown = []
    if shown:
        parts.append(part(shown))
    return parts


def passages(table: Table, count_tokens: Callable[[str], int], budget: int,
             max_tokens: int) -> list[tuple[str, int, int, int]]:
    """The table as passages of whole rows, each under ``budget`` tokens where a row allows and never over
    ``max_tokens``: the caption, the header row and its rule, then rows (a row too long for one passage is given
    as several, each with its first cell and some of its columns). (text, first page, last page, tokens). None
    (an empty list) for a table most of whose rows do not fit a passage whole, under the caption and header every
    passage repeats (a table of paragraphs): its prose reading is kept alone."""
    head = "\n".join(x for x in (table.caption, _md(table.header), _md(["---"] * len(table.header))) if x)
    head_n = count_tokens(head)
    out: list[tuple[str, int, int, int]] = []
    rows: list[str] = []
    pages: list[int] = []
    used = head_n  # the passage's tokens as its parts count them (a newline may merge two: checked at the end)

    def flush() -> None:
        if rows:
            text = head + "\n" + "\n".join(rows)
            out.append((text, min(pages), max(pages), count_tokens(text)))
            rows.clear()
            pages.clear()

    def fits(row: str) -> bool:
        return head_n + count_tokens(row) <= min(budget, max_tokens) or \
            (len(row) < 40 and head_n + count_tokens(row) <= max_tokens)

    if sum(not fits(_md(cells)) for cells in table.rows) > PARAGRAPH_ROWS * len(table.rows):
        return []  # most rows cannot be read whole in a passage (under the caption and header it repeats): prose
    for cells, page in zip(table.rows, table.pages, strict=True):
        for row in _row_parts(cells, fits):
            n = count_tokens(row)
            if rows and used + n > budget:
                flush()
                used = head_n
            rows.append(row)
            pages.append(page)
            used += n
    flush()
    return [(t, a, b, n) if n <= max_tokens else _cut(t, a, b, count_tokens, max_tokens) for t, a, b, n in out]


def _cut(text: str, start: int, end: int, count_tokens: Callable[[str], int],
         max_tokens: int) -> tuple[str, int, int, int]:
    """A passage whose caption and header alone overrun the embedder's window, cut at a word."""
    words = text.split(" ")
    while len(words) > 1 and count_tokens(" ".join(words)) > max_tokens:
        words = words[: len(words) * 9 // 10]
    cut = " ".join(words)
    return cut, start, end, count_tokens(cut)

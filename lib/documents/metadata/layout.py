"""Reading a cover by its layout: words a text layer broke in two are mended, and the title page is found by its
type (the largest text in the first pages, past image covers whose text layer only describes the picture).
Works on any PDF's first pages; nothing here is tuned to one cover."""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from lib.documents.metadata.fields import AGENCY_ABBR_RE, AGENCY_NAME_RE, FEDERAL_AGENCIES, STATES
from lib.documents.metadata.patterns import (
    LABEL_LINE,
    PHONE_OR_WEB,
    ZIP_LINE,
    classify,
    find_date,
    find_eis_number,
    type_only,
)

# Words of covers and title pages, so a broken "Environ mental" is mended even where the document never prints
# the word whole elsewhere. The document's own later pages add the rest of its vocabulary.
_COVER_WORDS = """
environmental impact statement statements assessment programmatic supplemental supplement draft final record decision
notice intent finding significant tiered tier volume volumes appendix appendices executive summary regional
department agency agencies administration service bureau office commission authority district division region
national federal united states interior agriculture transportation energy defense commerce homeland security army
navy force corps engineers management reclamation wildlife fish forest highway railroad aviation transit maritime
cooperating cooperation lead prepared project projects program programme proposed action alternatives alternative
network public safety pipeline terminal mine mining wind solar energy transmission line highway corridor
interstate airport harbor port expansion improvement improvements development facility facilities plan planning
resource resources land lands water river basin county counties state nationwide eastern western northern southern
central coastal infrastructure construction operation operations maintenance installation deployment
emergency communications telecommunications information management
"""


def _words(text: str) -> Iterable[str]:
    return (w.lower() for w in re.findall(r"[A-Za-z]+", text))


def vocabulary(texts: Iterable[str]) -> set[str]:
    """Lower-case words of the given texts, the cover words above, the agencies' and the states' names."""
    vocab = set(_words(_COVER_WORDS))
    for name in (*FEDERAL_AGENCIES, *STATES.values()):
        vocab.update(_words(name))
    for t in texts:
        vocab.update(w for w in _words(t) if len(w) >= 2)
    return vocab


_TOKEN = re.compile(r"[A-Za-z]+")


def mend_words(text: str, vocab: set[str]) -> str:
    """Words a text layer broke: "Environ-\\nmental" and "Environ mental" become "Environmental" where the joined
    word is known and at least one piece is not a word on its own. Everything else is left as it is."""
    def hyphen(m: re.Match[str]) -> str:
        a, b = m.group(1), m.group(2)
        return a + b if _joinable([a, b], vocab) else m.group(0)

    text = re.sub(r"([A-Za-z]+)-\n\s*([a-z]+)", hyphen, text)
    out_lines = []
    for line in text.split("\n"):
        parts = re.split(r"( )", line)  # words at even places, single spaces between them
        merged: list[str] = []
        i = 0
        while i < len(parts):
            for n in (3, 2):  # a word broken in three ("fire fight ers"), then in two
                pieces = parts[i:i + 2 * n - 1:2]
                if len(pieces) == n and all(parts[j] == " " for j in range(i + 1, i + 2 * n - 1, 2)) \
                        and all(_TOKEN.fullmatch(x) for x in pieces) and _joinable(pieces, vocab):
                    merged.append("".join(pieces))
                    i += 2 * n - 1
                    break
            else:
                merged.append(parts[i])
                i += 1
        out_lines.append("".join(_SUFFIX_BREAK.sub(_suffix_join, "".join(merged))))
    return "\n".join(out_lines)


# A word's ending left alone after a break ("Tow er", "fight ers"), where the whole word is nowhere else to be
# seen: an ending like these is not a word of its own, so it goes back on the word before it.
_SUFFIX_BREAK = re.compile(r"\b([A-Za-z]{2,})[ ](er|ers|ed|es|ing|ings|ment|ments|tion|tions|sion|sions|ly|ance|ence|"
                           r"ity|ies|ness|ure|ures|ous|ive|ary|ory)\b")
_SHORT_WORDS = frozenset(["a", "an", "as", "at", "be", "by", "do", "go", "he", "if", "in", "is", "it", "me", "my", "no", "of", "on", "or", "so", "to", "up", "us", "we", "the", "and", "for", "are", "was", "has", "had", "not", "but", "all", "any", "can", "may", "new", "our", "per", "via"])


def _suffix_join(m: re.Match[str]) -> str:
    a, b = m.group(1), m.group(2)
    return m.group(0) if a.lower() in _SHORT_WORDS else a + b


def _joinable(pieces: list[str], vocab: set[str]) -> bool:
    if any(b[:1].isupper() and not (a.isupper() and b.isupper()) for a, b in zip(pieces, pieces[1:], strict=False)):
        return False  # "Fort Belvoir": a new capitalised word, not the rest of one
    joined = "".join(pieces).lower()
    if joined not in vocab or len(joined) < 4:
        return False
    return any(x.lower() not in vocab for x in pieces)


@dataclass(frozen=True)
class Line:
    """A cover line as the rules see it: mended text, its page, its place there from the top (1-based), its type,
    and its line in the page's stored text (what a citation of "page and line" points to)."""

    page: int
    line: int
    text: str
    size: float = 0.0
    bold: bool = False
    row: int = 0  # its line in the page text; 0 where it is the same as ``line``
    y: float = 0.0  # its top, in points from the top of the page (0 where only text is known)

    @property
    def text_line(self) -> int:
        return self.row or self.line


def only_agency(text: str) -> bool:
    """The line is only an agency's name (a logo or letterhead), with nothing of a title left."""
    bare = AGENCY_ABBR_RE.sub("", AGENCY_NAME_RE.sub("", text))
    return bool(text.strip()) and not re.sub(r"[\W_]+", "", re.sub(r"\b(?:U\.?S\.?|and|of|the|United|States)\b", "",
                                                                      bare, flags=re.IGNORECASE))


_NOT_TITLE = re.compile(r"^(?:executive\s+summary|volume\s+[IVX0-9]+\b.*|vol\.?\s*[IVX0-9]+\b.*|appendi(?:x|ces)\b.*|"
                        r"this\s+page\s+(?:is\s+)?(?:intentionally\s+)?left\s+blank.*|distribution\s+statement.*|"
                        r"approved\s+for\s+public\s+release.*|(?:chapters?|sections?)\s+\d.*|regional\s+summary.*|"
                        r"summary|abstract|cover\s+sheet|table\s+of\s+contents|contents|page\s+\d+|[ivx]+|\d+|"
                        r"(?:draft|final)\s+report(?:\s+for\s+comment)?|report\s+for\s+comment)$",
                        re.IGNORECASE)


_LOGO = re.compile(r"(?!(?:S|P)?(?:D|F)?EIS$|EA$|ROD$|FONSI$)[A-Z&]{2,6}")
_COVER_VOCAB = frozenset(_words(_COVER_WORDS))


def _logo(text: str) -> bool:
    return bool(_LOGO.fullmatch(text.strip())) and text.strip().lower() not in _COVER_VOCAB


def title_line(text: str) -> bool:
    """A line that can be part of a title: not a label, a date, an address, a number, an agency's name alone, a
    volume or a boilerplate line."""
    s = " ".join(text.split())
    if not s or len(s) > 200 or LABEL_LINE.match(s) or find_date(s) or ZIP_LINE.search(s):
        return False
    if PHONE_OR_WEB.search(s) or find_eis_number(s) or _NOT_TITLE.match(s):
        return False
    if sum(ch.isalpha() for ch in s) < 3:
        return False
    return not only_agency(s)


def body_size(lines: list[Line]) -> float:
    """The most common type size (by characters) of these lines: the body text's."""
    sizes: Counter = Counter()
    for ln in lines:
        sizes[ln.size] += len(ln.text)
    return sizes.most_common(1)[0][0] if sizes else 0.0


TITLE_SCALE = 1.2  # title type is at least this much larger than the body text
BLOCK_SHARE = 0.72  # and at least this share of the page's largest title type


@dataclass(frozen=True)
class TitleBlock:
    page: int
    lines: tuple[Line, ...]  # the title's lines, top to bottom
    above: tuple[Line, ...]  # the page's lines before the title (an agency's letterhead, a logo's text)
    below: tuple[Line, ...]  # the next lines after it
    typed: bool  # the title names a document type (an EIS, an EA, a Record of Decision)

    @property
    def text(self) -> str:
        return " ".join(" ".join(ln.text for ln in self.lines).split()).rstrip(" ,;:")


_STAMP = re.compile(r"(?:(?:preliminary|draft|final|confidential|deliberative|pre-?decisional|internal|for|official|use|"
                    r"only|review|not|distribution|sensitive|working|copy)\s*)+", re.IGNORECASE)
_ENDS_OPEN = re.compile(r"\b(?:for|of|the|and|to|at|in|on|an?|with|from)$", re.IGNORECASE)


def _stamp(ln: Line, chosen: list[Line]) -> bool:
    """Stamp words ("PRELIMINARY DRAFT") far (over three of its lines) from the rest of the title."""
    others = [c for c in chosen if c is not ln]
    if not _STAMP.fullmatch(ln.text.strip()) or not others or not ln.y:
        return False
    return min(abs(ln.y - c.y) for c in others) > 3 * max(ln.size, 1)


def _complete(chosen: list[Line], on_page: list[Line], body: float) -> list[Line]:
    """A title is not left open: one ending on a connector ("… Statement for the") takes its next line, and one that
    is only a document type ("Final Environmental Impact Statement") takes the project's name set smaller next to
    it; where there is no such line the title stays as it is (and is refused as a fragment later)."""
    from_type_only = type_only(" ".join(c.text for c in chosen))
    for _ in range(3):
        text = " ".join(c.text for c in chosen)
        if not (_ENDS_OPEN.search(text) or from_type_only):
            break
        nxt = next((ln for ln in on_page if ln.line == chosen[-1].line + 1), None)
        prev = next((ln for ln in on_page if ln.line == chosen[0].line - 1), None)
        pick = None
        if nxt and nxt.size >= body and title_line(nxt.text):
            pick = nxt
        elif from_type_only and prev and prev.size >= body * 1.05 and title_line(prev.text):
            pick = prev
        if pick is None:
            break
        chosen = sorted([*chosen, pick], key=lambda ln: ln.line)
        from_type_only = type_only(" ".join(c.text for c in chosen))
    return chosen


def title_block(lines: list[Line], image_share: dict[int, float]) -> TitleBlock | None:
    """The title page's title: on the first page whose large type makes a title (a page that images cover and
    whose text is all body-sized, such as a photo cover with a described picture, has none), the lines in the
    page's largest title type. A later page whose title names a document type wins over an earlier one that
    does not (a slogan on a photo cover)."""
    body = body_size(lines)
    if not body:
        return None
    found: list[TitleBlock] = []
    for page in sorted({ln.page for ln in lines}):
        on_page = [ln for ln in lines if ln.page == page]
        big = [ln for ln in on_page if ln.size >= body * TITLE_SCALE and title_line(ln.text)]
        if not big:
            continue
        top = max(ln.size for ln in big)
        chosen = [ln for ln in big if ln.size >= top * BLOCK_SHARE]
        # the title's other lines set smaller but still as a title, next to it ("Supplement to the Draft /
        # Environmental Impact Statement" under a larger project name)
        # — taken only when they bring the document type the larger lines lack (not a slogan under a name)
        grown, more = list(chosen), True
        while more:
            more = False
            for ln in big:
                if ln not in grown and ln.size >= max(top * 0.6, body * 1.3) \
                        and any(abs(ln.line - c.line) == 1 for c in grown):
                    grown.append(ln)
                    more = True
        grown.sort(key=lambda ln: ln.line)
        if classify(" ".join(ln.text for ln in chosen)) == (None, None) \
                and classify(" ".join(ln.text for ln in grown)) != (None, None):
            chosen = grown
        # a document-type line set a little smaller, next to the title ("Final Environmental Impact Statement")
        for ln in on_page:
            if ln not in chosen and ln.size >= body * 1.05 and title_line(ln.text) and classify(ln.text) != (None, None) \
                    and any(abs(ln.line - c.line) == 1 for c in chosen):
                chosen.append(ln)
        chosen.sort(key=lambda ln: ln.line)
        while len(chosen) > 1 and any(_logo(c.text) or _stamp(c, chosen) for c in (chosen[0], chosen[-1])):
            # an acronym alone at a title's edge is a logo's text ("GCER", "TVA"), and a "PRELIMINARY DRAFT" set
            # far from the title is a stamp: neither is a word of the title
            chosen = chosen[1:] if (_logo(chosen[0].text) or _stamp(chosen[0], chosen)) else chosen[:-1]
        chosen = _complete(chosen, on_page, body)
        text = " ".join(ln.text for ln in chosen)
        if len(text.split()) < 2 or (image_share.get(page, 0) > 0.5 and sum(len(ln.text) for ln in chosen) < 8):
            continue
        first, last = chosen[0].line, chosen[-1].line
        block = TitleBlock(page=page, lines=tuple(chosen), above=tuple(ln for ln in on_page if ln.line < first),
                           below=tuple(ln for ln in on_page if ln.line > last)[:8],
                           typed=classify(text) != (None, None))
        found.append(block)
        if block.typed:
            break
    typed = [b for b in found if b.typed]
    return typed[0] if typed else (found[0] if found else None)

"""The text rules behind metadata: dates, states, EIS numbers, document types, and which lines of a cover can be
part of a title. Each reads plain text and returns what it found, or None; none of them weighs evidence (that is
lib/documents/metadata/extraction.py)."""
from __future__ import annotations

import datetime as _dt
import re

from lib.documents.metadata.fields import (
    AGENCY_ABBR_RE,
    AGENCY_NAME_RE,
    PROCESS_OF,
    STATES,
    find_agencies,
    state_code,
    words_pattern,
)

_MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
     "december"], start=1)}
_MONTH_ABBR = {"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10,
               "nov": 11, "dec": 12}
_MONTH_RE = r"(January|February|March|April|May|June|July|August|September|October|November|December|Jan\.?|Feb\.?|Mar\.?|Apr\.?|Jun\.?|Jul\.?|Aug\.?|Sept?\.?|Oct\.?|Nov\.?|Dec\.?)"
_DATE_PATTERNS = (
    ("mdy", re.compile(_MONTH_RE + r"\s+(\d{1,2}),?\s+(\d{4})\b", re.IGNORECASE)),
    ("dmy", re.compile(r"\b(\d{1,2})\s+" + _MONTH_RE + r",?\s+(\d{4})\b", re.IGNORECASE)),
    ("my", re.compile(r"\b" + _MONTH_RE + r",?\s+(\d{4})\b", re.IGNORECASE)),
    ("iso", re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")),
    ("us", re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b")),
    ("m/y", re.compile(r"(?<![\d/])(\d{1,2})/(\d{4})\b")),
)
PHONE_OR_WEB = re.compile(r"\(\d{3}\)\s*\d{3}[-.]\d{4}|\b\d{3}[-.]\d{3}[-.]\d{4}\b|@|https?://|www\.")
ZIP_LINE = re.compile(r"\b[A-Z][A-Za-z.]*,?\s+\d{5}(?:-\d{4})?\b")


def _month(word: str) -> int | None:
    w = word.lower().rstrip(".")
    return _MONTHS.get(w) or _MONTH_ABBR.get(w)


def _plausible_year(y: int) -> bool:
    return 1969 <= y <= _dt.date.today().year + 1


def find_date(text: str) -> str | None:
    """The first date printed in ``text`` as ISO: YYYY-MM-DD, or YYYY-MM where only month and year are printed."""
    best: tuple[int, str] | None = None
    for kind, pat in _DATE_PATTERNS:
        for m in pat.finditer(text):
            try:
                if kind == "mdy":
                    y, mo, d = int(m.group(3)), _month(m.group(1)), int(m.group(2))
                elif kind == "dmy":
                    y, mo, d = int(m.group(3)), _month(m.group(2)), int(m.group(1))
                elif kind == "my":
                    y, mo, d = int(m.group(2)), _month(m.group(1)), None
                elif kind == "m/y":
                    y, mo, d = int(m.group(2)), int(m.group(1)), None
                    if not 1 <= mo <= 12:
                        continue
                elif kind == "iso":
                    y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
                else:
                    y, mo, d = int(m.group(3)), int(m.group(1)), int(m.group(2))
                if not mo or not _plausible_year(y):
                    continue
                iso = f"{y:04d}-{mo:02d}" if d is None else _dt.date(y, mo, d).isoformat()
            except ValueError:
                continue
            if best is None or m.start() < best[0]:
                best = (m.start(), iso)
            break  # the first match of each pattern is enough
    return best[1] if best else None


def pdf_date(raw: str) -> str | None:
    """'D:20170201103501-06'00'' -> '2017-02-01'."""
    m = re.match(r"(?:D:)?(\d{4})(\d{2})?(\d{2})?", (raw or "").strip())
    if not m or not _plausible_year(int(m.group(1))):
        return None
    y, mo, d = int(m.group(1)), m.group(2), m.group(3)
    try:
        if mo and d:
            return _dt.date(y, int(mo), int(d)).isoformat()
        if mo and 1 <= int(mo) <= 12:
            return f"{y:04d}-{int(mo):02d}"
    except ValueError:
        return None
    return f"{y:04d}"


_STATE_NAME_RE = re.compile(
    r"(?<![A-Za-z])(?:"
    r"(District\s+of\s+Columbia|Washington,?\s+D\.?\s?C\.?(?![A-Za-z]))"
    r"|((?:U\.S\.\s+)?Virgin\s+Islands|Northern\s+Mariana\s+Islands|American\s+Samoa|Puerto\s+Rico|Guam)"
    r"|(?<!West\s)(?<!George\s)(?<!Lake\s)(?<!Mount\s)(?<!Mt\.\s)(?<!Fort\s)(?<!Port\s)(?<!Camp\s)("
    + "|".join(sorted((words_pattern(n) for c, n in STATES.items() if len(c) == 2 and c not in ("DC", "PR", "GU", "VI", "AS", "MP")),
                      key=len, reverse=True))
    + r"))(?![A-Za-z])"
    # "Colorado River", "Columbia Plateau", "Mississippi Sound": a feature named after a state, not the state
    r"(?!\s+(?:River|Plateau|Basin|Desert|Mountains?|Sound|Bay|Gulf|Lakes?|Trail|Street|Avenue|Road|Highway|"
    r"Aqueduct|Canyon|Delta|Valley|County|Counties|Parish|Township|City|"
    # a company, a facility or a people named after a state: "Tennessee Gas Pipeline", "Washington Dulles Airport"
    r"Gas|Pipeline|Company|Corporation|Power|Electric|Energy|Airport|Dulles|International|University|Railroad|"
    r"Railway|Port|Harbor|National)\b)",
    re.IGNORECASE,
)
_STATE_ABBR_RE = re.compile(r"(?<=,\s)([A-Z]{2})(?=\s*(?:$|[,.;)]))", re.MULTILINE)


def states_in(text: str, abbreviations: bool = True) -> list[str]:
    """USPS codes for state names (as written, any case) and ", XX" abbreviations in ``text``, skipping address
    lines (a state followed by a ZIP code: the agency's office, not the project)."""
    codes: list[str] = []
    for line in text.splitlines():
        if ZIP_LINE.search(line):
            continue
        for m in _STATE_NAME_RE.finditer(line):
            word = m.group(0)
            if not (word[:1].isupper()):  # "maine" in running lowercase text is not a place name
                continue
            code = state_code(word)
            if code:
                codes.append(code)
        if abbreviations:
            codes += [m.group(1) for m in _STATE_ABBR_RE.finditer(line) if m.group(1) in STATES]
    return list(dict.fromkeys(codes))


def state_mentions(text: str) -> list[tuple[str, int, int]]:
    """Every state named in one line of prose, with where: (USPS code, start, end), for names (as written, any
    case, not a feature or a company named after a state) and ", XX" abbreviations; a state followed by a ZIP code
    (an address) is left out."""
    found: list[tuple[str, int, int]] = []
    for m in _STATE_NAME_RE.finditer(text):
        word = m.group(0)
        if word[:1].isupper() and (code := state_code(word)) and not re.match(r"\s*\d{5}\b", text[m.end():]):
            found.append((code, m.start(), m.end()))
    found += [(m.group(1), m.start(1), m.end(1)) for m in _STATE_ABBR_RE.finditer(text) if m.group(1) in STATES]
    return sorted(found, key=lambda f: f[1])


def keyword_states(keywords: str) -> list[str]:
    codes: list[str] = []
    for token in re.split(r"[;,\n]", keywords or ""):
        t = token.strip()
        if t.upper() == t and t in STATES:
            codes.append(t)
        else:
            codes += states_in(t, abbreviations=False)
    return list(dict.fromkeys(codes))


_EIS_NUMBER_PATTERNS = (
    re.compile(r"\b(?:EIS|CEQ|EPA)\s*(?:No\.?|Number|#)\s*:?\s*#?\s*(\d{8})\b", re.IGNORECASE),
    re.compile(r"\b(DOE/EIS-\d{4}[A-Z]?(?:-[A-Z]{1,2}\d{0,2})*)\b"),
    re.compile(r"\b((?:[A-Z]{2,6}[-/])+EIS(?:[-/][A-Z0-9]{1,8})+)\b"),
    re.compile(r"\b((?:[A-Z]{2,6}-)+(?:[A-Z0-9]+-)*EIS)\b"),
)


def find_eis_number(text: str) -> str | None:
    best: tuple[int, str] | None = None
    for pat in _EIS_NUMBER_PATTERNS:
        m = pat.search(text)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), m.group(1))
    return best[1] if best else None


_TYPE_PHRASES = (
    ("NOI", re.compile(r"notice\s+of\s+intent", re.IGNORECASE)),
    ("ROD", re.compile(r"record\s+of\s+decision", re.IGNORECASE)),
    ("ROD", re.compile(r"\bROD\b")),
    ("FONSI", re.compile(r"finding\s+of\s+no\s+significant\s+impact", re.IGNORECASE)),
    ("FONSI", re.compile(r"\bFONSI\b")),
    ("EA", re.compile(r"environmental\s+assessment", re.IGNORECASE)),
    ("EA", re.compile(r"\b(?:Draft|Final|DRAFT|FINAL)\s+EA\b")),
    ("EIS", re.compile(r"environmental\s+impact\s+statement", re.IGNORECASE)),
    ("EIS", re.compile(r"\b(?:S|P)?(?:D|F)?EIS\b")),
)
_MODIFIERS = {
    "draft": re.compile(r"\bdraft\b", re.IGNORECASE),
    "final": re.compile(r"\bfinal\b", re.IGNORECASE),
    "supplemental": re.compile(r"\bsupplement(?:al)?\b", re.IGNORECASE),
    "programmatic": re.compile(r"\bprogrammatic\b", re.IGNORECASE),
}
_EIS_ABBR_MODS = {"D": "draft", "F": "final", "S": "supplemental", "P": "programmatic"}


def classify(text: str) -> tuple[str | None, str | None]:
    """(document_type, process_type) from the words of a title or cover; either may be None."""
    flat = " ".join((text or "").split())
    hits = [(m.start(), m.end(), kind) for kind, pat in _TYPE_PHRASES for m in [pat.search(flat)] if m]
    if not hits:
        return None, None
    start, end, kind = min(hits)
    if kind != "EIS":
        return kind, PROCESS_OF[kind]
    mods: set[str] = set()
    word = flat[start:end]
    if re.fullmatch(r"(?:S|P)?(?:D|F)?EIS", word):
        mods |= {_EIS_ABBR_MODS[ch] for ch in word[:-3]}
    window = 200

    def near(name: str) -> int | None:
        dists = [min(abs(m.start() - start), abs(m.start() - end)) for m in _MODIFIERS[name].finditer(flat)]
        dists = [d for d in dists if d <= window]
        return min(dists) if dists else None

    if not mods & {"draft", "final"}:
        d, f = near("draft"), near("final")
        if d is not None and (f is None or d < f):
            mods.add("draft")
        elif f is not None:
            mods.add("final")
    for name in ("supplemental", "programmatic"):
        if near(name) is not None:
            mods.add(name)
    stage = "Draft" if "draft" in mods else "Final" if "final" in mods else None
    if stage is None:
        return None, "EIS"
    prefix = "Supplemental " if "supplemental" in mods else "Programmatic " if "programmatic" in mods else ""
    return f"{prefix}{stage} EIS", "EIS"


_STRIP_FROM_TITLE = re.compile(
    r"(?:\b(?:and\s+)?(?:preliminary\s+|final\s+|draft\s+)?section\s+4\s*\(f\)\s+evaluation\b"
    r"|\bexecutive\s+summary\b|\bvolume\s+[IVX0-9]+\b"
    r"|\bnotice\s+of\s+intent(?:\s+to\s+prepare(?:\s+an?)?)?\b"
    r"|\benvironmental\s+impact\s+statement\b|\benvironmental\s+assessment\b|\brecord\s+of\s+decision\b"
    r"|\bfinding\s+of\s+no\s+significant\s+impact\b|(?-i:\b(?:S|P)?(?:D|F)?EIS\b|\bEA\b|\bROD\b|\bFONSI\b)"
    r"|\btier\s+(?:1|2|one|two|I|II)\b|\btiered\b"
    r"|\b(?:supplemental|supplement|programmatic|draft|final|revised)\b)",
    re.IGNORECASE,
)
_EDGE_WORDS = re.compile(r"^(?:(?:for|of|on|to|the|and|an?|in|with)\b|[-–—:,;/&\s])+"
                         r"|(?:\b(?:for|of|on|to|the|and|in|with|including|includes|regarding)|[-–—:,;/&(\s])+$",
                         re.IGNORECASE)


_MAIN_TYPE = re.compile(
    r"\bnotice\s+of\s+intent(?:\s+to\s+prepare(?:\s+an?)?)?(?:\s+environmental\s+impact\s+statement)?"
    r"|\benvironmental\s+impact\s+statement\b|\benvironmental\s+assessment\b|\brecord\s+of\s+decision\b"
    r"|\bfinding\s+of\s+no\s+significant\s+impact\b|(?-i:\b(?:S|P)?(?:D|F)?EIS\b|\bEA\b|\bROD\b|\bFONSI\b)",
    re.IGNORECASE,
)
_PLACE_WORDS = re.compile(
    r"\b(?:the|of|and|for|in|north|south|east|west|northern|southern|eastern|western|central|northeast|northwest|"
    r"southeast|southwest|northeastern|northwestern|southeastern|southwestern|midwest|midwestern|pacific|atlantic|"
    r"gulf|coast|mountain|plains|great|lakes|region|regional|regions|district|united|states|u\.s\.|us|nationwide|"
    r"national|territories|county|counties|state|area|summary|\d+)\b",
    re.IGNORECASE,
)
_STATE_NAMES_RE = re.compile(r"\b(?:" + "|".join(sorted((words_pattern(n) for n in STATES.values()), key=len,
                                                         reverse=True)) + r")\b", re.IGNORECASE)


# a report's own kind at the end of its name: "… Integrated General Reevaluation Report and [EIS]"
_REPORT_TAIL = re.compile(r"(?:\s+(?:integrated\s+)?(?:general\s+)?(?:reevaluation|feasibility|interim|final|draft|"
                          r"integrated)?\s*report"
                          # a plan at a stage is the kind of document: "… Proposed Resource Management Plan Amendments"
                          r"|\s+(?:proposed|draft|approved|final)\s+(?:resource|land\s+use|forest|general)\s+management"
                          r"\s+plan(?:\s+amendments?|\s+revision)?)?(?:\s+and)?\s*$", re.IGNORECASE)
_TYPE_WORDS_ONLY = re.compile(r"(?:(?:environmental|impact|statement|assessment|record|decision|notice|intent|"
                              r"finding|significant|supplement|report|and|of|the|to|an?)\s*)+", re.IGNORECASE)


def place_only(s: str) -> bool:
    """True when ``s`` names only a place or region ("Alaska", "Eastern United States", "Region 5"): a regional
    volume's name, not a project's."""
    rest = _PLACE_WORDS.sub(" ", _STATE_NAMES_RE.sub(" ", s or ""))
    return not re.sub(r"[\W_]+", "", rest)


def _strip_type_words(s: str) -> str:
    s = _STRIP_FROM_TITLE.sub(" ", s or "")
    s = re.sub(r"\(\s*\)", " ", s)
    s = " ".join(s.split())
    for _ in range(3):
        s = _EDGE_WORDS.sub("", s).strip()
    return s


def _project_like(s: str) -> bool:
    return (len(re.findall(r"[A-Za-z]{2,}", s)) >= 2 and sum(ch.isalpha() for ch in s) >= 6 and not place_only(s)
            and title_cased(s))


def type_only(title: str) -> bool:
    """Nothing but document-type words ("Final Environmental Impact Statement", "Record of Decision")."""
    return not re.sub(r"[\W\d_]+", "", _MAIN_TYPE.sub(" ", _strip_type_words(_MAIN_TYPE.sub(" ", title or ""))))


def project_title_from(title: str) -> str | None:
    """The project's name in a title: the words before its document-type phrase ('X Final Environmental Impact
    Statement for the Eastern Region' -> 'X'), or after it where nothing stands before ('Record of Decision for
    the X' -> 'X'). A single word or a place alone (a regional volume's region) is not a project's name: None."""
    title = " ".join((title or "").split())
    m = _MAIN_TYPE.search(title)
    parts = [title[:m.start()], title[m.end():]] if m else [title]
    for part in parts:
        s = _strip_edges(_REPORT_TAIL.sub("", _strip_edges(part)))
        # document-type words left inside ("… Plants Supplement 58 Regarding …"): not a clean name
        if _project_like(s) and not _STRIP_FROM_TITLE.search(s) and not _TYPE_WORDS_ONLY.fullmatch(s):
            return s
    return None


def _strip_edges(s: str) -> str:
    """Document-type words and connectors removed from both ends only."""
    s = " ".join((s or "").split())
    for _ in range(6):
        before = s
        s = _EDGE_WORDS.sub("", s).strip()
        m = _STRIP_FROM_TITLE.match(s)
        if m:
            s = s[m.end():]
        ends = [m for m in _STRIP_FROM_TITLE.finditer(s) if m.end() == len(s)]
        if ends:
            s = s[:ends[-1].start()]
        s = re.sub(r"\(\s*\)", " ", s).strip()
        if s == before:
            break
    return s


_JUNK_TITLE = re.compile(r"^(?:microsoft\s+\w+\s*-|untitled\b|document\d*$|title$)|\.(?:docx?|pdf|indd|wpd)$", re.IGNORECASE)
LABEL_LINE = re.compile(r"^\s*(?:lead|joint\s+lead|cooperating|responsible|prepared|submitted|in\s+cooperation|"
                         r"abstract|contact|for\s+further|comments?\s|distribution|approved\s+for|cleared|location|"
                         r"designation|date|volume)\b", re.IGNORECASE)
_CONNECTOR_END = re.compile(r"(?:\b(?:for|of|on|to|the|and|at|in|with|an?)|[-–—:,&])\s*$", re.IGNORECASE)
_CONNECTOR_START = re.compile(r"^\s*(?:for|of|on|to|the|and|at|in|with|an?|\()\b|^\s*[a-z(]")
_MODIFIER_ONLY = re.compile(r"^\s*(?:draft|final|supplemental|programmatic|revised)\s*$", re.IGNORECASE)


def usable_title(t: str) -> bool:
    t = " ".join(t.split())
    return len(t) >= 8 and len(t.split()) >= 2 and not _JUNK_TITLE.search(t) and sum(ch.isalpha() for ch in t) >= 6


def title_cased(t: str) -> bool:
    """Most longer words capitalised, as titles are; a sentence of body text ("The preparation of this
    Programmatic EIS relates to …") is not a title."""
    words = [w for w in re.findall(r"[A-Za-z][A-Za-z'’-]*", t or "") if len(w) >= 4]
    return bool(words) and sum(w[0].isupper() for w in words) >= 0.6 * len(words)


def title_ish(line: str) -> bool:
    s = line.strip()
    if not s or len(s) > 160 or LABEL_LINE.match(s) or find_date(s) or ZIP_LINE.search(s):
        return False
    if PHONE_OR_WEB.search(s) or find_eis_number(s):
        return False
    if re.fullmatch(r"[\W\d_]+", s):
        return False
    bare = AGENCY_NAME_RE.sub("", s)
    bare = AGENCY_ABBR_RE.sub("", bare)
    if not re.sub(r"[\W_]+", "", re.sub(r"\b(?:U\.?S\.?|and|of|the)\b", "", bare, flags=re.IGNORECASE)):
        return False  # the line is only an agency's name
    return not re.fullmatch(r"(?i)executive\s+summary", s)


def _broken_phrase(a: str, b: str) -> bool:
    """A document-type phrase broken over two lines ("… an Environmental Impact" / "Statement for the …")."""
    return bool(re.search(r"\b(?:environmental(?:\s+impact)?|record(?:\s+of)?|notice(?:\s+of)?)\s*$", a, re.I)
                and re.match(r"\s*(?:impact\s+)?(?:statement|assessment)\b|\s*(?:of\s+)?(?:decision|intent)\b", b, re.I))


def _last_words(a: str, b: str) -> bool:
    """A title's last word or two wrapped onto a line of their own ("… Range Complex Airspace" / "Modernization")."""
    words = b.split()
    return (1 <= len(words) <= 2 and not re.search(r"[,.;:]", a.rstrip()[-1:] + b) and b[:1].isupper()
            and not state_code(b) and not find_agencies(b) and classify(b) == (None, None)
            and not re.search(r"\b(?:county|counties|parish|volume|summary|appendix)\b", b, re.IGNORECASE))


def cover_title(cover: str) -> tuple[str, int, int] | None:
    """The title block on a cover's text (no layout): the lines around the first one naming a document type,
    joined; with the 0-based indexes of its first and last line in ``cover.splitlines()``."""
    lines = [ln.strip() for ln in cover.splitlines()]
    anchor = next((i for i, ln in enumerate(lines) if ln and classify(ln) != (None, None) and title_ish(ln)), None)
    if anchor is None:
        return None
    block = [anchor]
    j = anchor - 1
    while j >= 0 and len(block) < 5 and title_ish(lines[j]):
        block.insert(0, j)
        j -= 1
    k = anchor + 1
    while k < len(lines) and len(block) < 8 and title_ish(lines[k]) and (
        _CONNECTOR_START.match(lines[k]) or _CONNECTOR_END.search(lines[k - 1]) or _MODIFIER_ONLY.match(lines[k])
        or _broken_phrase(lines[k - 1], lines[k]) or _last_words(lines[k - 1], lines[k])
    ):
        block.append(k)
        k += 1
    if all(project_title_from(lines[i]) is None for i in block):
        # only document-type words ("Environmental Assessment", "Environmental Impact Statement / Final"): the
        # project's name is the next line, or else the nearest title-like line above (across blank lines)
        nxt = block[-1] + 1
        if nxt < len(lines) and title_ish(lines[nxt]) and project_title_from(lines[nxt]):
            block.append(nxt)
        else:
            above = next((i for i in range(block[0] - 1, max(-1, block[0] - 30), -1)
                          if lines[i] and title_ish(lines[i]) and project_title_from(lines[i])), None)
            if above is not None:
                block.insert(0, above)
    title = " ".join(" ".join(lines[i] for i in block).split())
    if any(lines[i].rstrip().endswith(".") for i in block) or not title_cased(title):
        return None  # a sentence of body text that names a document type, not a cover's title
    return (title, block[0], block[-1]) if usable_title(title) else None



"""Metadata read from a PDF by rules at ingest: its info dictionary and the text of its first pages, in
milliseconds whatever its length. Nothing is guessed: a field that was not found is left out."""
from __future__ import annotations

import datetime as _dt
import logging
import re
from typing import Any

from lib.documents.metadata.fields import (
    AGENCY_ABBR_RE,
    AGENCY_NAME_RE,
    FIELDS,
    MAX_VALUE_CHARS,
    PROCESS_OF,
    STATES,
    canonical_agency,
    find_agencies,
    pick_lead,
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
)
_ZIP_LINE = re.compile(r"\b[A-Z][A-Za-z.]*,?\s+\d{5}(?:-\d{4})?\b")


def _month(word: str) -> int | None:
    w = word.lower().rstrip(".")
    return _MONTHS.get(w) or _MONTH_ABBR.get(w)


def _plausible_year(y: int) -> bool:
    return 1969 <= y <= _dt.date.today().year + 1


def _find_date(text: str) -> str | None:
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


def _pdf_date(raw: str) -> str | None:
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
    r"|(?<!West\s)(?<!George\s)("
    + "|".join(sorted((words_pattern(n) for c, n in STATES.items() if len(c) == 2 and c not in ("DC", "PR", "GU", "VI", "AS", "MP")),
                      key=len, reverse=True))
    + r"))(?![A-Za-z])",
    re.IGNORECASE,
)
_STATE_ABBR_RE = re.compile(r"(?<=,\s)([A-Z]{2})(?=\s*(?:$|[,.;)]))", re.MULTILINE)


def _states_in(text: str, abbreviations: bool = True) -> list[str]:
    """USPS codes for state names (as written, any case) and ", XX" abbreviations in ``text``, skipping address
    lines (a state followed by a ZIP code: the agency's office, not the project)."""
    codes: list[str] = []
    for line in text.splitlines():
        if _ZIP_LINE.search(line):
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


def _keyword_states(keywords: str) -> list[str]:
    codes: list[str] = []
    for token in re.split(r"[;,\n]", keywords or ""):
        t = token.strip()
        if t.upper() == t and t in STATES:
            codes.append(t)
        else:
            codes += _states_in(t, abbreviations=False)
    return list(dict.fromkeys(codes))


_EIS_NUMBER_PATTERNS = (
    re.compile(r"\b(?:EIS|CEQ|EPA)\s*(?:No\.?|Number|#)\s*:?\s*#?\s*(\d{8})\b", re.IGNORECASE),
    re.compile(r"\b(DOE/EIS-\d{4}[A-Z]?(?:-[A-Z]{1,2}\d{0,2})*)\b"),
    re.compile(r"\b((?:[A-Z]{2,6}[-/])+EIS(?:[-/][A-Z0-9]{1,8})+)\b"),
    re.compile(r"\b((?:[A-Z]{2,6}-)+(?:[A-Z0-9]+-)*EIS)\b"),
)


def _find_eis_number(text: str) -> str | None:
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
    r"|\b(?:supplemental|supplement|programmatic|draft|final|revised)\b)",
    re.IGNORECASE,
)
_EDGE_WORDS = re.compile(r"^(?:(?:for|of|on|to|the|and|an?|in|with)\b|[-–—:,;/&\s])+"
                         r"|(?:\b(?:for|of|on|to|the|and|in|with)|[-–—:,;/&(\s])+$", re.IGNORECASE)


def project_title_from(title: str) -> str | None:
    """The title without its document-type words: 'X Final Environmental Impact Statement' -> 'X'."""
    s = _STRIP_FROM_TITLE.sub(" ", title or "")
    s = re.sub(r"\(\s*\)", " ", s)
    s = " ".join(s.split())
    for _ in range(3):
        s = _EDGE_WORDS.sub("", s).strip()
    return s if len(s) >= 3 and sum(ch.isalpha() for ch in s) >= 3 else None


_JUNK_TITLE = re.compile(r"^(?:microsoft\s+\w+\s*-|untitled\b|document\d*$|title$)|\.(?:docx?|pdf|indd|wpd)$", re.IGNORECASE)
_LABEL_LINE = re.compile(r"^\s*(?:lead|joint\s+lead|cooperating|responsible|prepared|submitted|in\s+cooperation|"
                         r"abstract|contact|for\s+further|comments?\s|distribution|approved\s+for|cleared|location|"
                         r"designation|date|volume)\b", re.IGNORECASE)
_CONNECTOR_END = re.compile(r"(?:\b(?:for|of|on|to|the|and|at|in|with|an?)|[-–—:,&])\s*$", re.IGNORECASE)
_CONNECTOR_START = re.compile(r"^\s*(?:for|of|on|to|the|and|at|in|with|an?|\()\b|^\s*[a-z(]")
_MODIFIER_ONLY = re.compile(r"^\s*(?:draft|final|supplemental|programmatic|revised)\s*$", re.IGNORECASE)


def _usable_title(t: str) -> bool:
    t = " ".join(t.split())
    return len(t) >= 8 and len(t.split()) >= 2 and not _JUNK_TITLE.search(t) and sum(ch.isalpha() for ch in t) >= 6


def _title_ish(line: str) -> bool:
    s = line.strip()
    if not s or len(s) > 160 or _LABEL_LINE.match(s) or _find_date(s) or _ZIP_LINE.search(s):
        return False
    if re.search(r"\d{3}-\d{3,4}|@|https?://|www\.", s) or _find_eis_number(s):
        return False
    if re.fullmatch(r"[\W\d_]+", s):
        return False
    bare = AGENCY_NAME_RE.sub("", s)
    bare = AGENCY_ABBR_RE.sub("", bare)
    if not re.sub(r"[\W_]+", "", re.sub(r"\b(?:U\.?S\.?|and|of|the)\b", "", bare, flags=re.IGNORECASE)):
        return False  # the line is only an agency's name
    return not re.fullmatch(r"(?i)executive\s+summary", s)


def _cover_title(cover: str) -> str | None:
    """The title block on a cover: the lines around the first one naming a document type, joined."""
    lines = [ln.strip() for ln in cover.splitlines()]
    anchor = next((i for i, ln in enumerate(lines) if ln and classify(ln) != (None, None) and _title_ish(ln)), None)
    if anchor is None:
        return None
    block = [anchor]
    j = anchor - 1
    while j >= 0 and len(block) < 5 and _title_ish(lines[j]):
        block.insert(0, j)
        j -= 1
    k = anchor + 1
    while k < len(lines) and len(block) < 8 and _title_ish(lines[k]) and (
        _CONNECTOR_START.match(lines[k]) or _CONNECTOR_END.search(lines[k - 1]) or _MODIFIER_ONLY.match(lines[k])
    ):
        block.append(k)
        k += 1
    if all(project_title_from(lines[i]) is None for i in block):
        # only document-type words ("Environmental Assessment", "Environmental Impact Statement / Final"): the
        # project's name is the next line, or else the nearest title-like line above (across blank lines)
        nxt = block[-1] + 1
        if nxt < len(lines) and _title_ish(lines[nxt]) and project_title_from(lines[nxt]):
            block.append(nxt)
        else:
            above = next((i for i in range(block[0] - 1, max(-1, block[0] - 30), -1)
                          if lines[i] and _title_ish(lines[i]) and project_title_from(lines[i])), None)
            if above is not None:
                block.insert(0, above)
    title = " ".join(" ".join(lines[i] for i in block).split())
    return title if _usable_title(title) else None


def _label_value(text: str, label: str, multi: bool = False) -> tuple[str, int, int] | None:
    """The text after ``label:`` on its line, and where it starts and ends. A label alone on its line takes the
    next line. With ``multi``, a list continues on the next lines while it ends with a comma, semicolon or "and",
    or while the next line is a known agency's name."""
    pat = re.compile(r"^[ \t]*(?:" + label + r")[ \t]*(?:[:\-–—][ \t]*(.*)|$)", re.IGNORECASE | re.MULTILINE)
    m = pat.search(text)
    if not m:
        return None
    value = (m.group(1) or "").strip()
    end = m.end()
    for line in text[m.end():].split("\n")[1:]:
        s = line.strip()
        if not s or re.match(r"^[A-Z][A-Za-z ]{2,40}:", s) or _LABEL_LINE.match(s) or _find_date(s):
            break
        if not value or (multi and (re.search(r"(?:[,;&]|\band)$", value) or _is_agency_line(s))):
            value = f"{value} {s}".strip()
            pos = text.find(line, end)
            end = pos + len(line) if pos >= 0 else end
            continue
        break
    value = " ".join(value.split())
    return (value, m.start(), end) if value else None


def _is_agency_line(s: str) -> bool:
    return bool(find_agencies(s)) and len(s) < 120


def _split_agencies(value: str) -> list[str]:
    """Canonical names for known agencies; other organisations as written."""
    out: list[str] = []
    items = value.split(";") if ";" in value else value.split(",")
    for item in items:
        item = item.strip().strip(".")
        if not item:
            continue
        found = find_agencies(item)
        if found:
            out += [c for _, c, _ in found]
            rest = AGENCY_ABBR_RE.sub(" ", AGENCY_NAME_RE.sub(" ", item))
            rest = re.sub(r"\b(?:and|the|U\.?S\.?)\b|[&()]", " ", rest, flags=re.IGNORECASE)
            rest = " ".join(rest.split()).strip(" ,;-")
            if len(rest.split()) >= 2:
                out.append(rest)
        else:
            item = re.sub(r"^(?:and|&)\s+", "", item, flags=re.IGNORECASE)
            if len(item) >= 3 and len(item) <= 150:
                out.append(" ".join(item.split()))
    return list(dict.fromkeys(out))


COVER_PAGES = 5  # the cover and the next pages: enough for covers, title pages and abstracts


def extract(ex: Any) -> dict[str, dict]:
    """Rule-based metadata from an ExtractedPdf: its info dictionary (``pdf_metadata``) and the text of its first
    pages. Returns ``{field: {"value": v, "source": "pdf_metadata" | "cover_text"}}`` for what was found; a field
    that was not found is left out (nothing is guessed). It runs inside ingest, so it never raises: an unexpected
    failure gives no metadata rather than no document."""
    try:
        return _extract(ex)
    except Exception:  # noqa: BLE001 - metadata is a convenience; the document must still be indexed
        logging.getLogger(__name__).warning("metadata extraction failed for %s", getattr(ex, "name", "?"),
                                            exc_info=True)
        return {}


def _extract(ex: Any) -> dict[str, dict]:
    meta = {str(k): " ".join(str(v).split()) for k, v in (getattr(ex, "pdf_metadata", None) or {}).items()
            if isinstance(v, str) and v.strip()}
    texts: list[str] = []  # the first pages with text (a scanned or blank page in front is skipped)
    for page in (getattr(ex, "pages", None) or [])[: COVER_PAGES * 3]:
        if (page.text or "").strip():
            texts.append(page.text)
            if len(texts) == COVER_PAGES:
                break
    cover = texts[0] if texts else ""
    first = "\n".join(texts)
    out: dict[str, dict] = {}

    def put(key: str, value: Any, source: str) -> None:
        if key not in out and value not in (None, "", []):
            out[key] = {"value": value, "source": source}

    # title
    if _usable_title(meta.get("title", "")):
        put("title", meta["title"][:MAX_VALUE_CHARS], "pdf_metadata")
    elif cover and (t := _cover_title(cover)):
        put("title", t[:MAX_VALUE_CHARS], "cover_text")

    # document type and process type
    meta_title = meta.get("title", "") if _usable_title(meta.get("title", "")) else ""
    candidates = [(meta_title, "pdf_metadata"), (meta.get("subject", ""), "pdf_metadata"),
                  (out.get("title", {}).get("value", "") if out.get("title", {}).get("source") == "cover_text" else "",
                   "cover_text"), (cover, "cover_text")]
    for text, source in candidates:
        doc_type, process = classify(text)
        if doc_type:
            put("document_type", doc_type, source)
            put("process_type", process, source)
            break
    for text, source in candidates:
        _, process = classify(text)
        put("process_type", process, source)

    # project title: the title without its document-type words
    if "title" in out and (pt := project_title_from(out["title"]["value"])):
        put("project_title", pt, out["title"]["source"])

    # lead agency: a "Lead Agency:" line, the PDF's author when it names a known agency, a known agency on the cover
    coop = _label_value(first, r"cooperating\s+(?:federal\s+)?agenc(?:y|ies)", multi=True)
    lead = _label_value(first, r"(?:joint\s+)?lead\s+(?:federal\s+)?agenc(?:y|ies)")
    if lead:
        value = lead[0].split(";")[0]
        put("lead_agency", canonical_agency(value) or value[:200].strip(" ,."), "cover_text")
    if (author := meta.get("author")) and (agency := canonical_agency(author)):
        put("lead_agency", agency, "pdf_metadata")
    if cover:
        scan = cover
        cover_coop = _label_value(cover, r"cooperating\s+(?:federal\s+)?agenc(?:y|ies)", multi=True)
        if cover_coop:  # cooperating agencies named on the cover are not the lead
            scan = cover[:cover_coop[1]] + cover[cover_coop[2]:]
        put("lead_agency", pick_lead(find_agencies(scan)), "cover_text")

    if coop:
        put("cooperating_agencies", _split_agencies(coop[0]), "cover_text")

    # location: a "Location:" line
    loc = _label_value(first, r"(?:project\s+)?location")
    if loc:
        put("location", loc[0][:MAX_VALUE_CHARS], "cover_text")

    # states: PDF keywords (and subject/title), then the cover
    meta_states = _keyword_states(meta.get("keywords", ""))
    meta_states += _states_in(meta.get("subject", "") + "\n" + meta_title, abbreviations=False)
    cover_states = _states_in(cover + ("\n" + loc[0] if loc else ""))
    states = sorted(set(meta_states) | set(cover_states))
    if states:
        put("states", states, "pdf_metadata" if meta_states else "cover_text")

    # publish date: a date on the cover, else the PDF's creation date
    if cover and (d := _find_date(cover)):
        put("publish_date", d, "cover_text")
    elif (d := _pdf_date(meta.get("creationDate", ""))):
        put("publish_date", d, "pdf_metadata")

    # EIS number: the PDF's own fields, then the first pages
    for text, source in ((" ; ".join((meta_title, meta.get("subject", ""), meta.get("keywords", ""))), "pdf_metadata"),
                         (first, "cover_text")):
        if (n := _find_eis_number(text)):
            put("eis_number", n, source)
            break
    return {k: out[k] for k in FIELDS if k in out}

"""Document metadata: who, what, where and when an EIS is, with where each value came from.

Field names and values follow the CEQ NEPA and Permitting Data and Technology Standard, v1.2 (published by CEQ
with the Permitting Council and GSA on permitting.innovation.gov; its toolkit is GSA-TTS/pic-standards, whose
``src/jsonschema/nepa.schema.json`` and ``src/database/schema-v1.2.0.sql`` this module follows):

- ``project``: ``project_id``, ``project_title``, ``project_description``, ``project_sector``, ``project_sponsor``,
  ``lead_agency``, ``participating_agencies``, ``location`` (an object with a text ``description``);
- ``process``: ``process_id``, ``project_id``, ``process_type`` (``CE`` | ``EA`` | ``EIS``), ``process_status``,
  ``lead_agency``, ``joint_lead_agency``, ``cooperating_agencies``, ``federal_unique_id``, ``agency_id``;
- ``document``: ``document_id``, ``process_id``, ``document_type`` (the schema lists ``NOI``, ``Draft EIS``,
  ``Final EIS``, ``ROD``; we add the supplemental and programmatic variants, ``EA`` and ``FONSI``), ``title``,
  ``publish_date`` (ISO date), ``prepared_by``, ``volume_title``, ``url``, ``notes``;
- v1.2's provenance properties on every record: ``data_source_system``, ``data_record_version``, ``last_updated``
  and an ``other`` object for additional data.

The collection exports as the schema's root object, ``{"projects": [...], "processes": [...], "documents": [...]}``.
Our own fields ``states`` (USPS codes) and ``eis_number`` (the CEQ/EPA filing number or the agency's EIS number as
printed) sit beside the standard's fields, never instead of them.

Values are extracted at ingest by rules (``extract``: the PDF's info dictionary and the first pages' text only, so it
costs milliseconds whatever the length of the PDF), can be filled by a connected model on request
(``fill_with_model``) and edited by a person (``set_values``). Each value keeps its source: ``pdf_metadata``,
``cover_text``, ``model`` or ``person``; a person's value is never overwritten by extraction or a model.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import json
import logging
import re
from collections.abc import Iterable
from typing import Any

from sqlalchemy import and_, insert, select, update
from sqlalchemy import delete as _sa_delete
from sqlalchemy.engine import Engine

from . import store
from .errors import UserError

# ----- the fields ------------------------------------------------------------------------------------------------
FIELDS: tuple[str, ...] = (
    "title", "project_title", "lead_agency", "cooperating_agencies", "process_type", "document_type",
    "publish_date", "location", "states", "eis_number",
)
LIST_FIELDS = frozenset({"cooperating_agencies", "states"})
FIELD_LABELS = {  # plain words on the pages; the standard's names stay in the CLI, the export and the help text
    "title": "Title", "project_title": "Project", "lead_agency": "Lead agency",
    "cooperating_agencies": "Cooperating agencies", "process_type": "Review type (EIS, EA, CE)",
    "document_type": "Document type", "publish_date": "Published", "location": "Location", "states": "States",
    "eis_number": "EIS number",
}
TAGS = "tags"  # a person's own labels ("caribou", "Alaska LNG"): stored beside the fields, not a field of the standard
MAX_TAGS = 50
MAX_TAG_CHARS = 60
SOURCES: tuple[str, ...] = ("pdf_metadata", "cover_text", "model", "person")
SOURCE_LABELS = {"pdf_metadata": "PDF metadata", "cover_text": "cover text", "model": "model", "person": "person"}
PROCESS_TYPES: tuple[str, ...] = ("EIS", "EA", "CE")
DOCUMENT_TYPES: tuple[str, ...] = (
    "NOI", "Draft EIS", "Final EIS", "Supplemental Draft EIS", "Supplemental Final EIS", "Programmatic Draft EIS",
    "Programmatic Final EIS", "EA", "FONSI", "ROD",
)
PROCESS_OF = {t: ("EA" if t in ("EA", "FONSI") else "EIS") for t in DOCUMENT_TYPES}
_DOC_TYPE_ALIASES = {
    "deis": "Draft EIS", "feis": "Final EIS", "sdeis": "Supplemental Draft EIS", "sfeis": "Supplemental Final EIS",
    "pdeis": "Programmatic Draft EIS", "pfeis": "Programmatic Final EIS", "record of decision": "ROD",
    "notice of intent": "NOI", "environmental assessment": "EA", "finding of no significant impact": "FONSI",
    "draft environmental impact statement": "Draft EIS", "final environmental impact statement": "Final EIS",
}
MAX_VALUE_CHARS = 500
SYSTEM_NAME = "NEPA QA Studio"
STANDARD = "CEQ NEPA and Permitting Data and Technology Standard v1.2"

STATES: dict[str, str] = {
    "AL": "Alabama", "AK": "Alaska", "AZ": "Arizona", "AR": "Arkansas", "CA": "California", "CO": "Colorado",
    "CT": "Connecticut", "DE": "Delaware", "FL": "Florida", "GA": "Georgia", "HI": "Hawaii", "ID": "Idaho",
    "IL": "Illinois", "IN": "Indiana", "IA": "Iowa", "KS": "Kansas", "KY": "Kentucky", "LA": "Louisiana",
    "ME": "Maine", "MD": "Maryland", "MA": "Massachusetts", "MI": "Michigan", "MN": "Minnesota", "MS": "Mississippi",
    "MO": "Missouri", "MT": "Montana", "NE": "Nebraska", "NV": "Nevada", "NH": "New Hampshire", "NJ": "New Jersey",
    "NM": "New Mexico", "NY": "New York", "NC": "North Carolina", "ND": "North Dakota", "OH": "Ohio",
    "OK": "Oklahoma", "OR": "Oregon", "PA": "Pennsylvania", "RI": "Rhode Island", "SC": "South Carolina",
    "SD": "South Dakota", "TN": "Tennessee", "TX": "Texas", "UT": "Utah", "VT": "Vermont", "VA": "Virginia",
    "WA": "Washington", "WV": "West Virginia", "WI": "Wisconsin", "WY": "Wyoming", "DC": "District of Columbia",
    "PR": "Puerto Rico", "GU": "Guam", "VI": "U.S. Virgin Islands", "AS": "American Samoa",
    "MP": "Northern Mariana Islands",
}
_STATE_BY_NAME = {name.lower(): code for code, name in STATES.items()} | {
    "virgin islands": "VI", "us virgin islands": "VI", "washington dc": "DC", "washington d.c.": "DC",
}

# Federal agencies that lead or cooperate on EISs: (canonical name, abbreviations, other spellings, parent).
# A sub-agency named on a cover wins over its department ("Department of Defense" + "Missile Defense Agency").
_AGENCY_TABLE: tuple[tuple[str, tuple[str, ...], tuple[str, ...], str | None], ...] = (
    ("Department of Defense", ("DoD", "DOD"), (), None),
    ("Department of the Army", (), ("U.S. Army", "United States Army"), "Department of Defense"),
    ("Department of the Navy", ("DON",), ("U.S. Navy", "United States Navy"), "Department of Defense"),
    ("Department of the Air Force", ("USAF",), ("U.S. Air Force", "United States Air Force"), "Department of Defense"),
    ("U.S. Army Corps of Engineers", ("USACE",), ("Army Corps of Engineers", "Corps of Engineers"), "Department of the Army"),
    ("Missile Defense Agency", ("MDA",), (), "Department of Defense"),
    ("National Guard Bureau", ("NGB",), (), "Department of Defense"),
    ("Department of the Interior", ("DOI",), ("Interior Department",), None),
    ("Bureau of Land Management", ("BLM",), (), "Department of the Interior"),
    ("National Park Service", ("NPS",), (), "Department of the Interior"),
    ("U.S. Fish and Wildlife Service", ("USFWS", "FWS"), ("Fish and Wildlife Service", "Fish & Wildlife Service"), "Department of the Interior"),
    ("Bureau of Reclamation", ("USBR",), (), "Department of the Interior"),
    ("Bureau of Ocean Energy Management", ("BOEM",), (), "Department of the Interior"),
    ("Bureau of Safety and Environmental Enforcement", ("BSEE",), (), "Department of the Interior"),
    ("Bureau of Indian Affairs", ("BIA",), (), "Department of the Interior"),
    ("Office of Surface Mining Reclamation and Enforcement", ("OSMRE",), ("Office of Surface Mining",), "Department of the Interior"),
    ("U.S. Geological Survey", ("USGS",), ("Geological Survey",), "Department of the Interior"),
    ("Department of Agriculture", ("USDA",), (), None),
    ("Forest Service", ("USFS",), ("USDA Forest Service", "U.S. Forest Service"), "Department of Agriculture"),
    ("Natural Resources Conservation Service", ("NRCS",), (), "Department of Agriculture"),
    ("Rural Utilities Service", ("RUS",), (), "Department of Agriculture"),
    ("Animal and Plant Health Inspection Service", ("APHIS",), (), "Department of Agriculture"),
    ("Department of Transportation", ("USDOT",), (), None),
    ("Federal Highway Administration", ("FHWA",), (), "Department of Transportation"),
    ("Federal Transit Administration", ("FTA",), (), "Department of Transportation"),
    ("Federal Railroad Administration", ("FRA",), (), "Department of Transportation"),
    ("Federal Aviation Administration", ("FAA",), (), "Department of Transportation"),
    ("Maritime Administration", ("MARAD",), (), "Department of Transportation"),
    ("Department of Energy", ("DOE",), (), None),
    ("National Nuclear Security Administration", ("NNSA",), (), "Department of Energy"),
    ("Bonneville Power Administration", ("BPA",), (), "Department of Energy"),
    ("Western Area Power Administration", ("WAPA",), (), "Department of Energy"),
    ("Federal Energy Regulatory Commission", ("FERC",), (), None),
    ("Nuclear Regulatory Commission", ("NRC",), (), None),
    ("Environmental Protection Agency", ("EPA", "USEPA"), (), None),
    ("Department of Commerce", ("DOC",), (), None),
    ("National Oceanic and Atmospheric Administration", ("NOAA",), (), "Department of Commerce"),
    ("National Marine Fisheries Service", ("NMFS",), ("NOAA Fisheries",), "National Oceanic and Atmospheric Administration"),
    ("Department of Homeland Security", ("DHS",), (), None),
    ("U.S. Customs and Border Protection", ("CBP",), ("Customs and Border Protection",), "Department of Homeland Security"),
    ("Federal Emergency Management Agency", ("FEMA",), (), "Department of Homeland Security"),
    ("U.S. Coast Guard", ("USCG",), ("Coast Guard",), "Department of Homeland Security"),
    ("Department of Housing and Urban Development", ("HUD",), (), None),
    ("Department of Veterans Affairs", (), (), None),
    ("Department of State", (), ("State Department",), None),
    ("Tennessee Valley Authority", ("TVA",), (), None),
    ("General Services Administration", ("GSA",), (), None),
    ("National Aeronautics and Space Administration", ("NASA",), (), None),
    ("Surface Transportation Board", ("STB",), (), None),
    ("International Boundary and Water Commission", ("IBWC",), (), None),
)
FEDERAL_AGENCIES: tuple[str, ...] = tuple(a[0] for a in _AGENCY_TABLE)
_PARENT = {a[0]: a[3] for a in _AGENCY_TABLE}


def _words_pattern(name: str) -> str:
    words = name.replace("&", " and ").split()
    return r"\s+".join(r"(?:and|&)" if w.lower() == "and" else re.escape(w) for w in words)


def _agency_key(text: str) -> str:
    return " ".join(text.replace("&", " and ").split()).lower()


def _agency_name_regex() -> tuple[re.Pattern[str], dict[str, str]]:
    spellings: dict[str, str] = {}
    for canonical, _abbrs, others, _parent in _AGENCY_TABLE:
        for s in (canonical, *others):
            base = re.sub(r"^(?:U\.S\.|United States)\s+", "", s)
            spellings.setdefault(_agency_key(base), canonical)
    alts = sorted(spellings, key=len, reverse=True)  # longest first: "Corps of Engineers" before "Army"
    prefix = r"(?:(?:U\.\s?S\.|US|United\s+States|USDA)\s+)?"
    pat = re.compile(prefix + "(" + "|".join(_words_pattern(a) for a in alts) + r")\b", re.IGNORECASE)
    return pat, spellings


_AGENCY_NAME_RE, _AGENCY_SPELLINGS = _agency_name_regex()
_STATE_BEFORE = re.compile(r"(?:State\s+of\s+)?(?:" + "|".join(sorted(
    (_words_pattern(n) for n in STATES.values()), key=len, reverse=True)) + r")(?:[ \t]+State)?[ \t]+$", re.IGNORECASE)
_AGENCY_ABBR = {abbr: a[0] for a in _AGENCY_TABLE for abbr in a[1]}
_AGENCY_ABBR_RE = re.compile(r"(?<![A-Za-z0-9])(" + "|".join(sorted(_AGENCY_ABBR, key=len, reverse=True)) + r")(?![A-Za-z])")


def _find_agencies(text: str) -> list[tuple[int, str, bool]]:
    """(position, canonical name, by full name?) for every known agency in ``text``, names before abbreviations."""
    found: list[tuple[int, str, bool]] = []
    taken: list[tuple[int, int]] = []
    for m in _AGENCY_NAME_RE.finditer(text):
        canonical = _AGENCY_SPELLINGS.get(_agency_key(m.group(1)))
        if _STATE_BEFORE.search(text[max(0, m.start() - 40):m.start()]):
            taken.append(m.span())  # "Arizona Department of Transportation": a state's agency, not the federal one
            continue
        if canonical:
            found.append((m.start(), canonical, True))
            taken.append(m.span())
    for m in _AGENCY_ABBR_RE.finditer(text):
        if not any(a <= m.start() < b for a, b in taken):
            found.append((m.start(), _AGENCY_ABBR[m.group(1)], False))
    return sorted(found)


def canonical_agency(text: str) -> str | None:
    """The canonical name of the one known agency ``text`` names (most specific where a department and its
    sub-agency are both named), else None."""
    return _pick_lead(_find_agencies(text))


def _pick_lead(found: list[tuple[int, str, bool]]) -> str | None:
    if not found:
        return None
    names = {c for _, c, _ in found}
    ancestors: set[str] = set()
    for c in names:
        p = _PARENT.get(c)
        while p:
            ancestors.add(p)
            p = _PARENT.get(p)
    keep = [f for f in found if f[1] not in ancestors]
    by_name = [f for f in keep if f[2]]
    return (by_name or keep)[0][1] if keep else None


# ----- reading text ----------------------------------------------------------------------------------------------
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
    + "|".join(sorted((_words_pattern(n) for c, n in STATES.items() if len(c) == 2 and c not in ("DC", "PR", "GU", "VI", "AS", "MP")),
                      key=len, reverse=True))
    + r"))(?![A-Za-z])",
    re.IGNORECASE,
)
_STATE_ABBR_RE = re.compile(r"(?<=,\s)([A-Z]{2})(?=\s*(?:$|[,.;)]))", re.MULTILINE)


def _state_code(name: str) -> str | None:
    key = " ".join(name.replace(",", " ").split()).lower()
    if key.startswith("washington") and ("d.c" in key or key.endswith(" dc")):
        return "DC"
    return _STATE_BY_NAME.get(key) or _STATE_BY_NAME.get(key.removeprefix("u.s. "))


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
            code = _state_code(word)
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
    bare = _AGENCY_NAME_RE.sub("", s)
    bare = _AGENCY_ABBR_RE.sub("", bare)
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
    return bool(_find_agencies(s)) and len(s) < 120


def _split_agencies(value: str) -> list[str]:
    """Canonical names for known agencies; other organisations as written."""
    out: list[str] = []
    items = value.split(";") if ";" in value else value.split(",")
    for item in items:
        item = item.strip().strip(".")
        if not item:
            continue
        found = _find_agencies(item)
        if found:
            out += [c for _, c, _ in found]
            rest = _AGENCY_ABBR_RE.sub(" ", _AGENCY_NAME_RE.sub(" ", item))
            rest = re.sub(r"\b(?:and|the|U\.?S\.?)\b|[&()]", " ", rest, flags=re.IGNORECASE)
            rest = " ".join(rest.split()).strip(" ,;-")
            if len(rest.split()) >= 2:
                out.append(rest)
        else:
            item = re.sub(r"^(?:and|&)\s+", "", item, flags=re.IGNORECASE)
            if len(item) >= 3 and len(item) <= 150:
                out.append(" ".join(item.split()))
    return list(dict.fromkeys(out))


# ----- extraction ------------------------------------------------------------------------------------------------
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
        put("lead_agency", _pick_lead(_find_agencies(scan)), "cover_text")

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


# ----- validation ------------------------------------------------------------------------------------------------
def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        parts = value.split(";") if ";" in value else value.split(",")
    elif isinstance(value, (list, tuple)):
        parts = [str(v) for v in value if v is not None]
    else:
        raise UserError(f"Expected a list or a comma-separated text, got {type(value).__name__}.")
    return list(dict.fromkeys(" ".join(p.split()) for p in parts if p.strip()))


def _date_value(value: str) -> str:
    s = value.strip()
    try:
        if re.fullmatch(r"\d{4}", s):
            y = int(s)
        elif re.fullmatch(r"\d{4}-\d{2}", s):
            y, mo = int(s[:4]), int(s[5:])
            _dt.date(y, mo, 1)
        elif re.fullmatch(r"\d{4}-\d{2}-\d{2}", s):
            y = _dt.date.fromisoformat(s).year
        else:
            raise ValueError(s)
        if not 1900 <= y <= 2100:
            raise ValueError(s)
    except ValueError:
        raise UserError(f"publish_date must be an ISO date: YYYY-MM-DD, YYYY-MM or YYYY (got '{value}').") from None
    return s


def normalize(key: str, value: Any) -> Any:
    """A field's value checked and put in its stored form; None clears it. Raises UserError saying what is wrong."""
    if key == "year":
        raise UserError("'year' is derived from publish_date: set publish_date instead (YYYY-MM-DD, YYYY-MM or YYYY).")
    if key not in FIELDS:
        raise UserError(f"Unknown metadata field '{key}'. Known fields: {', '.join(FIELDS)}.")
    if value is None or (isinstance(value, str) and not value.strip()) or value == []:
        return None
    if key == "states":
        codes = []
        for item in _as_list(value):
            code = item.upper() if item.upper() in STATES else _state_code(item)
            if not code:
                raise UserError(f"'{item}' is not a U.S. state or territory: use two-letter USPS codes such as "
                                "AK, MI, NY, DC or PR (or full names), separated by commas.")
            codes.append(code)
        return sorted(set(codes))
    if key == "cooperating_agencies":
        items = [i[:200] for i in _as_list(value)]
        return items or None
    if not isinstance(value, (str, int, float)):
        raise UserError(f"{key} takes a text value, not a {type(value).__name__}.")
    s = " ".join(str(value).split())
    if key == "document_type":
        hit = next((t for t in DOCUMENT_TYPES if t.lower() == s.lower()), None) or _DOC_TYPE_ALIASES.get(s.lower())
        if not hit:
            raise UserError(f"Unknown document_type '{s}'. Use one of: {', '.join(DOCUMENT_TYPES)}.")
        return hit
    if key == "process_type":
        if s.upper() not in PROCESS_TYPES:
            raise UserError(f"Unknown process_type '{s}'. Use one of: {', '.join(PROCESS_TYPES)}.")
        return s.upper()
    if key == "publish_date":
        return _date_value(s)
    if len(s) > MAX_VALUE_CHARS:
        raise UserError(f"{key} is {len(s)} characters long; at most {MAX_VALUE_CHARS} are kept.")
    return s


def year_of(publish_date: Any) -> int | None:
    m = re.match(r"(\d{4})", str(publish_date or ""))
    return int(m.group(1)) if m else None


# ----- storage ---------------------------------------------------------------------------------------------------
def _engine(engine: Engine | None) -> Engine:
    return engine or store.get_engine()


def _empty() -> dict[str, dict]:
    return {k: {"value": None, "source": None} for k in FIELDS}


def save_extracted(conn: Any, doc_id: str, fields: dict[str, dict]) -> None:
    """Write extracted values inside the caller's transaction (a SQLAlchemy connection). A value a person set is
    kept; every other field is replaced by what the rules found now (or removed when they found nothing)."""
    t = store.doc_metadata
    rows = conn.execute(select(t.c.key, t.c.source).where(t.c.doc_id == doc_id)).fetchall()
    person = {r.key for r in rows if r.source == "person"}
    stale = [r.key for r in rows if r.source in ("pdf_metadata", "cover_text") and r.key not in person]
    if stale:
        conn.execute(_sa_delete(t).where(and_(t.c.doc_id == doc_id, t.c.key.in_(stale))))
    have = {r.key for r in rows} - set(stale)
    now = _dt.datetime.now(_dt.UTC).replace(tzinfo=None)
    for key, item in fields.items():
        if key not in FIELDS or key in person or item.get("source") not in ("pdf_metadata", "cover_text"):
            continue
        try:
            value = normalize(key, item.get("value"))
        except UserError:  # a value the rules should not have produced: left out, the ingest goes on
            continue
        if value is None:
            continue
        row = {"value": json.dumps(value), "source": item["source"], "updated_at": now}
        if key in have:  # a model's value is replaced by one the document itself prints
            conn.execute(update(t).where(and_(t.c.doc_id == doc_id, t.c.key == key)).values(**row))
        else:
            conn.execute(insert(t).values(doc_id=doc_id, key=key, **row))


def get_many(doc_ids: Iterable[str], engine: Engine | None = None) -> dict[str, dict[str, dict]]:
    """``{doc_id: {field: {"value", "source"}}}`` with every field present for every id asked for."""
    ids = list(dict.fromkeys(doc_ids))
    out = {d: _empty() for d in ids}
    if not ids:
        return out
    t = store.doc_metadata
    with _engine(engine).connect() as c:
        rows = c.execute(select(t.c.doc_id, t.c.key, t.c.value, t.c.source).where(t.c.doc_id.in_(ids))).fetchall()
    for r in rows:
        if r.key in FIELDS and r.doc_id in out:
            out[r.doc_id][r.key] = {"value": json.loads(r.value) if r.value is not None else None, "source": r.source}
    return out


def get(doc_id: str, engine: Engine | None = None) -> dict[str, dict]:
    """``{field: {"value", "source"}}`` for every field of FIELDS, in that order; value and source are None where
    nothing is known."""
    return get_many([doc_id], engine)[doc_id]


def _require_document(c: Any, doc_id: str) -> None:
    if c.execute(select(store.documents.c.doc_id).where(store.documents.c.doc_id == doc_id)).first() is None:
        raise UserError(f"No indexed document with id '{doc_id}'.")


def set_values(doc_id: str, values: dict[str, Any], engine: Engine | None = None, source: str = "person") -> dict[str, dict]:
    """Set fields of one document (all checked before any is written). Lists accept comma-separated text (or
    semicolon-separated where a name has a comma). An empty value clears the field; a person's clearing is kept as
    a value of None with source ``person``, so no model fills it back. Returns the document's metadata after."""
    if source not in SOURCES:
        raise UserError(f"Unknown metadata source '{source}'. Known: {', '.join(SOURCES)}.")
    if not values:
        raise UserError("Nothing to set: give at least one field, e.g. lead_agency=\"Bureau of Land Management\".")
    values = dict(values)
    tags = normalize_tags(values.pop(TAGS)) if TAGS in values else None
    clean = {k: normalize(k, v) for k, v in values.items()}
    if tags is not None:
        clean[TAGS] = tags or None
    t = store.doc_metadata
    now = _dt.datetime.now(_dt.UTC).replace(tzinfo=None)
    with _engine(engine).begin() as c:
        _require_document(c, doc_id)
        for key, value in clean.items():
            if value is None and source != "person":
                continue
            c.execute(_sa_delete(t).where(and_(t.c.doc_id == doc_id, t.c.key == key)))
            c.execute(insert(t).values(doc_id=doc_id, key=key, value=json.dumps(value) if value is not None else None,
                                       source=source, updated_at=now))
    return get(doc_id, engine)


def normalize_tags(value: Any) -> list[str]:
    """Tags in their stored form: trimmed, lower case, unique, sorted. A list, or text separated by commas."""
    out = set()
    for item in _as_list(value) if value not in (None, "") else []:
        tag = " ".join(str(item).split()).lower()
        if not tag:
            continue
        if len(tag) > MAX_TAG_CHARS:
            raise UserError(f"The tag '{tag[:40]}…' is {len(tag)} characters long; tags are at most {MAX_TAG_CHARS}.")
        out.add(tag)
    if len(out) > MAX_TAGS:
        raise UserError(f"{len(out)} tags given; a document keeps at most {MAX_TAGS}.")
    return sorted(out)


def tags_many(doc_ids: Iterable[str], engine: Engine | None = None) -> dict[str, list[str]]:
    """``{doc_id: [tag, …]}`` (an empty list where a document has none)."""
    ids = list(dict.fromkeys(doc_ids))
    out: dict[str, list[str]] = {d: [] for d in ids}
    if not ids:
        return out
    t = store.doc_metadata
    with _engine(engine).connect() as c:
        rows = c.execute(select(t.c.doc_id, t.c.value).where(and_(t.c.doc_id.in_(ids), t.c.key == TAGS))).fetchall()
    for r in rows:
        if r.value is not None:
            out[r.doc_id] = list(json.loads(r.value))
    return out


def delete(conn: Any, doc_id: str) -> None:
    """Remove a document's metadata inside the caller's transaction."""
    conn.execute(_sa_delete(store.doc_metadata).where(store.doc_metadata.c.doc_id == doc_id))



def missing(meta: dict[str, dict]) -> list[str]:
    """Fields with no value that nobody cleared on purpose: what a model may fill."""
    return [k for k in FIELDS if meta.get(k, {}).get("value") in (None, [], "") and meta.get(k, {}).get("source") != "person"]


# ----- a connected model fills gaps ------------------------------------------------------------------------------
_FIELD_HELP = {
    "title": "the document's full title as printed on its cover",
    "project_title": "the project's name, without document-type words such as 'Final Environmental Impact Statement'",
    "lead_agency": "the federal lead agency",
    "cooperating_agencies": "a list of the cooperating agencies' names",
    "process_type": "one of " + ", ".join(PROCESS_TYPES),
    "document_type": "one of " + ", ".join(DOCUMENT_TYPES),
    "publish_date": "the publication date as YYYY-MM-DD, YYYY-MM or YYYY",
    "location": "the project's location in words (place, county, state)",
    "states": "a list of two-letter USPS codes of the states or territories where the project is",
    "eis_number": "the EIS number printed on the document (CEQ/EPA number such as 20170012, or an agency number "
                  "such as DOE/EIS-0250)",
}


def _parse_json_object(text: str) -> dict:
    s = (text or "").strip()
    s = re.sub(r"^```(?:json)?\s*|\s*```$", "", s)
    a, b = s.find("{"), s.rfind("}")
    if a < 0 or b <= a:
        raise ValueError("no JSON object")
    obj = json.loads(s[a:b + 1])
    if not isinstance(obj, dict):
        raise ValueError("not an object")
    return obj


def fill_with_model(doc_id: str, model: Any, pages_text: str | Iterable[str], engine: Engine | None = None) -> dict[str, Any]:
    """Ask a connected model for the fields still unknown, from the first pages' text, and store what it gives
    (checked like a person's input) with source ``model``. Known values, a person's included, are never changed.
    Returns ``{"filled": {field: value}, "rejected": {field: reason}, "asked": [fields]}``."""
    from .providers.base import ProviderError, Request
    from .providers.registry import is_llm

    if getattr(model, "weak", False) or not is_llm(model):
        raise UserError(f"{getattr(model, 'label', None) or getattr(model, 'id', 'This model')} cannot fill metadata "
                        "reliably: configure a connected model (OpenAI, Anthropic, an OpenAI-compatible server or a "
                        "larger local GGUF model) and choose it.")
    current = get(doc_id, engine)
    asked = missing(current)
    if not asked:
        return {"filled": {}, "rejected": {}, "asked": []}
    pages = [pages_text] if isinstance(pages_text, str) else list(pages_text)
    text = "\n\n".join(p for p in pages[:COVER_PAGES] if p and p.strip())
    if not text.strip():
        raise UserError("This document has no text on its first pages to read metadata from.")
    budget_tokens = max(500, int(getattr(model, "context_window", 4096)) - 900)
    count = getattr(model, "count_tokens", lambda s: (len(s) + 3) // 4)
    while count(text) > budget_tokens and len(text) > 2000:
        text = text[: int(len(text) * 0.8)]
    wanted = "\n".join(f'- "{k}": {_FIELD_HELP[k]}' for k in asked)
    prompt = (
        "Below are the first pages of a U.S. environmental review document (NEPA). Reply with one JSON object and "
        "nothing else, with exactly these keys:\n" + wanted + "\n"
        "Use null for anything the pages do not state. Copy names and numbers as printed; do not guess.\n\n"
        "<pages>\n" + text + "\n</pages>"
    )
    req = Request(prompt=prompt, system="You read document covers and reply with JSON only.", max_tokens=600)
    try:
        answer = model.generate(req)
    except ProviderError as exc:
        raise UserError(f"The model call failed: {exc}") from exc
    try:
        obj = _parse_json_object(answer.text)
    except (ValueError, json.JSONDecodeError):
        raise UserError("The model did not reply with a JSON object; nothing was changed. Try again or choose "
                        "another model.") from None
    filled: dict[str, Any] = {}
    rejected: dict[str, str] = {}
    for key in asked:
        if key not in obj or obj[key] in (None, "", [], "null"):
            continue
        try:
            value = normalize(key, obj[key])
        except UserError as exc:
            rejected[key] = str(exc)
            continue
        if value is not None:
            filled[key] = value
    if filled:
        t = store.doc_metadata
        now = _dt.datetime.now(_dt.UTC).replace(tzinfo=None)
        with _engine(engine).begin() as c:
            _require_document(c, doc_id)
            rows = {r.key: r for r in c.execute(select(t.c.key, t.c.value, t.c.source).where(t.c.doc_id == doc_id))}
            for key in list(filled):
                r = rows.get(key)
                if r is not None and (r.source == "person" or r.value not in (None, "null", "[]", '""')):
                    filled.pop(key)  # someone filled it meanwhile: theirs stays
                    continue
                if r is not None:
                    c.execute(_sa_delete(t).where(and_(t.c.doc_id == doc_id, t.c.key == key)))
                c.execute(insert(t).values(doc_id=doc_id, key=key, value=json.dumps(filled[key]), source="model",
                                           updated_at=now))
    return {"filled": filled, "rejected": rejected, "asked": asked}


# ----- the collection --------------------------------------------------------------------------------------------
def _doc_ids(docs: Iterable[Any]) -> list[str]:
    return [d if isinstance(d, str) else d.doc_id for d in docs]


def _names(docs: Iterable[Any]) -> dict[str, str]:
    return {(d if isinstance(d, str) else d.doc_id): ("" if isinstance(d, str) else getattr(d, "name", "") or "")
            for d in docs}


def display_title(meta: dict[str, dict], name: str) -> str:
    """What lists show: the title, else the file name."""
    return (meta.get("title") or {}).get("value") or name


def citation_name(meta: dict[str, dict], name: str, limit: int = 80) -> str:
    """How a citation names its document: the project title (short), else the title, else the file name."""
    full = (meta.get("project_title") or {}).get("value") or display_title(meta, name)
    return full if len(full) <= limit else full[: limit - 1].rstrip() + "…"


def parse_year_range(spec: Any) -> tuple[int | None, int | None]:
    """'2010-2020' -> (2010, 2020); '2015' -> (2015, 2015); '2010-' / '-2020' are open ranges."""
    if isinstance(spec, (tuple, list)) and len(spec) == 2:
        lo, hi = spec
        return (int(lo) if lo is not None else None, int(hi) if hi is not None else None)
    s = str(spec).strip().replace("–", "-")
    m = re.fullmatch(r"(\d{4})?\s*(?:-|\.\.|to)?\s*(\d{4})?", s)
    if not s or not m or not (m.group(1) or m.group(2)):
        raise UserError(f"year takes a year or a range such as 2010-2020 (got '{spec}').")
    if not re.search(r"-|\.\.|to", s):
        return int(m.group(1)), int(m.group(1))
    lo, hi = (int(m.group(1)) if m.group(1) else None), (int(m.group(2)) if m.group(2) else None)
    if lo is not None and hi is not None and lo > hi:
        lo, hi = hi, lo
    return lo, hi


FILTER_KEYS = ("lead_agency", "states", "document_type", "process_type", "year", "text", "title", "tag")


def collection_filter(docs: Iterable[Any], where: dict[str, Any], engine: Engine | None = None,
                      metas: dict[str, dict] | None = None) -> list[str]:
    """The ids of ``docs`` (DocInfo or ids, order kept) whose metadata matches every condition of ``where``:
    ``lead_agency`` (case-insensitive substring, or the same agency by abbreviation), ``states`` (any of; list or
    comma-separated), ``document_type`` and ``process_type`` (one or several, case-insensitive), ``year``
    ("2010-2020", "2015", "2010-"), ``text``/``title`` (substring of title, project title, file name, EIS number or
    location) and ``tag`` (any of one or several tags, comma-separated). Unknown values never match a condition."""
    docs = list(docs)
    unknown = [k for k in where if k not in FILTER_KEYS]
    if unknown:
        raise UserError(f"Unknown filter '{unknown[0]}'. Filters: {', '.join(FILTER_KEYS)}.")
    ids = _doc_ids(docs)
    names = _names(docs)
    tags = tags_many(ids, engine) if "tag" in where else {}
    metas = metas if metas is not None else get_many(ids, engine)
    conds = {k: v for k, v in where.items() if v not in (None, "", [], ())}

    agency = str(conds["lead_agency"]).strip().lower() if "lead_agency" in conds else None
    agency_canon = canonical_agency(str(conds["lead_agency"])) if agency else None
    states = set(normalize("states", conds["states"]) or []) if "states" in conds else None
    dtypes = {normalize("document_type", t) for t in _as_list(conds["document_type"])} if "document_type" in conds else None
    ptypes = {normalize("process_type", t) for t in _as_list(conds["process_type"])} if "process_type" in conds else None
    years = parse_year_range(conds["year"]) if "year" in conds else None
    texts = [str(conds[k]).strip().lower() for k in ("text", "title") if k in conds]
    wanted_tags = set(normalize_tags(conds["tag"])) if "tag" in conds else None

    out: list[str] = []
    for doc_id in ids:
        m = {k: v["value"] for k, v in metas.get(doc_id, _empty()).items()}
        if agency is not None:
            lead = str(m.get("lead_agency") or "")
            lead_canon = canonical_agency(lead) if lead else None
            if not lead or not (agency in lead.lower() or (lead_canon and agency in lead_canon.lower())
                                or (agency_canon and lead_canon == agency_canon)):
                continue
        if states is not None and not (states & set(m.get("states") or [])):
            continue
        if dtypes is not None and m.get("document_type") not in dtypes:
            continue
        if ptypes is not None and m.get("process_type") not in ptypes:
            continue
        if years is not None:
            y = year_of(m.get("publish_date"))
            lo, hi = years
            if y is None or (lo is not None and y < lo) or (hi is not None and y > hi):
                continue
        if texts:
            hay = " ".join(str(x or "") for x in (m.get("title"), m.get("project_title"), names.get(doc_id),
                                                   m.get("eis_number"), m.get("location"), doc_id)).lower()
            if not all(t in hay for t in texts):
                continue
        if wanted_tags is not None and not (wanted_tags & set(tags.get(doc_id, []))):
            continue
        out.append(doc_id)
    return out


def parse_where(spec: str) -> dict[str, Any]:
    """'lead_agency=Bureau of Land Management,states=AK,document_type="Final EIS",year=2010-2020' -> dict. A comma
    starts a new condition only before ``key=``; values may be quoted."""
    out: dict[str, Any] = {}
    parts = re.split(r",\s*(?=[a-z_]+\s*=)", (spec or "").strip())
    for part in parts:
        if not part.strip():
            continue
        if "=" not in part:
            raise UserError(f"Filter '{part}' is not key=value. Filters: {', '.join(FILTER_KEYS)}.")
        k, v = part.split("=", 1)
        k, v = k.strip(), v.strip().strip('"').strip("'")
        if k not in FILTER_KEYS:
            raise UserError(f"Unknown filter '{k}'. Filters: {', '.join(FILTER_KEYS)}.")
        out[k] = v
    return out


def cli_metadata(doc_id: str, engine: Engine | None = None, meta: dict[str, dict] | None = None) -> dict[str, dict]:
    """For ``python -m lib docs``: ``{field: {"value": v, "source": s}}`` in FIELDS order (value and source None
    where unknown)."""
    meta = meta if meta is not None else get(doc_id, engine)
    return {k: {"value": meta[k]["value"], "source": meta[k]["source"]} for k in FIELDS}


def _slug_id(prefix: str, text: str) -> str:
    return f"{prefix}-{hashlib.sha1(text.encode('utf-8')).hexdigest()[:12]}"


def export_ceq(docs: Iterable[Any], engine: Engine | None = None) -> dict[str, list[dict]]:
    """The collection in the data standard's JSON shape: ``{"projects", "processes", "documents"}``, linked by
    ``project_id`` and ``process_id``. One project per distinct project title (a document without one is its own
    project), one process per project and process type, one document per indexed PDF. Unknown values are null;
    our ``states`` and ``eis_number`` sit beside the standard's document fields, and each value's source is under
    ``other.metadata_sources``."""
    docs = list(docs)
    ids = _doc_ids(docs)
    names = _names(docs)
    metas = get_many(ids, engine)
    tags = tags_many(ids, engine)
    projects: dict[str, dict] = {}
    processes: dict[str, dict] = {}
    documents: list[dict] = []
    for doc_id in ids:
        meta = metas[doc_id]
        m = {k: v["value"] for k, v in meta.items()}
        ptitle = m.get("project_title")
        pkey = " ".join(str(ptitle).split()).casefold() if ptitle else f"doc:{doc_id}"
        project_id = _slug_id("project", pkey)
        if project_id not in projects:
            projects[project_id] = {
                "project_id": project_id, "project_title": ptitle, "project_description": None,
                "project_sector": None, "project_sponsor": None, "lead_agency": m.get("lead_agency"),
                "participating_agencies": [],
                "location": {"description": m["location"]} if m.get("location") else None,
                "data_source_system": SYSTEM_NAME, "other": {"states": []},
            }
        proj = projects[project_id]
        proj["lead_agency"] = proj["lead_agency"] or m.get("lead_agency")
        if not proj["location"] and m.get("location"):
            proj["location"] = {"description": m["location"]}
        proj["other"]["states"] = sorted(set(proj["other"]["states"]) | set(m.get("states") or []))
        for a in m.get("cooperating_agencies") or []:
            if a not in proj["participating_agencies"]:
                proj["participating_agencies"].append(a)
        ptype = m.get("process_type") or (PROCESS_OF.get(m["document_type"]) if m.get("document_type") else None)
        process_id = f"{project_id}-{(ptype or 'unknown').lower()}"
        if process_id not in processes:
            processes[process_id] = {
                "process_id": process_id, "project_id": project_id, "process_type": ptype, "process_status": None,
                "lead_agency": m.get("lead_agency"), "cooperating_agencies": [],
                "data_source_system": SYSTEM_NAME,
            }
        proc = processes[process_id]
        proc["lead_agency"] = proc["lead_agency"] or m.get("lead_agency")
        for a in m.get("cooperating_agencies") or []:
            if a not in proc["cooperating_agencies"]:
                proc["cooperating_agencies"].append(a)
        documents.append({
            "document_id": doc_id, "process_id": process_id, "document_type": m.get("document_type"),
            "title": m.get("title") or names.get(doc_id) or doc_id, "publish_date": m.get("publish_date"),
            "prepared_by": None, "states": m.get("states") or [], "eis_number": m.get("eis_number"),
            "data_source_system": SYSTEM_NAME,
            "other": {"file_name": names.get(doc_id) or None, "tags": tags[doc_id],
                      "title_is_file_name": not m.get("title"),
                      "metadata_sources": {k: v["source"] for k, v in meta.items() if v["source"]}},
        })
    for d in documents:
        _conform_document(d)
    for kind, rows in (("project", projects.values()), ("process", processes.values()), ("document", documents)):
        for row in rows:
            _drop_unknown(row, REQUIRED[kind])
    return {"projects": list(projects.values()), "processes": list(processes.values()), "documents": documents}


# What the standard's JSON schema (GSA-TTS pic-standards, nepa.schema.json v1) requires of each entity, and the
# document types its enum allows. Unknown values are left out rather than written as null (null is not of the
# types the schema declares); the names of required fields we could not fill go under other.missing_required, so
# a loader sees at once what a person still has to supply.
REQUIRED = {
    "project": ("project_id", "project_title", "project_description", "project_sector", "project_sponsor",
                "lead_agency", "location"),
    "process": ("process_id", "project_id", "process_type", "process_status", "lead_agency"),
    "document": ("document_id", "process_id", "document_type", "title", "prepared_by"),
}
STANDARD_DOCUMENT_TYPES = ("NOI", "Draft EIS", "Final EIS", "ROD")
_FULL_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _conform_document(d: dict) -> None:
    """Our richer document types and partial dates, put where the standard's enum and date format allow."""
    other = d.setdefault("other", {})
    dtype = d.get("document_type")
    if dtype and dtype not in STANDARD_DOCUMENT_TYPES:
        other["document_type"] = dtype  # the type as we know it, always kept
        base = dtype.replace("Supplemental ", "").replace("Programmatic ", "")
        if base in STANDARD_DOCUMENT_TYPES:
            d["document_type"] = base
            if dtype.startswith("Supplemental"):
                d["document_revision"] = "Supplemental"
            if dtype.startswith("Programmatic"):
                other["programmatic"] = True
        else:  # EA, FONSI: documents the standard's enum does not list
            d["document_type"] = None
    date = d.get("publish_date")
    if date and not _FULL_DATE.match(str(date)):
        other["publish_date"] = date  # a year or a month: not a full date, kept beside
        d["publish_date"] = None


def _drop_unknown(row: dict, required: tuple[str, ...]) -> None:
    for key in [k for k, v in row.items() if v is None]:
        del row[key]
    missing = [k for k in required if k not in row]
    if missing:
        row.setdefault("other", {})["missing_required"] = missing

"""The metadata fields, their vocabularies (document and process types, states, federal agencies) and the
rules a value must follow to be stored (``normalize``); the standard behind them is described in
lib/documents/metadata/__init__.py."""
from __future__ import annotations

import dataclasses
import datetime as _dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lib.core.errors import UserError

FIELDS: tuple[str, ...] = (
    "title", "project_title", "lead_agency", "cooperating_agencies", "prepared_by", "process_type", "document_type",
    "volume_title", "publish_date", "location", "states", "eis_number",
)
LIST_FIELDS = frozenset({"cooperating_agencies", "states"})
FIELD_LABELS = {  # plain words on the pages; the standard's names stay in the CLI, the export and the help text
    "title": "Title", "project_title": "Project", "lead_agency": "Lead agency",
    "cooperating_agencies": "Cooperating agencies", "prepared_by": "Prepared by", "process_type": "Review type (EIS, EA, CE)",
    "document_type": "Document type", "volume_title": "Volume", "publish_date": "Published", "location": "Location", "states": "States",
    "eis_number": "EIS number",
}
TAGS = "tags"  # a person's own labels ("caribou", "Alaska LNG"): stored beside the fields, not a field of the standard
MAX_TAGS = 50
MAX_TAG_CHARS = 60
SOURCES: tuple[str, ...] = ("pdf_metadata", "cover_text", "body_text", "model", "person")

Value = str | list[str] | None  # a field's value: text, names or codes (a list), or nothing known


@dataclass(frozen=True)
class FieldValue:
    """One metadata field of one document: its value; where it came from (``SOURCES``); for the rules, how sure
    they were and where they read it (``{"page": 3, "line": 2, "rule": …}`` or ``{"property": "Author", …}``);
    and, beside a person's value, what the rules read instead (``extracted``)."""

    value: Value = None
    source: str | None = None
    confidence: float | None = None
    evidence: dict[str, Any] | None = None
    extracted: FieldValue | None = None

    def as_json(self) -> dict[str, Any]:
        """As stored and printed: value, source, confidence, evidence (``extracted`` apart, see ``cli_metadata``)."""
        return {"value": self.value, "source": self.source, "confidence": self.confidence,
                "evidence": None if self.evidence is None else dict(self.evidence)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FieldValue:
        return cls(data.get("value"), data.get("source"), data.get("confidence"), data.get("evidence"))

    def but(self, **changes: Any) -> FieldValue:
        """A copy with ``changes`` (the evidence copied, so the copy's may be added to)."""
        return dataclasses.replace(self, **({"evidence": dict(self.evidence or {})} | changes))


def value_of(meta: Mapping[str, FieldValue] | None, key: str) -> Value:
    """A field's value in one document's metadata; None where the field, or the metadata, is not there."""
    found = (meta or {}).get(key)
    return found.value if found is not None else None


def text_of(meta: Mapping[str, FieldValue] | None, key: str) -> str:
    """A field's value as text: a list joined with ", "; "" where there is none."""
    v = value_of(meta, key)
    return ", ".join(v) if isinstance(v, list) else ("" if v in (None, "") else str(v))


def list_of(meta: Mapping[str, FieldValue] | None, key: str) -> list[str]:
    """A list field's items (one item for a text value); [] where there is none."""
    v = value_of(meta, key)
    return list(v) if isinstance(v, list) else ([v] if v else [])
SOURCE_LABELS = {"pdf_metadata": "PDF metadata", "cover_text": "cover text", "body_text": "read from the body",
                 "model": "model", "person": "person"}
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
for _stage in ("Draft", "Final"):  # "Final Programmatic EIS" (the cover's order) and "Programmatic Final EIS"
    for _kind in ("Supplemental", "Programmatic"):
        for _eis in ("EIS", "Environmental Impact Statement"):
            _DOC_TYPE_ALIASES[f"{_stage} {_kind} {_eis}".lower()] = f"{_kind} {_stage} EIS"
            _DOC_TYPE_ALIASES[f"{_kind} {_stage} {_eis}".lower()] = f"{_kind} {_stage} EIS"
MAX_VALUE_CHARS = 500

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
    ("U.S. Marine Corps", ("USMC",), ("United States Marine Corps", "Marine Corps"), "Department of the Navy"),
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
    ("Pipeline and Hazardous Materials Safety Administration", ("PHMSA",), (), "Department of Transportation"),
    ("National Highway Traffic Safety Administration", ("NHTSA",), (), "Department of Transportation"),
    ("Department of Energy", ("DOE",), (), None),
    ("National Nuclear Security Administration", ("NNSA",), (), "Department of Energy"),
    ("Bonneville Power Administration", ("BPA",), (), "Department of Energy"),
    ("Western Area Power Administration", ("WAPA",), (), "Department of Energy"),
    ("Federal Energy Regulatory Commission", ("FERC",), (), None),
    ("Nuclear Regulatory Commission", ("NRC",), (), None),
    ("Environmental Protection Agency", ("EPA", "USEPA"), (), None),
    ("Department of Commerce", ("DOC",), (), None),
    ("National Telecommunications and Information Administration", ("NTIA",), (), "Department of Commerce"),
    ("First Responder Network Authority", ("FirstNet",), (), "National Telecommunications and Information Administration"),
    ("National Oceanic and Atmospheric Administration", ("NOAA",), (), "Department of Commerce"),
    ("National Marine Fisheries Service", ("NMFS",), ("NOAA Fisheries",), "National Oceanic and Atmospheric Administration"),
    ("Department of Homeland Security", ("DHS",), (), None),
    ("U.S. Customs and Border Protection", ("CBP",), ("Customs and Border Protection",), "Department of Homeland Security"),
    ("Federal Emergency Management Agency", ("FEMA",), (), "Department of Homeland Security"),
    ("U.S. Coast Guard", ("USCG",), ("Coast Guard",), "Department of Homeland Security"),
    ("Department of Housing and Urban Development", ("HUD",), (), None),
    ("Department of Justice", ("DOJ",), (), None),
    ("Federal Bureau of Prisons", ("BOP",), ("Bureau of Prisons",), "Department of Justice"),
    ("Department of Health and Human Services", ("HHS",), (), None),
    ("Indian Health Service", ("IHS",), (), "Department of Health and Human Services"),
    ("National Science Foundation", ("NSF",), (), None),
    ("U.S. Postal Service", ("USPS",), ("United States Postal Service", "Postal Service"), None),
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


def words_pattern(name: str) -> str:
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
    pat = re.compile(prefix + "(" + "|".join(words_pattern(a) for a in alts) + r")\b", re.IGNORECASE)
    return pat, spellings


AGENCY_NAME_RE, _AGENCY_SPELLINGS = _agency_name_regex()
_STATE_BEFORE = re.compile(r"(?:(?:State\s+of\s+)?(?:" + "|".join(sorted(
    (words_pattern(n) for n in STATES.values()), key=len, reverse=True)) + r")(?:[ \t]+State)?"
    # a city's or a county's own department: "City of Austin Department of Transportation", "Harris County …"
    r"|(?:City|County|Town|Village|Borough|City\s+and\s+County)\s+of\s+[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*){0,3}"
    r"|[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*){0,2}\s+(?:County|Parish|City|Borough))[ \t]+$", re.IGNORECASE)
_AGENCY_ABBR = {abbr: a[0] for a in _AGENCY_TABLE for abbr in a[1]}
AGENCY_ABBR_RE = re.compile(r"(?<![A-Za-z0-9])(" + "|".join(sorted(_AGENCY_ABBR, key=len, reverse=True)) + r")(?![A-Za-z])")


def find_agencies(text: str) -> list[tuple[int, str, bool]]:
    """(position, canonical name, by full name?) for every known agency in ``text``, names before abbreviations."""
    found: list[tuple[int, str, bool]] = []
    taken: list[tuple[int, int]] = []
    for m in AGENCY_NAME_RE.finditer(text):
        canonical = _AGENCY_SPELLINGS.get(_agency_key(m.group(1)))
        if _STATE_BEFORE.search(text[max(0, m.start() - 40):m.start()]):
            taken.append(m.span())  # "Arizona Department of Transportation": a state's agency, not the federal one
            continue
        if canonical:
            found.append((m.start(), canonical, True))
            taken.append(m.span())
    for m in AGENCY_ABBR_RE.finditer(text):
        if not any(a <= m.start() < b for a, b in taken):
            found.append((m.start(), _AGENCY_ABBR[m.group(1)], False))
    return sorted(found)


def canonical_agency(text: str) -> str | None:
    """The canonical name of the one known agency ``text`` names (most specific where a department and its
    sub-agency are both named), else None."""
    return pick_lead(find_agencies(text))


def pick_lead(found: list[tuple[int, str, bool]]) -> str | None:
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


def parent_of(name: str) -> str | None:
    """The department or agency directly above a known agency ("Forest Service" -> "Department of Agriculture")."""
    return _PARENT.get(name)


_FILLER = frozenset(["the", "and", "of", "u", "s", "us", "united", "states", "department", "dept", "agency", "office"])


def entry_agencies(text: str) -> list[str] | None:
    """The agencies one list entry names, most specific first-sorted (a department written with its own
    sub-agency is the sub-agency); None where the entry also names something the vocabulary does not know
    ("Nye County Board of Commissioners, Bureau of Land Management") or no agency at all."""
    named = {c for _, c, _ in find_agencies(text)}
    above = {a for c in named for a in ancestors_of(c)}
    rest = AGENCY_ABBR_RE.sub(" ", AGENCY_NAME_RE.sub(" ", text))
    if not named or any(len(w) > 2 and w.lower() not in _FILLER for w in re.findall(r"[A-Za-z]+", rest)):
        return None
    return sorted(named - above)


def ancestors_of(name: str) -> set[str]:
    """The departments and agencies above a known agency ("Forest Service" -> {"Department of Agriculture"})."""
    out: set[str] = set()
    p = _PARENT.get(name)
    while p:
        out.add(p)
        p = _PARENT.get(p)
    return out


def state_code(name: str) -> str | None:
    key = " ".join(name.replace(",", " ").split()).lower()
    if key.startswith("washington") and ("d.c" in key or key.endswith(" dc")):
        return "DC"
    return _STATE_BY_NAME.get(key) or _STATE_BY_NAME.get(key.removeprefix("u.s. "))


def as_list(value: object) -> list[str]:
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
        for item in as_list(value):
            code = item.upper() if item.upper() in STATES else state_code(item)
            if not code:
                raise UserError(f"'{item}' is not a U.S. state or territory: use two-letter USPS codes such as "
                                "AK, MI, NY, DC or PR (or full names), separated by commas.")
            codes.append(code)
        return sorted(set(codes))
    if key == "cooperating_agencies":
        items = [i[:200] for i in as_list(value)]
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


def year_of(publish_date: object) -> int | None:
    m = re.match(r"(\d{4})", str(publish_date or ""))
    return int(m.group(1)) if m else None

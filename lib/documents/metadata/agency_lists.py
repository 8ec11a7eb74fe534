"""Agency names in the lists a cover gives ("Cooperating Agencies: …", "Prepared by: …"): each entry one
organisation, a known agency by its canonical name, a department kept with its own sub-agency beside it."""
from __future__ import annotations

import re

from lib.documents.metadata.fields import AGENCY_ABBR_RE, AGENCY_NAME_RE, ancestors_of, find_agencies
from lib.documents.metadata.patterns import LABEL_LINE, ZIP_LINE, find_date


def is_agency_line(s: str) -> bool:
    return bool(find_agencies(s)) and len(s) < 120


SUB_UNIT = re.compile(r"^(?:the\s+)?(?:office|division|directorate)\s+of\b|^\S+(?:\s+\S+)?\s+(?:district|region|wing|"
                       r"office|division|sector|command|center|centre|headquarters)\s*$", re.IGNORECASE)


NO_LIST = re.compile(r"^\s*(?:none|n/?a|not\s+applicable|tbd|to\s+be\s+determined|see\b.*|pending)\.?\s*$",
                      re.IGNORECASE)
ORGANISATION = re.compile(r"\b(?:department|agency|service|bureau|commission|administration|authority|office|council|"
                           r"county|city|town|tribe|tribal|nation|pueblo|band|board|corps|district|division|survey|"
                           r"institute|state|commonwealth|government|parks?|game|fish|wildlife|conservation|"
                           r"environmental|protection|water|natural\s+resources|port|forest|navy|army|air\s+force|"
                           r"guard|coast|marine|highway|transportation|railroad|regional|metropolitan|university|"
                           r"rancheria|reservation|indians|community|village|association|corporation|committee)\b",
                           re.IGNORECASE)


def split_agencies(value: str) -> list[str]:
    """Canonical names for known agencies; other organisations as written; nothing for "None" or text that
    names no organisation."""
    out: list[str] = []
    if NO_LIST.match(value):
        return out
    value = re.sub(r"\s*[·•|]\s*", "; ", value)  # bullets between names
    value = re.sub(r"\s*(?:[-‐–—_=]\s*){2,}", "; ", value)  # a run of dashes or rules between two names
    items = value.split(";") if ";" in value else value.split(",")
    for item in items:
        item = item.strip().strip(".;, ")
        if sum(ch.isalpha() for ch in item) < 3:
            continue
        found = find_agencies(item)
        if found:
            out += [c for _, c, _ in found]
            rest = AGENCY_ABBR_RE.sub(" ", AGENCY_NAME_RE.sub(" ", item))
            rest = re.sub(r"\b(?:and|the|U\.?S\.?)\b|[&()]", " ", rest, flags=re.IGNORECASE)
            rest = " ".join(rest.split()).strip(" ,;:-‐–—")
            if len(rest.split()) >= 2 and not SUB_UNIT.search(rest):
                out.append(rest)
        elif out and SUB_UNIT.search(item):
            continue  # "U.S. Army Corps of Engineers, St. Paul District": the office of the agency before it
        else:
            item = re.sub(r"^(?:and|&)\s+", "", item, flags=re.IGNORECASE)
            if 3 <= len(item) <= 150 and ORGANISATION.search(item) and not NO_LIST.match(item):
                out.append(" ".join(item.split()))
    return list(dict.fromkeys(with_departments(out)))


def with_departments(names: list[str]) -> list[str]:
    """Agencies in the order the cover names them, a department kept with its own sub-agency written next to it
    ("U.S. Department of Agriculture — Forest Service", whichever comes first, whatever stands between them: a
    dash, a bullet, a comma or a line break)."""
    out: list[str] = []
    i = 0
    while i < len(names):
        a = names[i]
        b = names[i + 1] if i + 1 < len(names) else None
        if b is not None and (a in ancestors_of(b) or b in ancestors_of(a)):
            dept, unit = (a, b) if a in ancestors_of(b) else (b, a)
            out.append(f"{'U.S. ' if dept.startswith('Department') else ''}{dept} — {unit}")
            i += 2
            continue
        out.append(a)
        i += 1
    return out


_PREPARED_BY = re.compile(r"^[ \t]*prepared\s+by\b[ \t]*:?[ \t]*(.*)$", re.IGNORECASE | re.MULTILINE)
MAX_PREPARED_LINES = 3  # an office, its agency and its department at most; an address or a date ends it


def prepared_by(text: str) -> tuple[str, int] | None:
    """Who prepared the document, from a "Prepared by:" label on a line of its own and the lines that continue
    it (a line ending in a comma, or a known agency's name), stopped by an address, a date or another label; and
    where the label starts. None where no label is found, or what follows names no organisation ("Prepared for
    NASA by" is not read: whom a contractor worked for is not who prepared it)."""
    m = _PREPARED_BY.search(text)
    if not m:
        return None
    first = re.sub(r"^the\s+", "", m.group(1).strip(), flags=re.IGNORECASE)
    parts = [first] if first else []
    for line in text[m.end():].split("\n")[1:MAX_PREPARED_LINES + 1]:
        s = line.strip()
        if not s or LABEL_LINE.match(s) or find_date(s) or ZIP_LINE.search(s) or re.search(r"\d{3,}", s):
            break
        if not parts or parts[-1].endswith(",") or is_agency_line(s):
            parts.append(s)
            continue
        break
    value = ", ".join(p.strip().rstrip(",;") for p in parts)
    if not value or len(value) > 150 or NO_LIST.match(value) or not (find_agencies(value) or ORGANISATION.search(value)):
        return None
    return value, m.start()

"""Agency names in the lists a cover gives ("Cooperating Agencies: …", "Prepared by: …"): each entry one
organisation, a known agency by its canonical name, a department kept with its own sub-agency beside it."""
from __future__ import annotations

import re
from itertools import takewhile

from lib.documents.metadata.fields import AGENCY_ABBR_RE, AGENCY_NAME_RE, find_agencies, parent_of
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
            out += with_departments([c for _, c, _ in found])  # within one entry only
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
    return list(dict.fromkeys(out))


def with_departments(names: list[str]) -> list[str]:
    """The agencies one entry names, in order, a department kept with its own sub-agency written next to it in
    that entry ("U.S. Department of Agriculture — Forest Service", whichever comes first). Only a direct parent:
    "Department of Defense" beside the Corps of Engineers (under the Army) stays two names."""
    out: list[str] = []
    i = 0
    while i < len(names):
        a = names[i]
        b = names[i + 1] if i + 1 < len(names) else None
        if b is not None and (parent_of(b) == a or parent_of(a) == b):
            dept, unit = (a, b) if parent_of(b) == a else (b, a)
            out.append(f"{'U.S. ' if dept.startswith('Department') else ''}{dept} — {unit}")
            i += 2
            continue
        out.append(a)
        i += 1
    return out


# "Prepared by:" (any case) with its value on the line, or "Prepared by" alone on its line: never a sentence that
# wraps onto a line beginning "prepared by the Bureau … to evaluate …"
_PREPARED_BY = re.compile(r"^[ \t]*prepared\s+by[ \t]*(?::[ \t]*(.*)|$)", re.IGNORECASE | re.MULTILINE)
MAX_PREPARED_LINES = 3  # an office, its agency and its department at most; an address or a date ends it
# what names an organisation (beside the agency vocabulary): a firm's or an office's own word
_ORG_WORD = re.compile(r"\b(?:Inc|LLC|L\.L\.C|LLP|Ltd|Corporation|Corp|Company|Co|Group|Associates|Consultants?|"
                       r"Consulting|Engineers|Engineering|Office|District|Division|Command|Center|Centre|Service|"
                       r"Agency|Bureau|Administration|Commission|Authority|Department|Region|Laboratory|University)\b")
_ADDRESS_PART = re.compile(r"\d{3,}|\b(?:Street|St|Avenue|Ave|Road|Rd|Drive|Dr|Boulevard|Blvd|Suite|P\.?O\.? Box)\b\.?")


def prepared_by(text: str) -> tuple[str, int] | None:
    """Who prepared the document, from a "Prepared by:" label and the lines that continue it (a line ending in a
    comma, or a known agency's name), cut at an address, a date or another label; and where the label starts.
    None where no label is found, or the value is not an organisation's name (a person, a sentence). "Prepared for
    NASA by" is not read: whom a contractor worked for is not who prepared it."""
    m = _PREPARED_BY.search(text)
    if not m:
        return None
    parts: list[str] = []
    lines = [m.group(1) or "", *text[m.end():].split("\n")[1:MAX_PREPARED_LINES + 1]]
    for n, line in enumerate(lines):
        s = line.strip()
        if n == 0:  # the label's own line: its value, cut where an address begins
            pieces = s.split(",")
            kept = list(takewhile(lambda p: not (_ADDRESS_PART.search(p) or ZIP_LINE.search(p)), pieces))
            if ",".join(kept).strip():
                parts.append(",".join(kept).strip())
            if len(kept) < len(pieces):
                break
            continue
        if not s or LABEL_LINE.match(s) or find_date(s) or ZIP_LINE.search(s) or _ADDRESS_PART.search(s):
            break
        if parts and not (parts[-1].endswith(",") or is_agency_line(s)):
            break
        parts.append(s)
    value = ", ".join(p.strip().rstrip(",;").strip() for p in parts if p.strip().rstrip(",;").strip())
    if not value or len(value) > 150 or NO_LIST.match(value) or not value[:1].isupper():
        return None
    if not (find_agencies(value) or _ORG_WORD.search(value)):
        return None  # "Jane Doe, Wildlife Biologist" names a person, not who prepared the document
    return value, m.start()

"""A document's metadata in plain words for the Documents page: each field's value (or "not found — fill or
edit"), its source, where it was read, the rules' confidence, and where a person's value and the document now
disagree."""
from __future__ import annotations

from lib.documents.metadata.fields import FIELD_LABELS, FIELDS, SOURCE_LABELS, FieldValue
from lib.documents.metadata.records import Metadata

NOT_FOUND = "not found — fill or edit"


def shown(value: object) -> str:
    if value is None or value == []:
        return ""
    return ", ".join(value) if isinstance(value, list) else str(value)


def where(evidence: dict | None) -> str:
    """ "p. 3, lines 2–4 · title page, largest type", "PDF property Author", "model openai/gpt-4o-mini", or ""."""
    if not evidence:
        return ""
    if "model" in evidence:
        return f"model {evidence['model']}"
    if "property" in evidence:
        return f"PDF property {evidence['property']}"
    if "page" in evidence:
        first, last = evidence.get("line", "?"), evidence.get("to_line")
        text = f"p. {evidence['page']}, " + (f"lines {first}–{last}" if last and last != first else f"line {first}")
        text = f"{text} · {evidence['rule']}" if evidence.get("rule") else text
        return f"{text}: “{evidence['quote']}”" if evidence.get("quote") else text
    return ""


def rows(meta: Metadata) -> list[dict]:
    """One row per field: field (plain label), value, source, where, confidence, and the standard's name."""
    out = []
    for k in FIELDS:
        m = meta.get(k) or FieldValue()
        value = shown(m.value)
        conf = m.confidence
        out.append({
            "field": FIELD_LABELS.get(k, k),
            "value": value or (NOT_FOUND if m.source != "person" else "(cleared by a person)"),
            "source": SOURCE_LABELS.get(m.source or "", "—"),
            "where": where(m.evidence),
            "confidence": f"{conf:.2f}" if isinstance(conf, (int, float)) else "",
            "name in the standard": k,
        })
    return out


def from_the_body(meta: Metadata) -> list[str]:
    """A sentence for each value read from the body, quoting the sentence it was read from (a table cell cuts it)."""
    out = []
    for k in FIELDS:
        m = meta.get(k) or FieldValue()
        ev = m.evidence or {}
        if m.source == "body_text" and ev.get("quote"):
            out.append(f"{FIELD_LABELS.get(k, k)} ({shown(m.value)}) read from the body, p. {ev.get('page', '?')}: "
                       f"“{ev['quote']}”")
    return out


def disagreements(meta: Metadata) -> list[str]:
    """A sentence for each field a person set where the rules now read something else."""
    out = []
    for k in FIELDS:
        m = meta.get(k) or FieldValue()
        seen = m.extracted
        if m.source == "person" and seen:
            place = where(seen.evidence)
            out.append(f"{FIELD_LABELS.get(k, k)}: kept your value '{shown(m.value) or '(empty)'}'; the "
                       f"document now reads '{shown(seen.value)}'" + (f" ({place})." if place else "."))
    return out

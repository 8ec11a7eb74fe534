"""A connected model fills the metadata fields the rules left empty or found with low confidence, from the first
pages' text and the PDF's properties, with structured output (its prompt is in lib/models/prompts.py); what it gives
is checked like a person's input and stored with source ``model``."""
from __future__ import annotations

import datetime as _dt
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import and_, insert, select
from sqlalchemy import delete as _sa_delete
from sqlalchemy.engine import Engine

from lib.core.access import Action, authorize
from lib.core.errors import UserError
from lib.documents.metadata.evidence import SURE
from lib.documents.metadata.extraction import COVER_PAGES
from lib.documents.metadata.fields import DOCUMENT_TYPES, LIST_FIELDS, PROCESS_TYPES, normalize
from lib.documents.metadata.records import RULE_SOURCES, get, require_document, unsure
from lib.models import prompts
from lib.models.base import Provider, ProviderError, Request
from lib.storage import tables
from lib.storage.audit import guarded
from lib.storage.engine import get_engine

_FIELD_HELP = {
    "title": "the document's full title as printed on its cover",
    "project_title": "the project's name, without document-type words such as 'Final Environmental Impact Statement'",
    "lead_agency": "the federal lead agency",
    "cooperating_agencies": "a list of the cooperating agencies' names",
    "prepared_by": "who prepared the document (an agency's office, or a contractor), as printed after 'Prepared by'",
    "process_type": "one of " + ", ".join(PROCESS_TYPES),
    "document_type": "one of " + ", ".join(DOCUMENT_TYPES),
    "publish_date": "the publication date as YYYY-MM-DD, YYYY-MM or YYYY",
    "location": "the project's location in words (place, county, state)",
    "states": "a list of two-letter USPS codes of the states or territories where the project is",
    "eis_number": "the EIS number printed on the document (CEQ/EPA number such as 20170012, or an agency number "
                  "such as DOE/EIS-0250)",
}


_PROPERTIES = ("title", "author", "subject", "keywords", "creationDate")


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


def schema_for(fields: list[str]) -> dict:
    """The JSON schema of a reply with exactly ``fields`` (strict: every key required, null allowed, no others)."""
    props = {k: ({"type": ["array", "null"], "items": {"type": "string"}} if k in LIST_FIELDS else
                 {"type": ["string", "null"]}) | {"description": _FIELD_HELP[k]} for k in fields}
    return {"type": "object", "properties": props, "required": list(fields), "additionalProperties": False}


def _check_type(key: str, value: object) -> str | None:
    """Why a value has the wrong type for its field (the schema's types), or None."""
    if key in LIST_FIELDS:
        if isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            return None
        return f"{key} must be a list of names, not {type(value).__name__}"
    if isinstance(value, str):
        return None
    return f"{key} must be text, not {type(value).__name__}"


@dataclass(frozen=True)
class FillResult:
    """What a model's fill did: the fields asked, the values stored (field → value), those refused (field →
    reason) and the keys it gave that were not asked for."""

    filled: dict[str, Any] = field(default_factory=dict)
    rejected: dict[str, str] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)
    asked: list[str] = field(default_factory=list)


def fill_with_model(doc_id: str, model: Provider, pages_text: str | Iterable[str], engine: Engine | None = None,
                    properties: dict | None = None) -> FillResult:
    """Ask a connected model for the fields that are empty or that the rules found with low confidence (below
    ``SURE``), from the first pages' text and the PDF's properties, with structured output (a JSON schema or a
    forced tool call where the model has one; a JSON reply otherwise). What it gives is checked like a person's
    input and stored with source ``model``; a person's value is never changed."""
    authorize(Action.EDIT_METADATA, doc_id)
    if not model.judges_reliably:
        raise UserError(f"{model.label or model.id} cannot fill metadata "
                        "reliably: configure a connected model (OpenAI, Anthropic, an OpenAI-compatible server or a "
                        "larger local GGUF model) and choose it.")
    current = get(doc_id, engine)
    # a volume's title is the cover's or a person's: asked of a model, most documents (no volume) would get one made up
    asked = [k for k in unsure(current) if k in _FIELD_HELP]
    if not asked:
        return FillResult()
    pages = [pages_text] if isinstance(pages_text, str) else list(pages_text)
    text = "\n\n".join(p for p in pages[:COVER_PAGES] if p and p.strip())
    if not text.strip():
        raise UserError("This document has no text on its first pages to read metadata from.")
    props = "\n".join(f"{k}: {' '.join(str(v).split())[:300]}" for k, v in (properties or {}).items()
                      if k in _PROPERTIES and isinstance(v, str) and v.strip()) or "(none)"
    budget_tokens = max(500, int(getattr(model, "context_window", 4096)) - 900)
    count = getattr(model, "count_tokens", lambda s: (len(s) + 3) // 4)
    while count(text) > budget_tokens and len(text) > 2000:
        text = text[: int(len(text) * 0.8)]
    wanted = "\n".join(f'- "{k}": {_FIELD_HELP[k]}' for k in asked)
    req = Request(prompt=prompts.METADATA_FILL.format(fields=wanted, properties=props, pages=text),
                  system=prompts.METADATA_SYSTEM, max_tokens=600, schema=schema_for(asked),
                  schema_name="document_metadata")
    try:
        answer = model.generate(req)
    except ProviderError as exc:  # the server's failure, not the user's mistake: kept as such (CLI: exit 1)
        raise ProviderError(f"The model call failed: {exc}") from exc
    obj = answer.extra.get("structured") if isinstance(answer.extra.get("structured"), dict) else None
    if obj is None:
        try:
            obj = _parse_json_object(answer.text)
        except (ValueError, json.JSONDecodeError):  # the model's failure, not the user's mistake (CLI: exit 1)
            failed = (f"its reply was cut at {req.max_tokens} tokens before the JSON object ended" if answer.cut
                      else "it did not reply with a JSON object")
            raise ProviderError(f"The model could not fill the metadata: {failed}; nothing was changed. Try again or "
                                "choose another model.") from None
    filled: dict[str, Any] = {}
    rejected: dict[str, str] = {}
    ignored = sorted(k for k in obj if k not in asked)  # a field it invented, or one it was not asked for
    for key in asked:
        if key not in obj or obj[key] in (None, "", [], "null"):
            continue
        why = _check_type(key, obj[key])
        if why:
            rejected[key] = why
            continue
        try:
            value = normalize(key, obj[key])
        except UserError as exc:
            rejected[key] = str(exc)
            continue
        if value is not None and value != current[key].value:
            filled[key] = value
    if filled:
        t = tables.doc_metadata
        now = _dt.datetime.now(_dt.UTC).replace(tzinfo=None)
        evidence = json.dumps({"model": getattr(model, "id", "?"), "rule": "a connected model read the first pages"})
        with guarded(Action.EDIT_METADATA, doc_id, f"filled by {getattr(model, 'id', '?')}: {', '.join(filled)}",
                     engine), (engine or get_engine()).begin() as c:
            require_document(c, doc_id)
            rows = {r.key: r for r in c.execute(select(t.c.key, t.c.value, t.c.source, t.c.confidence)
                                                .where(t.c.doc_id == doc_id))}
            for key in list(filled):
                r = rows.get(key)
                weak_rule = r is not None and r.source in RULE_SOURCES and (r.confidence or 0) < SURE
                if r is not None and not weak_rule and (r.source == "person" or r.value not in (None, "null", "[]", '""')):
                    filled.pop(key)  # someone filled it meanwhile: theirs stays
                    continue
                if r is not None:
                    c.execute(_sa_delete(t).where(and_(t.c.doc_id == doc_id, t.c.key == key)))
                c.execute(insert(t).values(doc_id=doc_id, key=key, value=json.dumps(filled[key]), source="model",
                                           updated_at=now, evidence=evidence))
    return FillResult(filled, rejected, ignored, asked)

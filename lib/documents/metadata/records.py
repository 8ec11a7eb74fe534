"""Stored metadata: each document's field values with their source, and its tags, read and written in the
SQL store. A person's value is never overwritten by extraction or a model."""
from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from sqlalchemy import and_, insert, select, update
from sqlalchemy import delete as _sa_delete
from sqlalchemy.engine import Connection, Engine

from lib.core.access import Action
from lib.core.errors import UserError
from lib.documents.metadata.evidence import SURE
from lib.documents.metadata.fields import (
    FIELDS,
    MAX_TAG_CHARS,
    MAX_TAGS,
    SOURCES,
    TAGS,
    FieldValue,
    as_list,
    normalize,
)
from lib.storage import tables
from lib.storage.audit import guarded
from lib.storage.engine import get_engine

Metadata = dict[str, FieldValue]  # one document's fields, every one of FIELDS, in that order


def empty_record() -> Metadata:
    return {k: FieldValue() for k in FIELDS}


RULE_SOURCES = ("pdf_metadata", "cover_text", "body_text")  # what the rules read (a new reading replaces it)


def _json(v: object) -> str | None:
    return json.dumps(v) if v is not None else None


def save_extracted(conn: Connection, doc_id: str, fields: dict[str, FieldValue]) -> None:
    """Write extracted values inside the caller's transaction (a SQLAlchemy connection). A value a person set is
    kept, and where the rules now read something else, that reading is kept beside it (``extracted``) so the page
    can say so. A model's value is replaced only by a reading the rules are sure of (``SURE``); every other field
    is replaced by what the rules found now (or removed when they found nothing)."""
    t = tables.doc_metadata
    rows = {r.key: r for r in conn.execute(select(t.c.key, t.c.value, t.c.source).where(t.c.doc_id == doc_id))}
    clean: dict[str, tuple[Any, FieldValue]] = {}
    for key, item in fields.items():
        if key not in FIELDS or item.source not in RULE_SOURCES:
            continue
        try:
            value = normalize(key, item.value)
        except UserError:  # a value the rules should not have produced: left out, the ingest goes on
            continue
        if value is not None:
            clean[key] = (value, item)
    person = {k for k, r in rows.items() if r.source == "person"}
    stale = [k for k, r in rows.items() if r.source in RULE_SOURCES and k not in clean]
    if stale:
        conn.execute(_sa_delete(t).where(and_(t.c.doc_id == doc_id, t.c.key.in_(stale))))
    now = _dt.datetime.now(_dt.UTC).replace(tzinfo=None)
    for key in person:
        reading = clean.get(key)
        theirs = json.loads(rows[key].value) if rows[key].value is not None else None
        note = (replace(reading[1], value=reading[0]).as_json()
                if reading is not None and reading[0] != theirs else None)
        conn.execute(update(t).where(and_(t.c.doc_id == doc_id, t.c.key == key)).values(extracted=_json(note)))
    for key, (value, item) in clean.items():
        if key in person:
            continue
        if key in rows and rows[key].source == "model" and (item.confidence or 0) < SURE:
            continue  # a model filled what the rules were unsure of; an unsure reading again does not undo it
        row = {"value": json.dumps(value), "source": item.source, "updated_at": now,
               "confidence": item.confidence, "evidence": _json(item.evidence), "extracted": None}
        if key in rows and key not in stale:  # a model's value is replaced by one the document itself prints
            conn.execute(update(t).where(and_(t.c.doc_id == doc_id, t.c.key == key, t.c.source != "person"))
                         .values(**row))  # a person's save that landed meanwhile stays
        else:
            conn.execute(insert(t).values(doc_id=doc_id, key=key, **row))


def get_many(doc_ids: Iterable[str], engine: Engine | None = None) -> dict[str, Metadata]:
    """``{doc_id: {field: FieldValue}}`` with every field present for every id asked for. ``confidence`` and ``evidence`` say how the rules found a value (None for a person's);
    ``extracted`` is the rules' own reading where it differs from a person's value."""
    ids = list(dict.fromkeys(doc_ids))
    out = {d: empty_record() for d in ids}
    if not ids:
        return out
    t = tables.doc_metadata
    with (engine or get_engine()).connect() as c:
        rows = c.execute(select(t.c.doc_id, t.c.key, t.c.value, t.c.source, t.c.confidence, t.c.evidence,
                                t.c.extracted).where(t.c.doc_id.in_(ids))).fetchall()
    for r in rows:
        if r.key in FIELDS and r.doc_id in out:
            out[r.doc_id][r.key] = FieldValue(
                json.loads(r.value) if r.value is not None else None, r.source, r.confidence,
                json.loads(r.evidence) if r.evidence else None,
                FieldValue.from_json(json.loads(r.extracted)) if r.extracted else None)
    return out


def get(doc_id: str, engine: Engine | None = None) -> Metadata:
    """``{field: FieldValue}`` for every field of FIELDS, in that order; a field's parts are None where nothing is
    known."""
    return get_many([doc_id], engine)[doc_id]


def require_document(c: Any, doc_id: str) -> None:
    if c.execute(select(tables.documents.c.doc_id).where(tables.documents.c.doc_id == doc_id)).first() is None:
        raise UserError(f"No indexed document with id '{doc_id}'.")


def set_values(doc_id: str, values: dict[str, Any], engine: Engine | None = None, source: str = "person") -> Metadata:
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
    t = tables.doc_metadata
    now = _dt.datetime.now(_dt.UTC).replace(tzinfo=None)
    shown = ", ".join(f"{k}={str(v)[:60]}" for k, v in clean.items())
    with guarded(Action.EDIT_METADATA, doc_id, f"{source}: {shown}", engine), (engine or get_engine()).begin() as c:
        require_document(c, doc_id)
        before = {r.key: r for r in c.execute(select(t.c.key, t.c.value, t.c.source, t.c.confidence, t.c.evidence,
                                                        t.c.extracted).where(t.c.doc_id == doc_id))}
        for key, value in clean.items():
            if value is None and source != "person":
                continue
            note = None
            r = before.get(key)
            if source == "person" and r is not None:  # what the document reads, kept beside the person's value
                if r.source in RULE_SOURCES and r.value is not None and json.loads(r.value) != value:
                    note = json.dumps({"value": json.loads(r.value), "source": r.source, "confidence": r.confidence,
                                       "evidence": json.loads(r.evidence) if r.evidence else None})
                elif r.source == "person" and r.extracted and json.loads(r.extracted).get("value") != value:
                    note = r.extracted
            c.execute(_sa_delete(t).where(and_(t.c.doc_id == doc_id, t.c.key == key)))
            c.execute(insert(t).values(doc_id=doc_id, key=key, value=json.dumps(value) if value is not None else None,
                                       source=source, updated_at=now, extracted=note))
    return get(doc_id, engine)


def normalize_tags(value: object) -> list[str]:
    """Tags in their stored form: trimmed, lower case, unique, sorted. A list, or text separated by commas."""
    out = set()
    for item in as_list(value) if value not in (None, "") else []:
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
    t = tables.doc_metadata
    with (engine or get_engine()).connect() as c:
        rows = c.execute(select(t.c.doc_id, t.c.value).where(and_(t.c.doc_id.in_(ids), t.c.key == TAGS))).fetchall()
    for r in rows:
        if r.value is not None:
            out[r.doc_id] = list(json.loads(r.value))
    return out


def delete(conn: Connection, doc_id: str) -> None:
    """Remove a document's metadata inside the caller's transaction."""
    conn.execute(_sa_delete(tables.doc_metadata).where(tables.doc_metadata.c.doc_id == doc_id))


def missing(meta: Metadata) -> list[str]:
    """Fields with no value that nobody cleared on purpose: what a model may fill."""
    return [k for k in FIELDS if (f := meta.get(k, FieldValue())).value in (None, [], "") and f.source != "person"]


def unsure(meta: Metadata) -> list[str]:
    """Fields a connected model may fill: the empty ones (not cleared by a person) and the rules' values below
    ``SURE``. A person's value and a model's earlier one are never among them."""
    weak = [k for k in FIELDS if (f := meta.get(k, FieldValue())).source in RULE_SOURCES and (f.confidence or 0) < SURE]
    return [k for k in FIELDS if k in set(missing(meta)) | set(weak)]


def cli_metadata(doc_id: str, engine: Engine | None = None, meta: Metadata | None = None) -> dict[str, dict]:
    """For ``python -m lib docs`` and ``meta``: ``{field: {"value", "source", "confidence", "evidence"}}`` in
    FIELDS order (None where unknown), plus ``"extracted"`` where the rules now read something other than a
    person's value."""
    meta = meta if meta is not None else get(doc_id, engine)
    out = {}
    for k in FIELDS:
        m = meta[k]
        out[k] = m.as_json()
        if m.extracted:
            out[k]["extracted"] = m.extracted.as_json()
    return out

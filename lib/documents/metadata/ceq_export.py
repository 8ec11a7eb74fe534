"""The collection in the CEQ NEPA and Permitting Data Standard's JSON shape (projects, processes,
documents), as ``python -m lib export-metadata`` and the Documents page's download give it."""
from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy.engine import Engine

from lib.documents.metadata.fields import PROCESS_OF
from lib.documents.metadata.query import doc_ids_of, names_of
from lib.documents.metadata.records import get_many, tags_many

SYSTEM_NAME = "NEPA QA Studio"
STANDARD = "CEQ NEPA and Permitting Data and Technology Standard v1.2"


def _slug_id(prefix: str, text: str) -> str:
    return f"{prefix}-{hashlib.sha1(text.encode('utf-8')).hexdigest()[:12]}"


def export_ceq(docs: Iterable[Any], engine: Engine | None = None,
               volumes: Mapping[str, tuple[str, int]] | None = None) -> dict[str, list[dict]]:
    """The collection in the data standard's JSON shape: ``{"projects", "processes", "documents"}``, linked by
    ``project_id`` and ``process_id``. One project per distinct project title (a document without one is its own
    project), one process per project and process type, one document per indexed PDF. Unknown values are null;
    our ``states`` and ``eis_number`` sit beside the standard's document fields, and each value's source is under
    ``other.metadata_sources``. ``volumes``: the documents that are volumes of one EIS (doc id → the EIS's id and
    the volume's number); the volumes of one EIS are one project and one process (the project title and process
    type the first volume stating them gives), and each carries its ``volume_title`` where its cover prints one
    (or a person gave it) and its place in the EIS under ``other.eis_volume``."""
    docs = list(docs)
    ids = doc_ids_of(docs)
    names = names_of(docs)
    metas = get_many(ids, engine)
    tags = tags_many(ids, engine)
    volumes = volumes or {}
    shared: dict[str, dict[str, Any]] = {}  # an EIS's project title and process type, from its first volume stating each
    for doc_id in sorted((d for d in ids if d in volumes), key=lambda d: volumes[d][1]):
        facts = shared.setdefault(volumes[doc_id][0], {})
        for key in ("project_title", "process_type", "document_type"):
            if facts.get(key) is None and metas[doc_id].get(key) is not None:
                facts[key] = metas[doc_id][key].value
    projects: dict[str, dict] = {}
    processes: dict[str, dict] = {}
    documents: list[dict] = []
    for doc_id in ids:
        meta = metas[doc_id]
        m = {k: v.value for k, v in meta.items()}
        place = volumes.get(doc_id)
        eis = shared.get(place[0], {}) if place else {}
        ptitle = eis.get("project_title") or m.get("project_title")
        pkey = " ".join(str(ptitle).split()).casefold() if ptitle else (f"eis:{place[0]}" if place else f"doc:{doc_id}")
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
        dtype = eis.get("document_type") or m.get("document_type")
        ptype = eis.get("process_type") or m.get("process_type") or (PROCESS_OF.get(str(dtype)) if dtype else None)
        process_id = f"{project_id}-{str(ptype or 'unknown').lower()}"
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
            "prepared_by": m.get("prepared_by"), "states": m.get("states") or [], "eis_number": m.get("eis_number"),
            "volume_title": m.get("volume_title"),
            "data_source_system": SYSTEM_NAME,
            "other": {"file_name": names.get(doc_id) or None, "tags": tags[doc_id],
                      "title_is_file_name": not m.get("title"),
                      "metadata_sources": {k: v.source for k, v in meta.items() if v.source}}
            | ({"eis_volume": {"eis_id": place[0], "number": place[1]}} if place else {}),
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

"""Finding documents by their metadata: the collection filter the CLI's --where and the pages share, and how
lists and citations name a document."""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy.engine import Engine

from lib.core.errors import UserError
from lib.core.text import readable_name
from lib.documents.metadata.fields import as_list, canonical_agency, normalize, text_of, value_of, year_of
from lib.documents.metadata.records import Metadata, empty_record, get_many, normalize_tags, tags_many


def doc_ids_of(docs: Iterable[Any]) -> list[str]:
    return [d if isinstance(d, str) else d.doc_id for d in docs]


def names_of(docs: Iterable[Any]) -> dict[str, str]:
    return {(d if isinstance(d, str) else d.doc_id): ("" if isinstance(d, str) else getattr(d, "name", "") or "")
            for d in docs}


def display_title(meta: Metadata, name: str) -> str:
    """What lists show: the title, else the file name."""
    return str(value_of(meta, "title") or name)


def citation_name(meta: Metadata, name: str, limit: int = 80) -> str:
    """How a citation names its document: the project title (short), else the title, else the file name as
    words ("eis_Tongass_Plan.pdf" → "Tongass Plan")."""
    full = str(value_of(meta, "project_title") or value_of(meta, "title") or readable_name(name))
    return full if len(full) <= limit else full[: limit - 1].rstrip() + "…"


def parse_year_range(spec: object) -> tuple[int | None, int | None]:
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
                      metas: dict[str, Metadata] | None = None) -> list[str]:
    """The ids of ``docs`` (DocInfo or ids, order kept) whose metadata matches every condition of ``where``:
    ``lead_agency`` (case-insensitive substring, or the same agency by abbreviation; a list: any of them),
    ``states`` (any of; list or comma-separated), ``document_type`` and ``process_type`` (one or several,
    case-insensitive), ``year`` ("2010-2020", "2015", "2010-"), ``text``/``title`` (substring of title, project
    title, file name, EIS number or location) and ``tag`` (any of one or several tags, comma-separated). Unknown
    values never match a condition."""
    docs = list(docs)
    unknown = [k for k in where if k not in FILTER_KEYS]
    if unknown:
        raise UserError(f"Unknown filter '{unknown[0]}'. Filters: {', '.join(FILTER_KEYS)}.")
    ids = doc_ids_of(docs)
    names = names_of(docs)
    tags = tags_many(ids, engine) if "tag" in where else {}
    metas = metas if metas is not None else get_many(ids, engine)
    conds = {k: v for k, v in where.items() if v not in (None, "", [], ())}

    if isinstance(conds.get("lead_agency"), (list, tuple, set)):  # several agencies: any of them
        any_of = set().union(*(collection_filter(ids, {"lead_agency": a}, engine, metas)
                               for a in conds.pop("lead_agency")))
        ids = [d for d in ids if d in any_of]
    agency = str(conds["lead_agency"]).strip().lower() if "lead_agency" in conds else None
    agency_canon = canonical_agency(str(conds["lead_agency"])) if agency else None
    states = set(normalize("states", conds["states"]) or []) if "states" in conds else None
    dtypes = {normalize("document_type", t) for t in as_list(conds["document_type"])} if "document_type" in conds else None
    ptypes = {normalize("process_type", t) for t in as_list(conds["process_type"])} if "process_type" in conds else None
    years = parse_year_range(conds["year"]) if "year" in conds else None
    texts = [str(conds[k]).strip().lower() for k in ("text", "title") if k in conds]
    wanted_tags = set(normalize_tags(conds["tag"])) if "tag" in conds else None

    out: list[str] = []
    for doc_id in ids:
        m = {k: v.value for k, v in metas.get(doc_id, empty_record()).items()}
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


SORTS = ("Title", "Lead agency", "Document type", "Publish date", "Pages", "Tags", "Date added")


def sort_documents(docs: Sequence[Any], by: str, metas: dict[str, Metadata], tags: dict[str, list[str]],
                   descending: bool = False) -> list[Any]:
    """``docs`` (DocInfo, in the order they were added) sorted by one of SORTS; documents whose value is unknown
    come last whichever the direction."""
    if by not in SORTS:
        raise UserError(f"Unknown sort '{by}'. Sorts: {', '.join(SORTS)}.")
    added = {d.doc_id: n for n, d in enumerate(docs)}

    def value(d: Any) -> Any:
        m = metas.get(d.doc_id) or {}
        got = {k: value_of(m, k) for k in ("lead_agency", "document_type", "publish_date")}
        return {"Title": display_title(m, d.name).casefold(), "Lead agency": text_of(m, "lead_agency").casefold() or None,
                "Document type": got["document_type"], "Publish date": got["publish_date"], "Pages": d.pages,
                "Tags": ", ".join(tags.get(d.doc_id) or []) or None, "Date added": added[d.doc_id]}[by]

    known = sorted((d for d in docs if value(d) is not None), key=value, reverse=descending)
    return known + [d for d in docs if value(d) is None]

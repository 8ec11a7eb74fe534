"""The volumes of one EIS: indexed documents (one PDF each) grouped, in order, as one EIS.

Agencies publish a large EIS as several PDFs: the main text, then appendices, sometimes a volume per resource. A
group is made when the volumes are uploaded together (the Documents page, a folder on the command line, or a
manifest's ``eis`` column), or when a person groups documents, e.g. by confirming a suggestion (``suggestions``:
documents stating the same project, document type and publication date). Each volume stays a document of its own
(indexed, searched, cited and deleted on its own); the group says which documents are one EIS, so a search can
cover "this EIS" and a citation can name the volume. Deleting a volume takes it out of its group and leaves the
others, numbered as they were.
"""
from __future__ import annotations

import re
import uuid
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import delete, func, insert, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from lib.collection.repository import DocInfo
from lib.core import config
from lib.core.access import Action, authorize
from lib.core.errors import UserError
from lib.documents import metadata
from lib.documents.pdf import check_readable, sha256_bytes, sha256_file
from lib.storage import jobs, tables
from lib.storage.audit import guarded, record
from lib.storage.engine import get_engine

GROUPED_BY = ("upload", "folder", "manifest", "person")
MAX_VOLUMES = 200


@dataclass(frozen=True)
class Volume:
    doc_id: str
    eis_id: str
    position: int  # 1, 2, 3… in the order given; kept when another is deleted (one added later follows the highest)


@dataclass(frozen=True)
class Eis:
    eis_id: str
    volumes: tuple[Volume, ...]  # in order
    grouped_by: str

    @property
    def doc_ids(self) -> list[str]:
        return [v.doc_id for v in self.volumes]


def label(position: int, volume_title: object = None) -> str:
    """How a volume is named: the volume title it prints ("Volume II: Appendices"), else its place in the EIS."""
    title = " ".join(str(volume_title or "").split())
    return title or f"Volume {position}"


def short_label(position: int, volume_title: object = None) -> str:
    """How a citation names a volume: the "Volume II" its title begins with, else its place ("Volume 2")."""
    m = _VOLUME_NUMBER.match(" ".join(str(volume_title or "").split()))
    return f"Volume {m.group(1)}" if m else f"Volume {position}"


def citation_names(files: dict[str, str], engine: Engine | None = None) -> dict[str, str]:
    """How citations name each document (doc id → its file name given): its project (or title), and for a volume
    of an EIS, the volume ("Alaska LNG Project, Volume II"). RAG's sources and full-PDF mode's documents both."""
    engine = engine or get_engine()
    metas = metadata.get_many(list(files), engine)
    placed = places(engine)
    return {d: metadata.citation_name(metas[d], f)
            + (f", {short_label(placed[d].position, metadata.value_of(metas[d], 'volume_title'))}" if d in placed else "")
            for d, f in files.items()}


def group(doc_ids: Sequence[str], grouped_by: str = "person", engine: Engine | None = None,
          eis_id: str | None = None) -> Eis:
    """Make ``doc_ids`` (in this order) the volumes of one EIS, or add them after the volumes of ``eis_id``.
    Refused, with nothing changed, when a document is unknown, given twice, or a volume of another EIS."""
    authorize(Action.EDIT_METADATA, "group volumes")  # recorded below once grouped
    engine = engine or get_engine()
    if grouped_by not in GROUPED_BY:
        raise ValueError(grouped_by)
    ids = [str(d) for d in doc_ids]
    if len(set(ids)) != len(ids):
        twice = next(d for d in ids if ids.count(d) > 1)
        raise UserError(f"Document '{twice}' is given twice: each volume is one document.")
    if eis_id is None and len(ids) < 2:
        raise UserError("An EIS of volumes needs at least two documents; pick two or more.")
    if not ids:
        raise UserError("Pick at least one document to add as a volume.")
    d, v = tables.documents, tables.eis_volumes
    try:
        with engine.begin() as c:
            known = set(c.execute(select(d.c.doc_id).where(d.c.doc_id.in_(ids))).scalars())
            unknown = [i for i in ids if i not in known]
            if unknown:
                raise UserError(f"No indexed document with id '{unknown[0]}'; index it first, then group it.")
            taken = {r.doc_id: r for r in c.execute(select(v).where(v.c.doc_id.in_(ids)))}
            if taken:
                first = next(i for i in ids if i in taken)
                raise UserError(f"Document '{first}' is already volume {taken[first].position} of an EIS; take it "
                                "out of that EIS first (Documents → EISs in volumes, or `python -m lib volumes remove`).")
            if eis_id is not None:
                have = c.execute(select(func.max(v.c.position), func.count()).where(v.c.eis_id == eis_id)).first()
                if not have or not have[1]:
                    raise UserError(f"No EIS with id '{eis_id}'.")
                start = int(have[0] or 0)
                how = c.execute(select(v.c.grouped_by).where(v.c.eis_id == eis_id).limit(1)).scalar() or grouped_by
            else:
                eis_id, start, how = uuid.uuid4().hex[:12], 0, grouped_by
            if start + len(ids) > MAX_VOLUMES:
                raise UserError(f"An EIS holds at most {MAX_VOLUMES} volumes.")
            c.execute(insert(v), [{"doc_id": i, "eis_id": eis_id, "position": start + n + 1, "grouped_by": how}
                                  for n, i in enumerate(ids)])
    except IntegrityError:  # another process grouped one of them, or took a volume number, meanwhile
        raise UserError("One of these documents was just grouped elsewhere, or a volume of this EIS is still being "
                        "indexed and took its number; reload and try again when its indexing is done.") from None
    found = get(eis_id, engine)
    assert found is not None
    record(Action.EDIT_METADATA, f"EIS {eis_id}", f"volumes: {', '.join(ids)}", engine=engine)
    return found


def place(doc_id: str, eis_id: str, position: int, grouped_by: str, engine: Engine | None = None) -> None:
    """One volume of a set uploaded together, as its ingest finishes: ``doc_id`` becomes volume ``position`` of
    ``eis_id`` (the set's id, chosen when it was checked). Again for the same place (a resumed job): nothing
    changes. Refused when the document is a volume of another EIS (it stays indexed on its own)."""
    authorize(Action.UPLOAD, doc_id)  # part of an upload (recorded there)
    engine = engine or get_engine()
    if grouped_by not in GROUPED_BY:
        raise ValueError(grouped_by)
    v = tables.eis_volumes
    try:
        with engine.begin() as c:
            have = c.execute(select(v).where(v.c.doc_id == doc_id)).first()
            if have is not None and have.eis_id == eis_id:
                return
            if have is not None:
                raise UserError(f"The document was indexed, but is already volume {have.position} of another EIS, so "
                                "it was not added to this one. Take it out of that EIS (Documents → EISs in volumes), "
                                "then group it here.")
            c.execute(insert(v).values(doc_id=doc_id, eis_id=eis_id, position=int(position), grouped_by=grouped_by))
    except IntegrityError:  # its number was taken meanwhile (a document added to this EIS by hand)
        raise UserError(f"The document was indexed, but volume {position} of its EIS was taken meanwhile by a "
                        "document grouped by hand; add it to the EIS by hand (Documents → EISs in volumes).") from None


def new_id() -> str:
    """The id of an EIS whose volumes are about to be indexed (``place`` puts each one there as it finishes)."""
    return uuid.uuid4().hex[:12]


def check_set(files: Sequence[tuple[str, bytes | Path]], engine: Engine | None = None) -> None:
    """A set of volumes (file name, and its bytes or path; in volume order, read one at a time) checked whole before any is indexed, so that a bad one
    does not leave the others half-grouped: each must be a readable PDF with pages, not password-protected, not
    the same file as another volume of the set, and not a volume of another EIS already. UserError names every
    problem, volume by volume."""
    engine = engine or get_engine()
    if len(files) < 2:
        raise UserError("Volumes of one EIS are two files or more; for one file, leave 'volumes of one EIS' off.")
    if len(files) > MAX_VOLUMES:
        raise UserError(f"An EIS holds at most {MAX_VOLUMES} volumes; this set has {len(files)}.")
    problems: list[str] = []
    seen: dict[str, int] = {}
    shas = []
    for n, (name, given) in enumerate(files, start=1):
        try:
            check_readable(given, name, config.max_upload_bytes())  # a path is opened where it is, never read whole
        except UserError as exc:
            problems.append(f"volume {n} ({name}): {exc}")
            shas.append("")
            continue
        sha = sha256_file(given) if isinstance(given, Path) else sha256_bytes(given)
        shas.append(sha)
        if sha in seen:
            first = seen[sha]
            problems.append(f"volume {n} ({name}) is the same file as volume {first} ({files[first - 1][0]}); "
                            "leave one of them out.")
        else:
            seen[sha] = n
    d, v = tables.documents, tables.eis_volumes
    with engine.connect() as c:
        taken = c.execute(select(d.c.sha256, d.c.name, v.c.position).join(v, v.c.doc_id == d.c.doc_id)
                          .where(d.c.sha256.in_([x for x in shas if x]))).fetchall()
    for row in taken:
        n = shas.index(row.sha256) + 1
        problems.append(f"volume {n} ({files[n - 1][0]}) is indexed already (as '{row.name}'), and is volume "
                        f"{row.position} of another EIS; take it out of that EIS first, or leave it out of this set.")
    coming = {str(p.get("sha256")) for p in jobs.active_params("ingest", engine) if p.get("sha256")}
    for n, sha in enumerate(shas, start=1):
        if sha and sha in coming:  # the same set started twice (a double click, two people) would split the EIS
            problems.append(f"volume {n} ({files[n - 1][0]}) is being indexed already (see Jobs); wait for it to "
                            "finish, then group it, or leave it out of this set.")
    if problems:
        raise UserError("Nothing was indexed. " + " ".join(p[0].upper() + p[1:] for p in problems)
                        + (" Fix this" if len(problems) == 1 else " Fix these") + " and add the volumes again.")


def remove(doc_id: str, engine: Engine | None = None) -> None:
    """Take a document out of its EIS (it stays indexed, on its own); the other volumes keep their numbers."""
    engine = engine or get_engine()
    with guarded(Action.EDIT_METADATA, doc_id, "taken out of its EIS", engine):
        with engine.begin() as c:
            gone = c.execute(delete(tables.eis_volumes).where(tables.eis_volumes.c.doc_id == doc_id)).rowcount
        if not gone:
            raise UserError(f"Document '{doc_id}' is not a volume of any EIS.")


def every(engine: Engine | None = None) -> list[Eis]:
    """Every EIS of volumes, in the order they were made."""
    engine = engine or get_engine()
    v = tables.eis_volumes
    with engine.connect() as c:
        rows = c.execute(select(v).order_by(v.c.created_at, v.c.eis_id, v.c.position)).fetchall()
    by: dict[str, list[Any]] = defaultdict(list)
    for r in rows:
        by[r.eis_id].append(r)
    return [Eis(e, tuple(Volume(r.doc_id, e, r.position) for r in sorted(rs, key=lambda r: r.position)),
                rs[0].grouped_by) for e, rs in by.items()]


def get(eis_id: str, engine: Engine | None = None) -> Eis | None:
    return next((e for e in every(engine) if e.eis_id == eis_id), None)


def of(doc_id: str, engine: Engine | None = None) -> Eis | None:
    """The EIS a document is a volume of, or None where it stands alone."""
    return next((e for e in every(engine) if doc_id in e.doc_ids), None)


def places(engine: Engine | None = None) -> dict[str, Volume]:
    """Each grouped document's place: its EIS and volume number."""
    return {vol.doc_id: vol for e in every(engine) for vol in e.volumes}


def whole_eis(doc_ids: Iterable[str], engine: Engine | None = None) -> list[str]:
    """The documents with, for each volume among them, every other volume of its EIS (in order): "this EIS"."""
    by_doc = {vol.doc_id: e for e in every(engine) for vol in e.volumes}
    out: list[str] = []
    for d in doc_ids:
        out += by_doc[d].doc_ids if d in by_doc else [d]
    return list(dict.fromkeys(out))


_VOLUME_NUMBER = re.compile(r"\bvol(?:ume|\.)?\s*([IVX]+|\d+)\b", re.IGNORECASE)
_ROMAN = {"I": 1, "V": 5, "X": 10}


def _number(volume_title: object) -> int | None:
    m = _VOLUME_NUMBER.search(str(volume_title or ""))
    if not m:
        return None
    s = m.group(1).upper()
    if s.isdigit():
        return int(s)
    total = 0
    for a, b in zip(s, s[1:] + " ", strict=True):
        total += -_ROMAN[a] if b != " " and _ROMAN[a] < _ROMAN[b] else _ROMAN[a]
    return total


def suggestions(docs: Sequence[DocInfo], engine: Engine | None = None) -> list[list[str]]:
    """Documents that may be volumes of one EIS, for a person to confirm: ungrouped documents that state the same
    project, document type and publication date (all three known), in the order of the volume numbers they print
    (else their names). A suggestion is never applied without that confirmation."""
    engine = engine or get_engine()
    grouped = places(engine)
    loose = [d for d in docs if d.doc_id not in grouped]
    metas = metadata.get_many([d.doc_id for d in loose], engine)
    by_key: dict[tuple[str, ...], list[DocInfo]] = defaultdict(list)
    for d in loose:
        key = tuple(" ".join(str(metadata.value_of(metas[d.doc_id], f) or "").split()).casefold()
                    for f in ("project_title", "document_type", "publish_date"))
        if all(key):
            by_key[key].append(d)
    out = []
    for same in by_key.values():
        if len(same) >= 2:
            same.sort(key=lambda d: (_number(metadata.value_of(metas[d.doc_id], "volume_title")) or 10**6, d.name))
            out.append([d.doc_id for d in same])
    return out

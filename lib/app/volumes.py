"""The Volumes use case: EISs published as several PDFs, as the Documents page and the command line show and change
them. A set uploaded together is checked whole and then indexed, each volume joining its EIS as its ingest finishes;
indexed documents are grouped by a person (a suggestion is only applied when confirmed); a volume is taken out or
deleted on its own. Scopes: ``whole_eis`` widens a choice of documents to every volume of their EIS."""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from lib.app.job_handlers import ingest_params, stage_upload
from lib.collection import volumes
from lib.collection.repository import DocInfo
from lib.core import config
from lib.core.errors import UserError
from lib.core.json_types import JSONObject
from lib.documents import metadata
from lib.documents.pdf import check_pdf_path, sha256_bytes
from lib.qa.services import Corpus
from lib.storage import jobs

INGEST = "ingest"


@dataclass(frozen=True)
class VolumeRow:
    doc_id: str
    number: int
    label: str  # "Volume 2: Appendices A through M", or "Volume 2" where the cover prints no volume title
    title: str
    file: str
    pages: int


@dataclass(frozen=True)
class EisView:
    eis_id: str
    title: str  # the project (or title) its volumes state, else the first volume's file name
    volumes: tuple[VolumeRow, ...]

    @property
    def doc_ids(self) -> list[str]:
        return [v.doc_id for v in self.volumes]

    @property
    def pages(self) -> int:
        return sum(v.pages for v in self.volumes)

    @property
    def name(self) -> str:
        """How pickers list it: "Alaska LNG Project (EIS in 3 volumes, 1,204 pages)"."""
        return f"{self.title} (EIS in {len(self.volumes)} volume{'s' if len(self.volumes) != 1 else ''}, " \
               f"{self.pages:,} pages)"


def every(svc: Corpus) -> list[EisView]:
    """Every EIS of volumes, each volume named as its citations name it."""
    docs = {d.doc_id: d for d in svc.docs.list()}
    found = volumes.every(svc.docs.engine)
    metas = metadata.get_many([v.doc_id for e in found for v in e.volumes], svc.docs.engine)
    out = []
    for e in found:
        rows = tuple(VolumeRow(v.doc_id, v.position, volumes.label(v.position, metadata.value_of(metas[v.doc_id],
                                                                                                "volume_title")),
                               metadata.display_title(metas[v.doc_id], docs[v.doc_id].name), docs[v.doc_id].name,
                               docs[v.doc_id].pages)
                     for v in e.volumes if v.doc_id in docs)
        if not rows:
            continue
        named = next((str(metadata.value_of(metas[r.doc_id], "project_title") or "") for r in rows
                      if metadata.value_of(metas[r.doc_id], "project_title")), "")
        out.append(EisView(e.eis_id, named or rows[0].title, rows))
    return out


def labels(svc: Corpus) -> dict[str, str]:
    """Each volume's name in lists and pickers ("Volume II: Affected Environment"); documents in no EIS are absent."""
    return {v.doc_id: v.label for e in every(svc) for v in e.volumes}


def of(svc: Corpus, doc_id: str) -> EisView | None:
    return next((e for e in every(svc) if doc_id in e.doc_ids), None)


def whole_eis(svc: Corpus, doc_ids: Sequence[str]) -> list[str]:
    """The documents, each volume among them with every other volume of its EIS ("this EIS")."""
    return volumes.whole_eis(doc_ids, svc.docs.engine)


def group(svc: Corpus, doc_ids: Sequence[str], eis_id: str | None = None) -> EisView:
    """A person's grouping (or a suggestion they confirmed): ``doc_ids`` in this order become one EIS's volumes,
    or are added after the volumes of ``eis_id``."""
    made = volumes.group(doc_ids, "person", svc.docs.engine, eis_id)
    view = of(svc, made.doc_ids[0])
    assert view is not None
    return view


def take_out(svc: Corpus, doc_id: str) -> None:
    """The document stays indexed, on its own; the other volumes keep their numbers."""
    volumes.remove(doc_id, svc.docs.engine)


def suggestions(svc: Corpus) -> list[list[DocInfo]]:
    """Ungrouped documents that state the same project, document type and date: perhaps volumes of one EIS."""
    docs = svc.docs.list()
    by_id = {d.doc_id: d for d in docs}
    return [[by_id[i] for i in ids] for ids in volumes.suggestions(docs, svc.docs.engine)]


T = TypeVar("T")


def in_volume_order(files: Sequence[tuple[str, T]]) -> list[tuple[str, T]]:
    """Files (name, anything) in the order their names give volumes: numbers compared as numbers ("vol_2" before
    "vol_10"), ties kept as given. The upload page and a folder on the command line both number volumes so."""
    def key(item: tuple[str, T]) -> list[tuple[int, int | str]]:
        return [(0, int(x)) if x.isdigit() else (1, x.casefold()) for x in re.split(r"(\d+)", item[0]) if x]

    return sorted(files, key=key)


def start_set(uploads: Sequence[tuple[str, bytes]], chunk_size: int | None, chunk_overlap: int | None,
              grouped_by: str = "upload") -> list[str]:
    """Volumes uploaded together (file name, bytes; in volume order): checked whole (UserError names every bad
    volume, and nothing is started), then one ingest job each, which places its document in the EIS when done.
    Returns the job ids, in volume order."""
    volumes.check_set(uploads)
    eis_id = volumes.new_id()
    job_ids = []
    for number, (name, data) in enumerate(uploads, start=1):
        stem = Path(name).name.removesuffix(".pdf").removesuffix(".PDF")
        params = ingest_params(stage_upload(data), stem, chunk_size, chunk_overlap, staged=True,
                               volume=(eis_id, number, grouped_by), file_name=Path(name).name)
        params["sha256"] = sha256_bytes(data)  # on its way: the same set started again is refused (check_set)
        job_ids.append(jobs.submit(INGEST, params, f"Index {stem} (volume {number} of {len(uploads)})"))
    return job_ids


def set_on_disk(paths: Sequence[str]) -> tuple[list[Path], str]:
    """The files of a set given on the command line, checked whole (``volumes.check_set``): PDFs named one by one
    (volumes in that order), or one folder's PDFs (in file-name order). Returns them and how they were given
    (``folder`` or ``upload``)."""
    files: list[Path] = []
    folder = len(paths) == 1 and Path(paths[0]).is_dir()
    for given in paths:
        p = Path(given)
        if p.is_dir() and not folder:
            raise UserError(f"{p} is a folder: give the volumes' PDFs one by one, or one folder that holds them.")
        files += [f for _, f in in_volume_order([(x.name, x) for x in p.iterdir()
                                                 if x.is_file() and x.suffix.lower() == ".pdf"])] \
            if p.is_dir() else [p]
    if folder and not files:
        raise UserError(f"The folder {paths[0]} holds no PDF.")
    for f in files:
        check_pdf_path(f, config.max_upload_bytes())
    volumes.check_set([(f.name, f.resolve()) for f in files])
    return files, "folder" if folder else "upload"


def volume_params(path: Path, number: int, eis_id: str, how: str, chunk_size: int | None,
                  chunk_overlap: int | None) -> JSONObject:
    """One volume's ingest job on the command line (the file read where it is)."""
    return ingest_params(str(path.resolve()), path.stem, chunk_size, chunk_overlap, volume=(eis_id, number, how))


def as_dict(e: EisView) -> JSONObject:
    """As the command line prints an EIS."""
    return {"eis_id": e.eis_id, "title": e.title, "pages": e.pages,
            "volumes": [{"volume": v.number, "label": v.label, "doc_id": v.doc_id, "file": v.file, "pages": v.pages}
                        for v in e.volumes]}


def export(docs: Sequence[DocInfo], svc: Corpus) -> dict[str, list[dict]]:
    """The CEQ export of ``docs``, each volume with its ``volume_title`` and the volumes of one EIS under one
    project and process."""
    places = {d: (v.eis_id, v.position) for d, v in volumes.places(svc.docs.engine).items()}
    return metadata.export_ceq(docs, svc.docs.engine, places)

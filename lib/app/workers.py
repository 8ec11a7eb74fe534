"""Worker processes in server mode: ``run`` takes queued jobs from the PostgreSQL store (lib/storage/work_queue.py),
and puts back the jobs of workers that stopped; ``queue_ingest`` hands a folder of PDFs to the workers, one job
each, with a manifest's metadata; ``queue_uploads`` does the same for the Documents page's folder upload. The
command line's ``worker`` and ``ingest --queue`` call these."""
from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from sqlalchemy.engine import Engine

from lib.app.job_handlers import ingest_params, stage_upload
from lib.collection import volumes
from lib.collection.repository import DocumentRepository
from lib.core import config
from lib.core.errors import UserError
from lib.core.json_types import JSONObject
from lib.documents.metadata import manifest_csv, set_values
from lib.documents.pdf import check_pdf_bytes, check_pdf_path, sha256_bytes
from lib.storage import job_parts, jobs, work_queue
from lib.storage.engine import database_url, get_engine

REQUEUE_EVERY_S = 3.0  # how often a worker looks for jobs whose worker stopped


def enabled() -> bool:
    """Whether jobs started here go to the worker processes (a PostgreSQL store and NEPAQA_WORKERS=queue)."""
    return work_queue.enabled(get_engine())


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def run(concurrency: int = 1, once: bool = False) -> JSONObject:
    """Take queued jobs until stopped (or, with ``once``, until the queue is empty), ``concurrency`` at a time."""
    if concurrency < 1:
        raise UserError("--concurrency must be at least 1.")
    url = database_url()
    if not url.startswith("postgresql") or (config.get(work_queue.SETTING) or "").strip().lower() != "queue":
        raise UserError("A worker takes jobs from a PostgreSQL store: set NEPAQA_DATABASE_URL and NEPAQA_WORKERS=queue, "
                        "here and where jobs are started. With the embedded store, jobs run in the process that "
                        "starts them.")
    if not config.get("NEPAQA_CHROMA_URL"):
        _say("worker: no NEPAQA_CHROMA_URL, so documents go to this machine's on-disk index; set it to the Chroma "
             "server for workers on several machines")
    work_queue.wait_for_store(url, _say)
    engine = get_engine(url)
    _say(f"worker: taking jobs from {engine.url.host}:{engine.url.port} ({concurrency} at a time); Ctrl+C stops "
         "and hands running jobs back to the queue")
    stop = threading.Event()

    def watch() -> None:  # a dead worker's jobs go back to the queue, continuing from their saved rows
        while not stop.wait(REQUEUE_EVERY_S):
            try:
                for new in jobs.requeue_interrupted(engine):
                    _say(f"worker: a job whose worker stopped is queued again as {new}")
            except Exception as exc:  # noqa: BLE001 - the store may be down for a moment: try again next time
                _say(f"worker: could not look for stopped jobs ({type(exc).__name__})")

    def hand_back() -> None:
        given = jobs.hand_back_running()
        _say(f"worker: stopping; {len(given)} running job(s) handed back to the queue for another worker"
             if given else "worker: stopping; no job was running")

    threading.Thread(target=watch, name="requeue", daemon=True).start()
    try:
        work_queue.run_worker(engine, lambda job_id: jobs.run_queued(job_id, engine), concurrency, wait=not once,
                              run_part=job_parts.run_part, on_stop=hand_back)
    finally:
        stop.set()
    return {"stopped": True}


def queue_ingest(paths: Sequence[str], chunk_size: int | None = None, chunk_overlap: int | None = None,
                 manifest: str | None = None) -> QueueSummary:
    """One ingest job per PDF for the workers (a folder: every PDF under it), each with its manifest row's metadata.
    A file already indexed or queued (same content), or given twice, is skipped; a missing, too big or non-PDF
    file, or one whose manifest row has a bad value, is refused with its reason; a PDF that cannot be read
    (encrypted, broken) fails its own job with the reason. None of these stops the rest. Returns the summary."""
    engine = get_engine()
    if not work_queue.enabled(engine):
        raise UserError("--queue hands the files to the workers: set NEPAQA_DATABASE_URL to the PostgreSQL store and "
                        "NEPAQA_WORKERS=queue, and start `python -m lib worker` where the work should run.")
    sheet = manifest_csv.read_path(manifest) if manifest else None
    files: list[Path] = []
    for given in paths:
        p = Path(given)
        files += sorted(x for x in p.rglob("*") if x.is_file() and x.suffix.lower() == ".pdf") if p.is_dir() else [p]
    return _queue([(str(f), f.stem, f.name, partial(_read, f), None) for f in files], sheet, chunk_size,
                  chunk_overlap, engine)


def queue_uploads(uploads: Sequence[tuple[str, bytes]], manifest: tuple[str, bytes] | None = None,
                  chunk_size: int | None = None, chunk_overlap: int | None = None) -> QueueSummary:
    """The Documents page's folder (or files) upload, queued the same way as ``queue_ingest``: one job per PDF,
    indexed ones skipped, bad ones refused with the reason, each with its manifest row's metadata. ``uploads``:
    (the path within the uploaded folder, the bytes). Jobs run on the workers when there are workers, else here."""
    engine = get_engine()
    sheet = manifest_csv.read(manifest[1], manifest[0]) if manifest else None
    pdfs = [(name, data) for name, data in uploads if name.lower().endswith(".pdf")]
    return _queue([(name, Path(name).stem, Path(name).name, partial(bytes, data), name) for name, data in pdfs], sheet,
                  chunk_size, chunk_overlap, engine)


def _read(f: Path) -> bytes:
    check_pdf_path(f, config.max_upload_bytes())
    return f.read_bytes()


@dataclass
class QueueSummary:
    """What a bulk ingest queued: the jobs, and the files skipped or refused (with the reason)."""

    queued: int = 0
    skipped: int = 0  # indexed already, queued already, or the same file twice in the batch
    refused: list[dict[str, str]] = field(default_factory=list)  # {"file", "reason"}
    jobs: list[str] = field(default_factory=list)
    metadata_updated: int = 0  # indexed documents whose metadata the manifest set again
    manifest_unmatched: list[str] | None = None  # manifest rows naming no file given (None: no manifest)

    def as_dict(self) -> JSONObject:
        """As the command line prints it: the manifest's keys only where they say something."""
        out: JSONObject = {"queued": self.queued, "skipped": self.skipped, "refused": self.refused, "jobs": self.jobs}
        if self.metadata_updated:
            out["metadata_updated"] = self.metadata_updated
        if self.manifest_unmatched is not None:
            out["manifest_unmatched"] = self.manifest_unmatched
        return out


def _queue(entries: list[tuple[str, str, str, Callable[[], bytes], str | None]], sheet: manifest_csv.Manifest | None,
           chunk_size: int | None, chunk_overlap: int | None, engine: Engine) -> QueueSummary:
    """entries: (what the summary calls it, document name, file name, its bytes when asked, the upload's name or
    None for a file on disk)."""
    repo = DocumentRepository(engine)
    out = QueueSummary()
    names: dict[str, int] = {}
    for _, _, file_name, _, _ in entries:
        names[file_name] = names.get(file_name, 0) + 1
    seen = {str(p["sha256"]) for p in jobs.active_params("ingest", engine) if p.get("sha256")}  # queued already
    eis_ids: dict[str, str] = {}  # a manifest's EIS names → the EIS their volumes join
    for shown, doc_name, _file_name, load, uploaded in entries:
        try:
            row = sheet.for_file(shown, names) if sheet is not None else None
            if row is not None and row.problem:
                raise UserError(row.problem)
            data = load()
            check_pdf_bytes(data, uploaded or Path(shown).name, config.max_upload_bytes())  # no PDF: refused now
            sha = sha256_bytes(data)
            meta = row.values if row is not None else None
            indexed = repo.by_sha(sha) if sha not in seen else None
            if sha in seen or indexed is not None:  # indexed, queued already, or the same file twice in this batch
                out.skipped += 1
                if indexed is not None and meta:  # a corrected manifest run again: its values still count
                    set_values(indexed.doc_id, meta, engine)
                    out.metadata_updated += 1
                if indexed is not None and (volume := _volume(row, eis_ids, engine, indexed.doc_id)) is not None:
                    volumes.place(indexed.doc_id, *volume, engine)  # indexed already: it joins its EIS now
                continue
            seen.add(sha)
            staged = stage_upload(data) if uploaded is not None else None
            volume = _volume(row, eis_ids, engine)
            params = (ingest_params(staged, doc_name, chunk_size, chunk_overlap, staged=True, metadata=meta,
                                    volume=volume, file_name=Path(shown).name)
                      if staged is not None else
                      ingest_params(str(Path(shown).resolve()), None, chunk_size, chunk_overlap, metadata=meta,
                                    volume=volume))
            params["sha256"] = sha  # what a later bulk ingest recognises as on its way
            try:
                out.jobs.append(jobs.submit("ingest", params, f"Index {Path(shown).name}", engine))
            except UserError:
                if staged is not None:  # no job will read it
                    Path(staged).unlink(missing_ok=True)
                raise
            out.queued += 1
        except (UserError, OSError) as exc:
            out.refused.append({"file": shown, "reason": str(exc)})
    if sheet is not None:
        out.manifest_unmatched = sheet.unmatched()
    return out


def _volume(row: manifest_csv.Row | None, eis_ids: dict[str, str], engine: Engine,
            doc_id: str | None = None) -> tuple[str, int, str] | None:
    """A manifest row's place among its EIS's volumes (the EIS, the number, "manifest"), or None for a row with no
    ``eis``. The EIS is the one a volume of it (``doc_id``, indexed already) is in, where a run of the same manifest
    made it before; else a new one."""
    if row is None or row.eis is None or row.volume is None:
        return None
    if row.eis not in eis_ids:
        before = volumes.of(doc_id, engine) if doc_id is not None else None
        eis_ids[row.eis] = before.eis_id if before is not None else volumes.new_id()
    return eis_ids[row.eis], row.volume, "manifest"


__all__ = ["REQUEUE_EVERY_S", "QueueSummary", "enabled", "queue_ingest", "queue_uploads", "run"]

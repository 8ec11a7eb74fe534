"""The job handlers: ingest, re-embedding, benchmark, exam and item generation, each
``fn(params, ctx) -> result``, registered with lib/storage/jobs.py when this module is imported (the app's face and
the command line import it).

The command line and the app run these same functions (through ``jobs.run_foreground`` and ``jobs.submit``), so
a job started on either face does the same work and records the same row. Parameters are plain JSON, so an
interrupted job can be resumed from its row after a restart.
"""
from __future__ import annotations

import hashlib
import json
import logging
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from sqlalchemy.engine import Engine

from lib.app import estimates
from lib.app.job_params import BenchmarkJob, ExamJob, GenerateJob, IngestJob, MetadataValue, parse, to_json
from lib.app.services import Services, get_services
from lib.collection import volumes
from lib.collection.ingest import embedder_label, indexed_already
from lib.collection.maintenance import reembed, stale_vectors
from lib.collection.repository import DocInfo
from lib.core import config
from lib.core.access import Action, authorize
from lib.core.errors import UserError
from lib.core.json_types import JSONObject
from lib.documents.metadata import set_values
from lib.evaluation.benchmark.dataset import Item
from lib.evaluation.benchmark.generate import generate
from lib.evaluation.benchmark.runner import CELL_PART, answer_cell, run_benchmark, run_lease_name
from lib.evaluation.benchmark.runs import RunConfig, load_run, new_run_id
from lib.evaluation.exam.runner import run_exam
from lib.models import registry
from lib.review import annotations as ann
from lib.storage import job_access, job_parts, jobs
from lib.storage.jobs import JobCancelledError, JobContext
from lib.storage.leases import Lease, holder_of

log = logging.getLogger(__name__)

# Share of an ingest's time each stage takes (measured: embedding dominates), for one overall progress figure.
INGEST_WEIGHTS = {"extract": 0.10, "chunk": 0.10, "embed": 0.70, "index": 0.10}


def _services() -> Services:
    return get_services()


def stage_upload(data: bytes) -> str:
    """Keep an uploaded file under NEPAQA_HOME/uploads until its ingest job has finished with it, so the job
    outlives the page that received the upload (and can be resumed after a restart)."""
    authorize(Action.UPLOAD, "an upload")
    folder = config.paths().home / "uploads"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{uuid.uuid4().hex[:12]}.pdf"
    tmp = path.with_suffix(".part")
    tmp.write_bytes(data)
    tmp.replace(path)
    return str(path)


def ingest_params(path: str, name: str | None = None, chunk_size: int | None = None,
                  chunk_overlap: int | None = None, staged: bool = False,
                  metadata: dict[str, MetadataValue] | None = None,
                  volume: tuple[str, int, str] | None = None, file_name: str | None = None) -> JSONObject:
    """``metadata``: checked values (a bulk ingest's manifest) that override what extraction reads; ``volume``:
    (the EIS, its volume number, how the set was given) for one of a set of volumes checked together;
    ``file_name``: the file as the user named it, for messages (an upload is staged under a name of ours)."""
    eis_id, number, how = volume if volume is not None else (None, None, None)
    return to_json(IngestJob(path, name, chunk_size, chunk_overlap, staged, metadata or None, eis_id=eis_id,
                             volume=number, grouped_by=how, file_name=file_name))


def reindex_params(doc_id: str, chunk_size: int, chunk_overlap: int) -> JSONObject:
    """A re-index's row: the document and its new chunk settings (read back as an IngestJob)."""
    return {"reindex": doc_id, "chunk_size": int(chunk_size), "chunk_overlap": int(chunk_overlap)}


INGEST_DONE_BEFORE = {"extract": 0.0, "chunk": 0.10, "embed": 0.20, "index": 0.90}  # progress at each stage's start


def run_ingest(params: JSONObject, ctx: JobContext) -> JSONObject:
    """Index one PDF (or re-index a document with new chunk settings: ``reindex`` names it) through the
    collection's one ingest operation. When it returns, the document is searchable as it will stay."""
    done_before = INGEST_DONE_BEFORE

    def progress(stage: str, frac: float, msg: str) -> None:
        overall = done_before.get(stage, 0.0) + INGEST_WEIGHTS.get(stage, 0.0) * max(0.0, min(1.0, frac))
        if stage == "index":  # writing and switching: too late to stop cleanly, so it finishes
            ctx.report(stage, overall, f"{stage}: {msg}")
        else:  # a cancel stops here, before anything is committed (the vectors written so far are taken back)
            ctx.progress(stage, overall, f"{stage}: {msg}")

    job = parse(IngestJob, params)
    docs = _services().docs
    if job.reindex:
        if job.chunk_size is None or job.chunk_overlap is None:
            raise UserError("A re-index needs its chunk size and overlap; start it again from the Documents page.")
        res = docs.reindex(job.reindex, job.chunk_size, job.chunk_overlap, progress)
    else:
        path = job.path or ""
        gone = job.staged and not Path(path).exists()
        # a resumed job whose upload was committed (and its kept copy dropped) before the app stopped: what is
        # left is its metadata and its place among its EIS's volumes
        indexed = docs.repo.by_sha(job.sha256) if gone and job.sha256 else None
        if gone and indexed is None:
            raise UserError("The uploaded file is no longer kept (it was cleaned up); upload it again.")
        try:
            res = indexed_already(indexed) if indexed is not None else docs.ingest_file(
                path, job.name, chunk_size=job.chunk_size, chunk_overlap=job.chunk_overlap, progress=progress,
                file_name=job.file_name)
        except (UserError, JobCancelledError):
            # A file that is not a readable PDF will not get better on resume, and a cancelled upload is the
            # user's "no": drop the kept copy. An interrupted one (the app stopped) keeps it, for Resume.
            discard_staged(params)
            raise
    if job.metadata:  # the manifest's values, over what extraction read (kept as a person's)
        set_values(res.doc_id, dict(job.metadata), docs.engine)
    ctx.link(doc_id=res.doc_id)
    if job.eis_id and job.volume:  # one of a set of volumes: it joins its EIS now that it is indexed
        volumes.place(res.doc_id, job.eis_id, job.volume, job.grouped_by or "upload", docs.engine)
    if not job.reindex:
        discard_staged(params)  # committed, with its metadata and place: the original is kept with the document
    return {"doc_id": res.doc_id, "name": res.name, "pages": res.pages, "chunks": res.chunks, "chars": res.chars,
            "tokens": res.tokens,
            "empty_pages": res.empty_pages, "seconds": res.seconds, "skipped": res.skipped,
            "stage_seconds": res.stage_seconds, "ocr_pages": res.ocr_pages,
            "ocr_failed": {str(k): v for k, v in res.ocr_failed.items()}, "ocr_missing": res.ocr_missing}


REEMBED = "reembed"
REEMBED_TITLE = "Re-embed documents made with another embedder"


def queue_reembed(engine: Engine | None = None) -> str | None:
    """A background job that embeds again every document whose vectors another embedder (or precision) made, so
    each search compares vectors of one kind; unless one is queued or running already. Returns its id, or None.
    The app queues it when it starts; until it is done those documents are searched by their words only."""
    docs = _services().docs
    if not stale_vectors(docs):
        return None
    if any(j.active for j in jobs.list_jobs(20, engine, kind=REEMBED, light=True)):
        return None
    try:
        return jobs.submit(REEMBED, {}, REEMBED_TITLE, engine)
    except UserError as exc:  # the app still starts; those documents stay found by their words until the next start
        log.warning("re-embedding not queued: %s", exc)
        return None


def run_reembed(params: JSONObject, ctx: JobContext) -> JSONObject:
    """Embed each document with other vectors again, one at a time, under its lease (maintenance.reembed). A
    cancel stops between documents; those done stay done, and the next start takes the rest."""
    docs = _services().docs
    todo = stale_vectors(docs)
    total = sum(d.chunks for d in todo) or 1
    done, redone = 0, []
    for d in todo:
        if ctx.cancel.is_set():
            raise JobCancelledError()

        def progress(stage: str, frac: float, msg: str, d: DocInfo = d, before: int = done) -> None:
            ctx.progress(stage, (before + frac * d.chunks) / total, f"{d.name}: {msg}")

        if reembed(docs, d.doc_id, progress, only_stale=True):  # 0: deleted or embedded again meanwhile
            redone.append(d.doc_id)
        done += d.chunks
    return {"documents": len(redone), "chunks": sum(d.chunks for d in todo if d.doc_id in redone),
            "embedder": embedder_label(docs.index.embedder)}


def discard_staged(params: JSONObject) -> None:
    """A failed ingest of an upload will not be resumed: drop the kept copy."""
    job = parse(IngestJob, params)
    if job.staged and job.path:
        Path(job.path).unlink(missing_ok=True)


def benchmark_params(items: list[Item] | None, cfg: RunConfig | None, run_id: str | None = None,
                     max_workers: int = 4) -> JSONObject:
    """A new run gets its id now, so the job links to it from the first answer and a resume continues it."""
    return to_json(BenchmarkJob(run_id or new_run_id(), list(items) if items is not None else None, cfg,
                                max_workers))


def run_benchmark_job(params: JSONObject, ctx: JobContext) -> JSONObject:
    job = parse(BenchmarkJob, params)
    held = _run_lease(run_lease_name(job.run_id), ctx)
    try:
        return _benchmark(job, params, ctx)
    finally:
        held.release()


def _benchmark(job: BenchmarkJob, params: JSONObject, ctx: JobContext) -> JSONObject:
    run_id = job.run_id
    resuming = load_run(run_id) is not None
    items = None if resuming else job.items
    cfg = None if resuming else job.config
    svc = _services()
    ctx.link(run_id=run_id)
    slim = {"done": resuming}
    pace = estimates.Pace()

    def progress(done: int, total: int, msg: str) -> None:
        if not slim["done"]:  # the run exists now and stores its own items: drop the copy in the job's row
            slim["done"] = True
            ctx.slim_params({k: v for k, v in params.items() if k != "items"})
        left = pace.left(done, total)
        ctx.progress("bench", done / max(total, 1), f"{done}/{total} {msg}" + (f" · {left}" if left else ""))

    summary = run_benchmark(items, cfg, svc, run_id=run_id, progress=progress, cancel=ctx.cancel,
                            max_workers=job.max_workers or 4)
    return {"run_id": summary.run_id, "summary": summary.cli_dict()}


def _run_lease(name: str, ctx: JobContext) -> Lease:
    """One job at a time per benchmark or exam run: a second job on the same run (two Resume clicks, the app and
    the CLI) is refused at once instead of answering, paying for and deleting the same rows twice."""
    lease = Lease(name, ctx.engine, f"job {ctx.job_id}")
    if not lease.try_acquire():
        raise UserError(f"This run is already being worked on ({holder_of(name, ctx.engine) or 'another job'}); "
                        "wait for it to finish or cancel it first.")
    return lease


def exam_params(model: str, shots: int, cot: bool, courses: list[str] | None, limit: int | None, split: str,
                circular: bool, restart: bool, max_workers: int = 4) -> JSONObject:
    return to_json(ExamJob(model, shots, cot, courses, limit, split, circular, restart, max_workers))


def run_exam_job(params: JSONObject, ctx: JobContext) -> JSONObject:
    pace = estimates.Pace()

    def progress(done: int, total: int, msg: str) -> None:
        left = pace.left(done, total)
        ctx.progress("exam", done / max(total, 1), f"{done}/{total} {msg}" + (f" · {left}" if left else ""))

    job = parse(ExamJob, params)
    key = json.dumps(job.run_key(), sort_keys=True)
    held = _run_lease(f"run:exam:{hashlib.sha256(key.encode()).hexdigest()[:16]}", ctx)
    try:
        res = run_exam(job.model, job.shots, job.cot, job.courses, job.limit, job.split, progress=progress,
                       cancel=ctx.cancel, circular=job.circular, restart=job.restart,
                       max_workers=job.max_workers or 4)
    finally:
        held.release()
    ctx.link(run_id=res.run_id)
    summary = res.as_dict()
    return {"run_id": res.run_id, "summary": {k: summary[k] for k in (
        "model", "shots", "circular", "partial", "n_questions", "n_courses", "failed", "unparsed", "M", "sigma",
        "cv", "I")}}


def generate_params(doc_id: str, chunk_indices: list[int], model: str, per_type: dict[str, int]) -> JSONObject:
    return to_json(GenerateJob(doc_id, list(chunk_indices), model, dict(per_type)))


def run_generate_job(params: JSONObject, ctx: JobContext) -> JSONObject:
    job = parse(GenerateJob, params)
    docs = _services().docs
    info = docs.get(job.doc_id)
    by_idx = {c.index: c for c in docs.chunks(info.doc_id)}
    passages = [by_idx[i] for i in job.chunks if i in by_idx]
    if not passages:
        raise UserError("None of the chosen passages is in the document any more (it was re-indexed); pick again.")

    def progress(done: int, total: int, msg: str) -> None:  # never raises: generate stops on ctx.cancel itself
        ctx.report("generate", done / max(total, 1), f"{done}/{total} {msg}")

    rep = generate(registry.get(job.model), passages, info.name, info.pages, job.per_type,
                   progress=progress, cancel=ctx.cancel)
    source = ""
    if rep.items:  # kept even when cancelled: they are finished items
        source = f"generated:{info.name}:{time.strftime('%Y-%m-%d %H:%M')}"
        ann.add_items(rep.items, source)
    ctx.link(source=source)
    return {"source": source, "generated": rep.generated, "well_formed": rep.well_formed, "kept": rep.kept,
            "problems": rep.problems[:200], "items": [it.as_dict() for it in rep.items]}


def _models_here(ids: list[str]) -> str | None:
    """Why this process cannot call these models (one not configured or unavailable here), or None."""
    for model_id in ids:
        try:
            registry.get(model_id)
        except UserError as exc:
            return str(exc)
    return None


def _benchmark_fit(params: JSONObject) -> str | None:
    try:
        job = parse(BenchmarkJob, params)
    except UserError:  # a row no handler can read: it runs, and fails with the reason, rather than wait
        return None
    stored = load_run(job.run_id)
    if stored is not None:  # a resumed run: its stored configuration
        cfg = stored[1]
    elif job.config is not None:
        cfg = job.config
    else:
        return None
    return _models_here([*cfg.models, *([cfg.judge] if cfg.judge else [])])


HANDLERS = {"ingest": run_ingest, REEMBED: run_reembed, "benchmark": run_benchmark_job, "exam": run_exam_job, "generate": run_generate_job}
def _model_fit(kind: type[ExamJob] | type[GenerateJob]) -> Callable[[JSONObject], str | None]:
    def fit(params: JSONObject) -> str | None:
        try:
            model = parse(kind, params).model
        except UserError:  # a row no handler can read: it runs, and fails with the reason, rather than wait
            return None
        return _models_here([model])
    return fit


FITS = {"benchmark": _benchmark_fit, "exam": _model_fit(ExamJob), "generate": _model_fit(GenerateJob)}
def _connected(ids: list[str]) -> list[Action]:
    """CONNECTED_MODEL where any of these models spends a key or a server's time (unknown ids fail later)."""
    def remote(model_id: str) -> bool:
        try:
            return not registry.get(model_id).local
        except UserError:
            return False
    return [Action.CONNECTED_MODEL] if any(remote(m) for m in ids) else []


def _benchmark_models(params: JSONObject) -> list[Action]:
    job = parse(BenchmarkJob, params)
    stored = load_run(job.run_id)
    cfg = stored[1] if stored is not None else job.config
    return _connected([*cfg.models, *([cfg.judge] if cfg.judge else [])] if cfg else [])


ACCESS: dict[str, tuple[Action, job_access.Needs | None]] = {
    "ingest": (Action.UPLOAD, None), REEMBED: (Action.SETTINGS, None),
    "benchmark": (Action.RUN_BENCHMARK, _benchmark_models),
    "exam": (Action.RUN_BENCHMARK, lambda p: _connected([parse(ExamJob, p).model])),
    "generate": (Action.RUN_BENCHMARK, lambda p: _connected([parse(GenerateJob, p).model]))}
for _kind, _handler in HANDLERS.items():
    jobs.register(_kind, _handler, FITS.get(_kind))
    job_access.register(_kind, *ACCESS[_kind])
job_parts.register_part(CELL_PART, lambda payload: answer_cell(payload, _services()))

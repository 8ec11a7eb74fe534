"""Long work as jobs: a row in the ``jobs`` table, a worker thread, progress, cancel, interrupted, resume.

- ``submit`` records a job and runs it on a thread of this process (the app's server process), so navigating,
  reloading the browser or clicking a widget never stops it. At most ``SLOTS`` jobs run at once here; the rest wait
  as *queued*.
- ``run_foreground`` runs the same job code in the caller's thread (the command line), recorded in the same table,
  so the app's sidebar shows command-line jobs too.
- A running job holds the lease ``job:<id>`` (leases.py): its heartbeat says it is alive. A job marked running
  whose lease is gone (the process was stopped or killed) is shown as **interrupted**, and ``resume`` starts it
  again from its parameters: benchmark and exam runs continue from their saved rows; an ingest starts over
  (it is atomic, so nothing half-done was kept).
- ``cancel`` sets a flag in the table, so any process can cancel any job; the worker sees it within a second.

What each kind of job does is registered from above (``register``, by lib/app/job_handlers.py), per process; this
module holds no handler's code. Who may start or manage a job, and whom it runs as: job_access.py. A handler is
``fn(params, ctx) -> result dict``; it reports with ``ctx.progress`` and stops early when ``ctx.cancel`` is set.
"""
from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Row, insert, select, update
from sqlalchemy.engine import Connection, Engine

from lib.core import access
from lib.core.errors import UserError
from lib.core.json_types import JSONObject
from lib.core.progress import ProgressFn
from lib.core.redaction import redact
from lib.storage import job_access, leases, tables, work_queue
from lib.storage.engine import get_engine
from lib.storage.job_resume import MAX_ATTEMPTS, attempts
from lib.storage.job_resume import resume_params as resume_params  # the command line resumes with it

Handler = Callable[[JSONObject, "JobContext"], JSONObject]
_handlers: dict[str, Handler] = {}  # kind -> handler, filled by ``register``
ACTIVE = ("queued", "running")
RESUMABLE = ("interrupted", "cancelled", "failed")
SLOTS = 2  # jobs running at once in one process (2 cores here; more only slows each one)
PROGRESS_EVERY_S = 0.3
QUEUED_GRACE_S = 120.0  # a queued row with no live process behind it for this long is interrupted
WORKER_ORIGIN = "worker"  # a job queued for the worker processes (work_queue.py)
_log = logging.getLogger(__name__)


_fits: dict[str, Callable[[JSONObject], str | None]] = {}  # kind -> why this process cannot run a job of it
REFIT_S = 5  # a job a worker cannot run here goes back to the queue for this long before any worker looks again


def register(kind: str, handler: Handler, fit: Callable[[JSONObject], str | None] | None = None) -> None:
    """Name a kind of job and the function that runs it (called by the app layer when it is imported). ``fit``
    says why this process could not run a job of it (a model not configured here), or None: a worker that
    cannot run a job leaves it queued for one that can, instead of failing it."""
    _handlers[kind] = handler
    if fit is not None:
        _fits[kind] = fit


def kinds() -> tuple[str, ...]:
    """The kinds of job registered in this process."""
    return tuple(_handlers)


class JobCancelledError(Exception):
    """Raised inside a job to stop it at a safe point after a cancel request."""


@dataclass
class Job:
    job_id: str
    kind: str
    title: str
    status: str
    progress: float
    message: str
    params: JSONObject
    result: JSONObject
    error: str | None
    cancel_requested: bool
    origin: str
    resumed_from: str | None
    created_at: float
    started_at: float | None
    ended_at: float | None
    runs_on: str | None = None  # where a running job runs: "host (process N)", from its lease
    elsewhere: bool = False  # it runs in another process than this one (a worker): worth a word on its card
    dismissed: bool = False  # a user hid it from the app's job panel (it stays in the store and the CLI's list)
    owner: str | None = None  # who started it (job_access.py); it runs as them
    owner_role: str | None = None

    @property
    def active(self) -> bool:
        return self.status in ACTIVE

    @property
    def seconds(self) -> float | None:
        if self.started_at is None:
            return None
        return (self.ended_at or time.time()) - self.started_at

    @property
    def resumable(self) -> bool:
        """Interrupted and cancelled jobs resume; a failed one only where the failure may pass (a model or server
        error in a benchmark, exam or generation). A failed ingest is a file the user must fix or upload again."""
        if self.status == "failed" and self.kind == "ingest":
            return False
        return self.status in RESUMABLE and self.kind in _handlers


class JobContext:
    """What a handler gets: progress reporting, the cancel flag, and a place for its result link."""

    def __init__(self, job_id: str, engine: Engine, printer: ProgressFn | None = None) -> None:
        self.job_id, self.engine, self.printer = job_id, engine, printer
        self.cancel = threading.Event()
        self.handed_back = False  # set with ``cancel`` when the worker running it stops (hand_back_running)
        self.foreground = False  # run in the caller's thread (the command line), not in the background
        self.kind = ""
        self.result: JSONObject = {}
        self._last_write = 0.0

    def report(self, stage: str, fraction: float, message: str = "") -> None:
        """Record progress (0..1 of the whole job). Never raises: a progress row that cannot be written now (the
        store busy with a big commit) is skipped, never the job's end."""
        if self.printer:
            self.printer(stage, fraction, message)
        now = time.monotonic()
        if now - self._last_write >= PROGRESS_EVERY_S or fraction >= 1.0:
            self._last_write = now
            try:
                with self.engine.begin() as c:
                    c.execute(update(tables.jobs).where(tables.jobs.c.job_id == self.job_id)
                              .values(progress=max(0.0, min(1.0, float(fraction))), message=redact(message)[:500]))
            except Exception:  # noqa: BLE001 - the next report writes again
                pass

    def progress(self, stage: str, fraction: float, message: str = "") -> None:
        """``report``, then raise JobCancelledError once a cancel was requested, so a handler whose inner code
        only offers a progress callback still stops there. Use ``report`` where stopping would lose work."""
        self.report(stage, fraction, message)
        if self.cancel.is_set():
            raise JobCancelledError()

    def slim_params(self, params: JSONObject) -> None:
        """Replace the stored parameters with what a resume still needs (a started run keeps its own items)."""
        with self.engine.begin() as c:
            c.execute(update(tables.jobs).where(tables.jobs.c.job_id == self.job_id).values(params=json.dumps(params)))

    def link(self, **result: Any) -> None:
        """Record the result link now (a benchmark's run id is known before its first answer)."""
        self.result.update(result)
        with self.engine.begin() as c:
            c.execute(update(tables.jobs).where(tables.jobs.c.job_id == self.job_id)
                      .values(result=json.dumps(self.result)))


_local_active: set[str] = set()  # jobs this process has accepted and not finished
_running: dict[str, JobContext] = {}  # the contexts of the jobs running in this process now
_local_lock = threading.Lock()
_slots = threading.BoundedSemaphore(SLOTS)


def _engine(engine: Engine | None) -> Engine:
    return engine or get_engine()


def _new_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


def _insert(kind: str, title: str, params: JSONObject, origin: str, engine: Engine, status: str,
            resumed_from: str | None = None, job_id: str | None = None, conn: Connection | None = None) -> str:
    if kind not in _handlers:
        raise UserError(f"Unknown job kind '{kind}'; known: {', '.join(_handlers) or 'none registered'}.")
    job_id, now = job_id or _new_id(), time.time()
    who = job_access.authorize_start(kind, params, title)
    row = dict(job_id=job_id, kind=kind, title=title, status=status, progress=0.0, message="waiting to start",
               params=json.dumps(params), result=json.dumps({}), cancel_requested=0, origin=origin,
               resumed_from=resumed_from, created_at=now, started_at=now if status == "running" else None,
               owner=who.id, owner_role=who.role.word if who.role else None)
    if conn is not None:
        conn.execute(insert(tables.jobs).values(**row))
        return job_id
    with engine.begin() as c:
        c.execute(insert(tables.jobs).values(**row))
    return job_id


def _watch_cancel(ctx: JobContext, stop: threading.Event) -> None:
    """Poll the table's cancel flag, so a cancel from any page or process reaches the worker."""
    while not stop.wait(0.5):
        try:
            with ctx.engine.connect() as c:
                flag = c.execute(select(tables.jobs.c.cancel_requested)
                                 .where(tables.jobs.c.job_id == ctx.job_id)).scalar()
        except Exception:  # noqa: BLE001 - a missed poll is retried
            continue
        if flag:
            ctx.cancel.set()
            return


def _finish(engine: Engine, job_id: str, **values: Any) -> None:
    """The job's end, recorded only while it is active: a job another process took for stopped (and resumed) keeps
    that status, so its late end never reads as a second result."""
    values["ended_at"] = time.time()
    if values.get("result"):  # results quote model output (generation problems): keys never stored
        values["result"] = redact(values["result"])
    if "error" in values and values["error"]:
        values["error"] = redact(str(values["error"]))[:2000]
    with engine.begin() as c:
        c.execute(update(tables.jobs).where(tables.jobs.c.job_id == job_id, tables.jobs.c.status.in_(ACTIVE))
                  .values(**values))


def _hold(job_id: str, kind: str, engine: Engine) -> leases.Lease:
    """The job's lease, taken before its row exists and held (with its heartbeat) until it ends, queued time
    included: while it is held, no process reads the job as interrupted."""
    lease = leases.Lease(f"job:{job_id}", engine, f"job {kind}")
    if not lease.try_acquire():  # a fresh id: only fails when the store is unwritable
        raise UserError("Could not record the job; is the store writable?")
    return lease


def _execute(job_id: str, kind: str, params: JSONObject, engine: Engine, printer: ProgressFn | None,
             foreground: bool, lease: leases.Lease) -> JSONObject:
    ctx = JobContext(job_id, engine, printer)
    ctx.kind, ctx.foreground = kind, foreground
    stop = threading.Event()
    watcher = threading.Thread(target=_watch_cancel, args=(ctx, stop), name=f"job-cancel:{job_id}", daemon=True)
    with _local_lock:
        _running[job_id] = ctx
    try:
        with engine.begin() as c:
            started = c.execute(update(tables.jobs).where(tables.jobs.c.job_id == job_id,
                                                         tables.jobs.c.status.in_(ACTIVE))
                                .values(status="running", started_at=time.time(), message="starting")).rowcount
        if not started:  # cancelled while it waited for a slot
            return {}
        watcher.start()
        mine = get(job_id, engine)
        with access.acting_as(job_access.runs_as(mine.owner, mine.owner_role) or access.current()):
            result = _handlers[kind](params, ctx)
        result = {**ctx.result, **(result or {})}
        # an ingest that returns has indexed its document (past the last safe point a cancel is too late); a run
        # that returns after a cancel stopped early
        stopped = ctx.cancel.is_set() and kind != "ingest"
        if ctx.handed_back and stopped:
            _finish(engine, job_id, status="interrupted", result=json.dumps(result, default=str), message=HANDED_BACK)
            return result
        status = "cancelled" if stopped else "done"
        done = {"progress": 1.0, "message": "finished"} if status == "done" else {
            "message": "cancelled; finished answers are kept" if kind != "ingest" else "cancelled; not indexed"}
        _finish(engine, job_id, status=status, result=json.dumps(result, default=str), **done)
        return result
    except JobCancelledError:
        if ctx.handed_back:
            _finish(engine, job_id, status="interrupted", result=json.dumps(ctx.result, default=str),
                    message=HANDED_BACK)
            return ctx.result
        _finish(engine, job_id, status="cancelled", result=json.dumps(ctx.result, default=str),
                message="cancelled; not indexed" if kind == "ingest" else "cancelled; finished answers are kept")
        if foreground:
            raise UserError("Cancelled; finished work is kept.") from None
        return ctx.result
    except UserError as exc:
        _finish(engine, job_id, status="failed", error=str(exc), result=json.dumps(ctx.result, default=str))
        raise
    except KeyboardInterrupt:
        _finish(engine, job_id, status="interrupted", result=json.dumps(ctx.result, default=str),
                message="stopped from the keyboard; resume to continue")
        raise
    except Exception as exc:
        _finish(engine, job_id, status="failed", result=json.dumps(ctx.result, default=str),
                error=f"unexpected failure ({type(exc).__name__}): {exc}")
        raise
    finally:
        stop.set()
        with _local_lock:
            _running.pop(job_id, None)
        with contextlib.suppress(Exception):  # never mask the job's own outcome; the lease expires by itself
            lease.release()


HANDED_BACK = "its worker was stopped; queued again for another worker, continuing from its saved rows"
# what is handed back when its worker stops: these continue from their saved rows (an ingest starts again: it is
# atomic; a re-embedding goes on with the documents it had not switched yet). An item generation runs to its end
# first: resumed, it would write its items again.
HAND_BACK_KINDS = ("ingest", "benchmark", "exam", "reembed")


def hand_back_running() -> list[str]:
    """Stop every job this process runs at its next safe point, to be queued again (a worker's Ctrl+C or SIGTERM:
    it gives its work back rather than making the user wait for a long run to end). Returns their ids."""
    with _local_lock:
        running = [c for c in _running.values() if c.kind in HAND_BACK_KINDS and not c.cancel.is_set()]
    for ctx in running:  # a job a user cancelled winds down as cancelled; it is not queued again
        ctx.handed_back = True
        ctx.cancel.set()
    return [ctx.job_id for ctx in running]


def _open(kind: str, title: str, params: JSONObject, origin: str, engine: Engine, status: str,
          resumed_from: str | None) -> tuple[str, leases.Lease]:
    """A new job: its lease first, then its row, then this process's note that it is running it."""
    job_id = _new_id()
    lease = _hold(job_id, kind, engine)
    try:
        _insert(kind, title, params, origin, engine, status, resumed_from, job_id)
    except BaseException:
        lease.release()
        raise
    with _local_lock:
        _local_active.add(job_id)
    return job_id, lease


def submit(kind: str, params: JSONObject, title: str, engine: Engine | None = None,
           resumed_from: str | None = None, to_workers: bool = False) -> str:
    """Record a job and run it in the background of this process, or, with workers (work_queue.enabled, or
    ``to_workers`` for a job a worker queues again), queue it for whichever worker is free. Returns its id."""
    engine = _engine(engine)
    if to_workers or work_queue.enabled(engine):
        if kind not in _handlers:
            raise UserError(f"Unknown job kind '{kind}'; known: {', '.join(_handlers) or 'none registered'}.")
        try:
            work_queue.prepare(engine)
            with engine.begin() as c:  # the job's row and its place in the queue: both, or neither
                job_id = _insert(kind, title, params, WORKER_ORIGIN, engine, "queued", resumed_from, conn=c)
                work_queue.enqueue(job_id, engine, c)
        except UserError:
            raise
        except Exception as exc:
            raise UserError(f"Could not queue the job for the workers ({type(exc).__name__}); is the store "
                            "reachable?") from exc
        return job_id
    job_id, lease = _open(kind, title, params, "app", engine, "queued", resumed_from)

    def worker() -> None:
        try:
            with _slots:
                _execute(job_id, kind, params, engine, None, False, lease)
        except BaseException:  # noqa: BLE001 - recorded in the row by _execute; a worker thread has no caller
            pass
        finally:
            with _local_lock:
                _local_active.discard(job_id)

    threading.Thread(target=access.in_this_context(worker), name=f"job:{job_id}", daemon=True).start()
    return job_id


def run_queued(job_id: str, engine: Engine | None = None) -> str:
    """A worker's part: run a queued job, holding its lease (so its host and process are the job's, and a killed
    worker's job reads as interrupted). Returns what happened: "done", "skipped" (no longer queued, or another
    worker holds it) or the job's end status."""
    engine = _engine(engine)
    job = get(job_id, engine)
    if job.status != "queued" or job.kind not in _handlers:
        return "skipped"
    why = _fits[job.kind](job.params) if job.kind in _fits else None
    if why:  # not this worker's: back in the queue for another (this one may look again in REFIT_S)
        with engine.begin() as c:
            c.execute(update(tables.jobs).where(tables.jobs.c.job_id == job_id, tables.jobs.c.status == "queued")
                      .values(message=redact(f"waiting for a worker that can run it (one could not: {why})")[:500]))
        work_queue.enqueue(job_id, engine, delay_s=REFIT_S)
        _log.warning("worker: job %s left for another worker: %s", job_id, redact(why)[:300])
        return "skipped"
    lease = leases.Lease(f"job:{job_id}", engine, f"job {job.kind} (worker)")
    if not lease.try_acquire():
        return "skipped"
    with _local_lock:
        _local_active.add(job_id)
    try:
        _execute(job_id, job.kind, job.params, engine, None, False, lease)
    except BaseException:  # noqa: BLE001 - recorded in the row by _execute; the worker goes on to the next job
        pass
    finally:
        with _local_lock:
            _local_active.discard(job_id)
    ended = get(job_id, engine)
    if ended.status == "interrupted" and ended.message == HANDED_BACK:  # this worker stops: another takes it now
        _requeue(ended, engine)
    return ended.status


def _requeue(job: Job, engine: Engine) -> str | None:
    """Queue an interrupted worker job again as a new job, once (a second worker asking is refused by
    ``claim_resume``). If the queue cannot take it, it is interrupted again, for the next look: never left
    resumed with no job to continue it. Returns the new id."""
    with access.acting_as(job_access.runs_as(job.owner, job.owner_role) or access.current()):  # still theirs
        try:
            claim_resume(job.job_id, engine)
        except UserError:  # another worker took it first
            return None
        try:
            return submit(job.kind, resume_params(job), job.title, engine, resumed_from=job.job_id, to_workers=True)
        except UserError:
            t = tables.jobs
            with engine.begin() as c:
                c.execute(update(t).where(t.c.job_id == job.job_id, t.c.status == "resumed").values(
                    status="interrupted", message="could not be queued again yet; tried again in a few seconds"))
            return None


def run_foreground(kind: str, params: JSONObject, title: str, printer: ProgressFn | None = None,
                   engine: Engine | None = None, resumed_from: str | None = None) -> JSONObject:
    """Run a job in this thread (the command line), recorded like any other. Returns its result."""
    engine = _engine(engine)
    job_id, lease = _open(kind, title, params, "cli", engine, "running", resumed_from)
    try:
        return _execute(job_id, kind, params, engine, printer, True, lease)
    finally:
        with _local_lock:
            _local_active.discard(job_id)


def cancel(job_id: str, engine: Engine | None = None) -> None:
    engine = _engine(engine)
    job = get(job_id, engine)
    job_access.check_own(job.owner, job.title)
    if not job.active:
        raise UserError(f"Job {job_id} is not running ({job.status}); nothing to cancel.")
    with engine.begin() as c:
        c.execute(update(tables.jobs).where(tables.jobs.c.job_id == job_id).values(cancel_requested=1))
        if job.status == "queued" and job.origin == WORKER_ORIGIN:  # no worker has it: cancelled now, and skipped
            t = tables.jobs
            c.execute(update(t).where(t.c.job_id == job_id, t.c.status == "queued").values(
                status="cancelled", ended_at=time.time(), message="cancelled before a worker took it"))
        if job.status == "queued":  # not started: it never will
            c.execute(update(tables.jobs).where(tables.jobs.c.job_id == job_id, tables.jobs.c.status == "queued")
                      .values(status="cancelled", ended_at=time.time(), message="cancelled before it started"))


def dismiss(job_id: str, engine: Engine | None = None) -> None:
    """Hide an ended job from the app's job panel, for everyone and for good (the store and the CLI keep it)."""
    engine = _engine(engine)
    if (job := get(job_id, engine)).active:
        raise UserError(f"That job is still {job.status}; cancel it before dismissing it.")
    job_access.check_own(job.owner, job.title)
    with engine.begin() as c:
        c.execute(update(tables.jobs).where(tables.jobs.c.job_id == job_id, tables.jobs.c.dismissed_at.is_(None))
                  .values(dismissed_at=time.time()))


def claim_resume(job_id: str, engine: Engine | None = None) -> Job:
    """Mark an interrupted, cancelled or failed job as *resumed*, once: a second click, tab or process that asks
    to resume the same job is refused instead of starting a second worker on the same run."""
    engine = _engine(engine)
    job = get(job_id, engine)
    job_access.check_own(job.owner, job.title)
    if not job.resumable:
        raise UserError(f"Job {job_id} is {job.status}; only an interrupted, cancelled or failed job can be resumed.")
    with engine.begin() as c:
        claimed = c.execute(update(tables.jobs).where(tables.jobs.c.job_id == job_id,
                                                     tables.jobs.c.status.in_(RESUMABLE))
                            .values(status="resumed", message="resumed as a new job")).rowcount
    if not claimed:
        raise UserError(f"Job {job_id} was resumed already (or changed meanwhile); see the jobs list.")
    return job


def resume(job_id: str, engine: Engine | None = None) -> str:
    """Start an interrupted (or cancelled, or failed) job again, in the background, from its parameters and its
    result link. The original is marked resumed, so it is resumed once."""
    engine = _engine(engine)
    access.authorize(job_access.action_of(get(job_id, engine).kind), job_id)  # before it is marked resumed
    job = claim_resume(job_id, engine)
    return submit(job.kind, resume_params(job), job.title, engine, resumed_from=job_id)


def requeue_interrupted(engine: Engine | None = None, limit: int = 200) -> list[str]:
    """Jobs queued for the workers whose worker died (their lease expired: at once when its process is gone on
    the host that looks, else after leases.EXPIRY_S) go back to the queue, once each (``claim_resume``), as
    new jobs that continue from their saved rows. Workers call this every few seconds. Returns the new ids."""
    engine = _engine(engine)
    t = tables.jobs
    with engine.connect() as c:  # every worker job that runs or was cut off, however old: not the newest N
        rows = c.execute(select(t).where(t.c.origin == WORKER_ORIGIN, t.c.status.in_(("running", "interrupted")))
                         .order_by(t.c.created_at).limit(limit)).fetchall()
    out = []
    for r in (_mark_interrupted(list(rows), engine) if rows else []):
        if r.status != "interrupted":
            continue
        job = _row(r)
        if attempts(job, engine) >= MAX_ATTEMPTS:  # a file that kills its worker each time is not tried forever
            with engine.begin() as c:
                c.execute(update(t).where(t.c.job_id == job.job_id, t.c.status == "interrupted").values(
                    status="failed", error=f"its worker stopped {MAX_ATTEMPTS} times on it; not tried again"))
            continue
        new = _requeue(job, engine)
        if new:
            out.append(new)
    return out


def _row(r: Any) -> Job:
    m = r._mapping
    return Job(job_id=r.job_id, kind=r.kind, title=r.title, status=r.status, progress=float(r.progress or 0.0),
               message=r.message or "", params=json.loads(m.get("params") or "{}"),
               result=json.loads(m.get("result") or "{}"),
               error=r.error, cancel_requested=bool(r.cancel_requested), origin=r.origin or "app",
               resumed_from=r.resumed_from, created_at=float(r.created_at), started_at=r.started_at,
               ended_at=r.ended_at, dismissed=m.get("dismissed_at") is not None, owner=m.get("owner"),
               owner_role=m.get("owner_role"))


def _mark_interrupted(rows: list[Row[Any]], engine: Engine) -> list[Row[Any]]:
    """Jobs recorded as running whose process is gone (no live ``job:`` lease) become interrupted."""
    # a job queued for the workers waits in the queue, however long: it has no process behind it until one takes it
    candidates = [r for r in rows if r.status in ACTIVE and r.job_id not in _local_active
                  and not (r.status == "queued" and r.origin == WORKER_ORIGIN)]
    if not candidates:
        return rows
    alive = leases.live("job:", engine)
    now = time.time()
    gone = [r.job_id for r in candidates if f"job:{r.job_id}" not in alive
            and (r.status == "running" or now - float(r.created_at) > QUEUED_GRACE_S)]
    if not gone:
        return rows
    with engine.begin() as c:
        c.execute(update(tables.jobs).where(tables.jobs.c.job_id.in_(gone), tables.jobs.c.status.in_(ACTIVE))
                  .values(status="interrupted", ended_at=now,
                          message="the process running it stopped (a restart?); resume to continue"))
    cols = [tables.jobs.c[k] for k in rows[0]._mapping]
    with engine.connect() as c:
        return list(c.execute(select(*cols).where(tables.jobs.c.job_id.in_([r.job_id for r in rows]))
                              .order_by(tables.jobs.c.created_at.desc())).fetchall())


def list_jobs(limit: int = 20, engine: Engine | None = None, kind: str | None = None, light: bool = False) -> list[Job]:
    """The latest jobs, newest first, with interrupted ones recognised. ``light`` leaves out parameters and
    results (a benchmark's items, a generation's items), for views polled every second or two; ``get`` reads
    one job whole."""
    engine = _engine(engine)
    cols = [c for c in tables.jobs.c if not (light and c.name in ("params", "result"))]
    q = select(*cols).order_by(tables.jobs.c.created_at.desc()).limit(limit)
    if kind:
        q = q.where(tables.jobs.c.kind == kind)
    with engine.connect() as c:
        rows = c.execute(q).fetchall()
    return _where(engine, [_row(r) for r in _mark_interrupted(list(rows), engine)])


def _where(engine: Engine, found: list[Job]) -> list[Job]:
    """Each active job's host and process (its lease's holder), wherever it runs."""
    if any(j.active for j in found):
        held = leases.holders("job:", engine)
        for j in found:
            j.runs_on = held.get(f"job:{j.job_id}") if j.active else None
            j.elsewhere = j.runs_on is not None and j.runs_on != leases.here()
    return found


def active_params(kind: str, engine: Engine | None = None) -> list[JSONObject]:
    """The parameters of every queued or running job of ``kind`` (a bulk ingest skips files already on their way)."""
    t = tables.jobs
    with _engine(engine).connect() as c:
        rows = c.execute(select(t.c.params).where(t.c.kind == kind, t.c.status.in_(ACTIVE))).fetchall()
    return [json.loads(r.params or "{}") for r in rows]


def get(job_id: str, engine: Engine | None = None) -> Job:
    engine = _engine(engine)
    with engine.connect() as c:
        r = c.execute(select(tables.jobs).where(tables.jobs.c.job_id == job_id)).first()
    if r is None:
        raise UserError(f"No job '{job_id}'.")
    return _where(engine, [_row(_mark_interrupted([r], engine)[0])])[0]


def wait(job_id: str, timeout: float = 600.0, engine: Engine | None = None) -> Job:
    """Block until a job finishes (tests and scripts)."""
    deadline = time.monotonic() + timeout
    while True:
        job = get(job_id, engine)
        if not job.active or time.monotonic() > deadline:
            return job
        time.sleep(0.2)

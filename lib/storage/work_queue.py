"""Jobs spread over worker processes on any machine that reaches the PostgreSQL store, with procrastinate.

procrastinate is a maintained task queue on PostgreSQL: it has locks, retries and workers that find their jobs by
LISTEN/NOTIFY. OpenAleph ingests documents with it. We chose it over writing a queue here, and over Celery or RQ,
which need a broker (Redis, RabbitMQ) beside the database the store already has. A queued task carries only a job
id. The ``jobs`` table stays the record of every job (its parameters, progress, cancel flag and result), so the Jobs
panel and ``python -m lib jobs`` read jobs the same way wherever they run.

Work goes to the queue only when the store is PostgreSQL and ``NEPAQA_WORKERS=queue`` is set: in embedded mode
(SQLite), and on PostgreSQL without that setting, jobs run in the process that started them, as before. A worker
(``python -m lib worker``) holds the job's lease while it runs it, so its host and process are the job's, and a
killed worker's job reads as interrupted once its lease expires (at once when the worker died on the host that
looks).
"""
from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import create_engine, inspect, make_url
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.pool import NullPool

from lib.core import config
from lib.core.errors import UserError
from lib.core.json_types import JSON, JSONObject

if TYPE_CHECKING:  # for the checker only: procrastinate is imported when a queue is used
    from procrastinate import App
    from procrastinate.types import JSONDict

QUEUE = "nepaqa"
TASK = "nepaqa.run_job"
PART_TASK = "nepaqa.run_part"  # one part of a job any worker may do: a benchmark's cell (job_parts.register_part)
SETTING = "NEPAQA_WORKERS"


def enabled(engine: Engine) -> bool:
    """Whether jobs go to workers: a PostgreSQL store and NEPAQA_WORKERS=queue."""
    return engine.dialect.name == "postgresql" and (config.get(SETTING) or "").strip().lower() == "queue"


def conninfo(engine: Engine) -> str:
    """The store's address as libpq's key=value string, each part quoted by psycopg (a password with spaces or
    quotes stays one value, and never appears in a libpq complaint about the URL's shape)."""
    from psycopg.conninfo import make_conninfo  # heavy: imported on first use, off start-up

    # the parameters the engine itself connects with: host, port, user, password, dbname and the URL's query
    # (several hosts, "?host=h1:5432&host=h2:5433", as libpq's "h1,h2" and "5432,5433"); not psycopg's adapters
    _, params = engine.dialect.create_connect_args(engine.url)
    return make_conninfo("", **{k: v for k, v in params.items() if isinstance(v, str | int) and v is not None})


_apps: dict[str, App] = {}  # one opened app per store in this process: queueing 100,000 files opens one pool
_apps_lock = threading.Lock()


def make_app(engine: Engine, run_job: Callable[[str], object] | None = None,
             run_part: Callable[[str, JSONObject], object] | None = None) -> App:
    """The procrastinate app on this store, with its two tasks: run the job with this id, and do one part of a
    job (``kind``, ``payload``)."""
    import procrastinate  # heavy: imported on first use, off start-up (and only in server mode)

    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=conninfo(engine)))

    def task(job_id: str) -> None:
        if run_job is not None:
            run_job(job_id)

    def part(kind: str, payload: JSONObject) -> None:
        if run_part is not None:
            run_part(kind, payload)

    app.task(name=TASK, queue=QUEUE, pass_context=False)(task)
    app.task(name=PART_TASK, queue=QUEUE, pass_context=False)(part)
    return app


def ensure_schema(app: App, engine: Engine) -> None:
    """procrastinate's tables, made once (its own schema: not part of the store's ledger)."""
    if inspect(engine).has_table("procrastinate_jobs"):
        return
    with app.open():
        try:
            app.schema_manager.apply_schema()
        except Exception:  # noqa: BLE001 - another process applied it first: fine if the tables are there now
            if not inspect(engine).has_table("procrastinate_jobs"):
                raise


def _app(engine: Engine) -> App:
    key = str(engine.url)
    with _apps_lock:
        app = _apps.get(key)
        if app is None:
            app = make_app(engine)
            ensure_schema(app, engine)
            app.open()
            _apps[key] = app
    return app


def prepare(engine: Engine) -> None:
    """Open the queue (its tables made) before a transaction that queues in it."""
    _app(engine)


def enqueue(job_id: str, engine: Engine, conn: Connection | None = None, delay_s: float = 0) -> None:
    """Queue the job for whichever worker is free (after ``delay_s``). With ``conn`` (a SQLAlchemy connection in a
    transaction, the one that writes the job's row), the queue's row is written in that same transaction: both or
    neither."""
    options: dict[str, Any] = {}  # procrastinate's configure() keywords: the connection to write in, a delay
    if conn is not None:
        options["connection"] = conn.connection.driver_connection
    if delay_s:
        options["schedule_in"] = {"seconds": delay_s}
    task = _app(engine).tasks[TASK]
    (task.configure(**options) if options else task).defer(job_id=job_id)


def enqueue_parts(kind: str, payloads: Sequence[Mapping[str, JSON]], engine: Engine) -> int:
    """Queue parts of a job (``kind``: what does them, job_parts.register_part) for whichever workers are free."""
    if payloads:
        # below whole jobs: a worker that is free takes the next job first, so a 10,000-cell run never holds up
        # the ingests queued after it (the run's own job answers its cells meanwhile)
        parts = [{"kind": kind, "payload": p} for p in payloads]
        _app(engine).tasks[PART_TASK].configure(priority=-1).batch_defer(
            *cast("list[JSONDict]", parts))  # our JSON is procrastinate's, spelled by another library
    return len(payloads)


def wait_for_store(url: str, log: Callable[[str], None], attempts: int = 0, delay: float = 2.0) -> None:
    """Until the store at ``url`` answers: a worker started while the database is down waits, saying so once per
    try (the host and port only: never the password). Checked with a bare connection, before the store is opened
    (opening it takes the schema steps, which need it up)."""
    probe = make_url(url)
    engine = create_engine(probe, poolclass=NullPool)
    tried = 0
    try:
        while True:
            try:
                with engine.connect() as c:
                    c.exec_driver_sql("SELECT 1")
                return
            except Exception as exc:  # noqa: BLE001 - any failure to connect is the same wait
                tried += 1
                where = f"{probe.host}:{probe.port}"
                if attempts and tried >= attempts:
                    raise UserError(f"The store at {where} does not answer ({type(exc).__name__}); gave up after "
                                    f"{tried} tries.") from None
                log(f"worker: the store at {where} does not answer ({type(exc).__name__}); trying again in "
                    f"{delay:.0f} s")
                time.sleep(delay)
    finally:
        engine.dispose()


def run_worker(engine: Engine, run_job: Callable[[str], object], concurrency: int = 1, wait: bool = True,
               run_part: Callable[[str, JSONObject], object] | None = None,
               on_stop: Callable[[], object] | None = None) -> None:
    """Take queued jobs until stopped, ``concurrency`` at a time; with ``wait=False``, until the queue is empty.
    Ctrl+C or SIGTERM calls ``on_stop`` (the worker hands its running jobs back), then the worker takes no more
    and ends once its running jobs have stopped; a second Ctrl+C ends it at once."""
    from procrastinate import worker as worker_module  # heavy: imported with the worker, off start-up

    app = make_app(engine, run_job, run_part)
    ensure_schema(app, engine)

    async def main() -> None:
        async with app.open_async():
            # the queue's own rows go once done: the jobs table is the record
            w = worker_module.Worker(app=app, queues=[QUEUE], concurrency=concurrency, wait=wait,
                                     install_signal_handlers=False, delete_jobs="successful")
            loop = asyncio.get_running_loop()

            def now() -> None:  # a second signal: out at once, as a kill would; its jobs are taken again
                sys.stderr.write("worker: stopped at once; its running jobs go to another worker once their "
                                 "leases expire\n")
                sys.stderr.flush()
                os._exit(130)

            def stop() -> None:
                for sig in (signal.SIGINT, signal.SIGTERM):
                    loop.add_signal_handler(sig, now)
                if on_stop is not None:
                    on_stop()
                w.stop()  # type: ignore[no-untyped-call]  # procrastinate does not annotate Worker.stop

            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, stop)
            await w.run()  # type: ignore[no-untyped-call]  # nor Worker.run

    asyncio.run(main())


__all__ = ["PART_TASK", "QUEUE", "SETTING", "TASK", "enabled", "enqueue", "enqueue_parts", "ensure_schema",
           "make_app", "prepare", "run_worker", "wait_for_store"]

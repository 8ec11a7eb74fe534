"""Long jobs: list, cancel and resume them; run a worker that takes queued jobs (server mode)."""
from __future__ import annotations

import argparse

from lib.app import workers
from lib.app.cli.common import (
    command,
    printer,
)
from lib.core.errors import UserError
from lib.storage import jobs


def add_parsers(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("jobs", help="list long jobs (ingest, benchmark, exam, generation) from the app and the CLI")
    s.add_argument("action", nargs="?", choices=["list", "cancel", "resume"], default="list")
    s.add_argument("job_id", nargs="?")
    s.add_argument("--limit", type=int, default=20)

    s = sub.add_parser("worker", help="take queued jobs from the PostgreSQL store (server mode, NEPAQA_WORKERS=queue)")
    s.add_argument("--concurrency", type=int, default=1, help="jobs at a time in this process")
    s.add_argument("--once", action="store_true", help="stop when the queue is empty (scripts and tests)")


@command("jobs")
def _jobs(a: argparse.Namespace) -> object:
    if a.action == "list":
        if a.limit < 1:
            raise UserError("--limit must be at least 1.")
        return [{"job_id": j.job_id, "kind": j.kind, "title": j.title, "status": j.status,
                 "progress": round(j.progress, 3), "message": j.message, "result": j.result, "error": j.error,
                 "origin": j.origin, "runs_on": j.runs_on,
                 "seconds": None if j.seconds is None else round(j.seconds, 1)}
                for j in jobs.list_jobs(a.limit)]
    if not a.job_id:
        raise UserError(f"Give the job id: python -m lib jobs {a.action} JOB_ID (see python -m lib jobs).")
    if a.action == "cancel":
        jobs.cancel(a.job_id)
        return {"job_id": a.job_id, "status": "cancel requested"}
    job = jobs.claim_resume(a.job_id)
    return jobs.run_foreground(job.kind, jobs.resume_params(job), job.title, printer(), resumed_from=job.job_id)


@command("worker")
def _worker(a: argparse.Namespace) -> object:
    return workers.run(a.concurrency, once=a.once)


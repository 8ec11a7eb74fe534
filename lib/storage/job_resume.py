"""Running a job again: how many runs a job has had (itself and those it was resumed from), and the parameters
that continue it rather than start it over."""
from __future__ import annotations

from typing import Protocol

from sqlalchemy import select
from sqlalchemy.engine import Engine

from lib.core.json_types import JSONObject
from lib.storage import tables


class Job(Protocol):
    """What these read of a job (lib/storage/jobs.py's Job)."""
    kind: str
    params: JSONObject
    result: JSONObject
    resumed_from: str | None


MAX_ATTEMPTS = 3  # runs of one job (itself and the jobs it was resumed from) before a dead worker's job is failed


def attempts(job: Job, engine: Engine) -> int:
    n, prev = 1, job.resumed_from
    t = tables.jobs
    while prev and n < MAX_ATTEMPTS:
        with engine.connect() as c:
            prev = c.execute(select(t.c.resumed_from).where(t.c.job_id == prev)).scalar()
        n += 1
    return n


def resume_params(job: Job) -> JSONObject:
    """A job's parameters for running it again: a benchmark continues its own run from the saved rows, an exam
    continues from its saved answers (never starting over), an ingest starts again (it is atomic)."""
    params = dict(job.params)
    if job.kind == "benchmark" and job.result.get("run_id"):
        params["run_id"] = job.result["run_id"]
    if job.kind == "exam":
        params["restart"] = False
    return params

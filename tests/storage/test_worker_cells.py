"""A benchmark spread by cell over worker processes on a real PostgreSQL: every worker answers cells, each cell once;
the per-model limit and a 429's Retry-After hold across all of them; the scores are those of a run in one process;
Ctrl+C on a worker hands its job back to the queue at once. Also: a job's row and its queue entry are written in
one transaction, and a lease is judged by process only where its host identity (kernel and process namespace, not
the hostname alone) is this one's."""
from __future__ import annotations

import signal
import time

import pytest
from sqlalchemy import select

from lib.app import job_handlers
from lib.core import config
from lib.evaluation.benchmark.dataset import load_items
from lib.evaluation.benchmark.runs import RunConfig
from lib.models import registry
from lib.storage import jobs, leases, tables, work_queue
from lib.storage.engine import get_engine
from tests.fake_llm_server import FakeLLMServer
from tests.storage.test_jobs import _answers
from tests.storage.test_workers import _env, _until, _worker


def _submit(monkeypatch, url: str, n: int, run_id: str, max_workers: int) -> tuple[str, object]:
    monkeypatch.setenv("NEPAQA_DATABASE_URL", url)
    monkeypatch.setenv("NEPAQA_WORKERS", "queue")
    eng = get_engine(url)
    items, _ = load_items(config.SAMPLE20)
    cfg = RunConfig(models=["openai/gpt-slow"], modes=["none"], limit=n)
    return jobs.submit("benchmark", job_handlers.benchmark_params(items[:n], cfg, run_id, max_workers=max_workers),
                       f"benchmark {run_id}", eng), eng


def _scores(eng, run_id: str) -> dict:
    s = tables.bench_scores
    with eng.connect() as c:
        rows = c.execute(select(s.c.item_id, s.c.metric, s.c.value, s.c.status).where(s.c.run_id == run_id)).fetchall()
    return {(r.item_id, r.metric): (r.value, r.status) for r in rows}


def _stop(*workers) -> None:  # noqa: ANN002
    for w in workers:
        w.terminate()
    for w in workers:
        w.wait(60)


def test_cells_are_answered_by_every_worker_once_within_the_model_limit_and_score_as_in_one_process(
        tmp_path, pg_url, monkeypatch):
    n = 16

    def reply(body: dict) -> str:  # an answer of its own for each question, so each item scores differently
        question = body["messages"][-1]["content"]
        return " ".join(question.split()[-6:])

    with FakeLLMServer() as srv:
        srv.default = ("sleep", 0.3, reply)
        srv.track_pids = True
        env = {**_env(tmp_path, pg_url, srv), "NEPAQA_MODEL_LIMIT": "3"}
        workers = [_worker(env, "--concurrency", "2") for _ in range(2)]
        try:
            job_id, eng = _submit(monkeypatch, pg_url, n, "spread", max_workers=2)
            done = _until(lambda: (j := jobs.get(job_id, eng)).status not in jobs.ACTIVE and j, 180, "the run")
        finally:
            _stop(*workers)
        assert done.status == "done", done.error
        assert _answers(eng, "spread") == (n, n)  # every cell, once
        assert len(srv.requests) == n  # and asked once: no cell answered twice by two workers
        # demand was 4 or more at once (the job's 2 threads, the other worker's 2); the limit of 3 held over all
        assert srv.most_in_flight == 3
        assert {w.pid for w in workers} <= {r["pid"] for r in srv.requests}  # both workers answered cells

        # the same run in one process (no workers): the same scores, whoever answered
        monkeypatch.setenv("NEPAQA_WORKERS", "")
        monkeypatch.setenv("OPENAI_API_KEY", "test-key-for-the-local-server")
        monkeypatch.setenv("OPENAI_BASE_URL", srv.url + "/v1")
        monkeypatch.setenv("OPENAI_MODEL", "gpt-slow")
        registry.reset()  # this process's models, from the settings just made (an earlier test may have read others)
        srv.default = ("ok", reply)
        items, _ = load_items(config.SAMPLE20)
        cfg = RunConfig(models=["openai/gpt-slow"], modes=["none"], limit=n)
        try:
            jobs.run_foreground("benchmark", job_handlers.benchmark_params(items[:n], cfg, "alone"), "alone",
                                engine=eng)
        finally:
            registry.reset()
    spread, alone = _scores(eng, "spread"), _scores(eng, "alone")
    assert spread and spread == alone
    assert len({v for v, _ in spread.values()}) >= 4  # the scores differ by item: a real comparison


def test_a_429_pauses_the_model_for_every_worker_as_long_as_its_retry_after(tmp_path, pg_url, monkeypatch):
    n = 12
    with FakeLLMServer() as srv:
        srv.default = ("sleep", 0.2, "Yes.")
        srv.track_pids = True
        env = {**_env(tmp_path, pg_url, srv), "NEPAQA_PROVIDER_RETRIES": "3"}
        workers = [_worker(env, "--concurrency", "2") for _ in range(2)]
        try:
            job_id, eng = _submit(monkeypatch, pg_url, n, "paused", max_workers=2)
            _until(lambda: len(srv.requests) >= 3, 120, "the first answers")  # every worker is calling by now
            srv.script.append(("429", 2))  # the next request is refused: come back in 2 s
            done = _until(lambda: (j := jobs.get(job_id, eng)).status not in jobs.ACTIVE and j, 180, "the run")
        finally:
            _stop(*workers)
    assert done.status == "done", done.error
    assert _answers(eng, "paused") == (n, n)
    refused = next(r for r in srv.requests if r["kind"] == "429")
    t0 = refused["at"]
    during = [r for r in srv.requests if t0 + 0.3 < r["at"] < t0 + 1.9]
    assert during == []  # no worker called the model while it was paused (requests already sent may land at t0)
    after = [r for r in srv.requests if r["at"] >= t0 + 1.9]
    # both workers went on after the pause (the submitting process may take a part too: it is not asked here)
    assert {w.pid for w in workers} <= {r["pid"] for r in after}
    with eng.connect() as c:
        failed = c.execute(select(tables.bench_answers.c.item_id).where(
            tables.bench_answers.c.run_id == "paused", tables.bench_answers.c.status == "failed")).fetchall()
    assert failed == []  # the refused call was retried after the pause, not recorded as a failure


def test_ctrl_c_on_a_worker_hands_its_job_back_at_once(tmp_path, pg_url, monkeypatch):
    n = 20
    with FakeLLMServer() as srv:
        srv.default = ("sleep", 0.4, "Yes.")
        env = _env(tmp_path, pg_url, srv)
        first = _worker(env)
        try:
            job_id, eng = _submit(monkeypatch, pg_url, n, "handed-back", max_workers=1)
            _until(lambda: _answers(eng, "handed-back")[0] >= 2, 120, "the first answers")
            first.send_signal(signal.SIGINT)
            asked = time.monotonic()
            first.wait(30)
            assert time.monotonic() - asked < 10  # it did not wait for the 20-cell run to end
        finally:
            if first.poll() is None:
                first.kill()
        err = first.stderr.read()
        kept = _answers(eng, "handed-back")[0]
        assert kept < n and "1 running job(s) handed back" in err and "Traceback" not in err
        old = jobs.get(job_id, eng)
        assert old.status == "resumed"  # handed back, and queued again at once as a new job
        again = next(j for j in jobs.list_jobs(10, eng) if j.resumed_from == job_id)
        assert again.status == "queued" and again.origin == jobs.WORKER_ORIGIN
        srv.default = ("ok", "Yes.")
        second = _worker(env)
        try:
            finished = _until(lambda: (j := jobs.get(again.job_id, eng)).status == "done" and j, 120, "the rest")
        finally:
            _stop(second)
    assert finished.result["run_id"] == "handed-back"
    assert _answers(eng, "handed-back") == (n, n)


def test_a_job_and_its_place_in_the_queue_are_written_together(tmp_path, pg_url, monkeypatch):
    monkeypatch.setenv("NEPAQA_DATABASE_URL", pg_url)
    monkeypatch.setenv("NEPAQA_WORKERS", "queue")
    eng = get_engine(pg_url)
    real = work_queue.enqueue

    def crash_after_queueing(job_id, engine, conn=None):  # noqa: ANN001, ANN202 - the queue row, then a failure
        real(job_id, engine, conn)
        raise ConnectionError("the process died here")

    monkeypatch.setattr(work_queue, "enqueue", crash_after_queueing)
    with pytest.raises(Exception, match="Could not queue the job"):
        jobs.submit("ingest", job_handlers.ingest_params(str(tmp_path / "x.pdf")), "Index x.pdf", eng)
    with eng.connect() as c:
        assert c.execute(select(tables.jobs.c.job_id).where(tables.jobs.c.title == "Index x.pdf")).first() is None
        assert c.exec_driver_sql("select count(*) from procrastinate_jobs").scalar() == 0  # neither was kept


def test_a_lease_is_judged_by_its_process_only_on_the_same_kernel_and_namespace(tmp_path):
    store = get_engine(f"sqlite:///{tmp_path / 'leases.db'}")
    dead = 2 ** 22 + 7  # no such process
    now = time.time()
    row = {"holder": "x", "host": leases.HOST, "pid": dead, "purpose": "", "heartbeat_at": now, "acquired_at": now}
    with store.begin() as c:
        c.execute(tables.leases.insert().values(name="here", host_id=leases.HOST_ID, **row))
        c.execute(tables.leases.insert().values(name="other-container", host_id="another-namespace", **row))
    live = leases.live("", store)
    assert "here" not in live  # its process is gone from this host: free at once
    assert "other-container" in live  # same hostname, another container: its process cannot be seen from here


def test_a_worker_set_up_differently_leaves_the_cells_to_the_run_and_stores_no_failure(tmp_path, pg_url,
                                                                                        monkeypatch):
    n = 20
    with FakeLLMServer() as srv:
        srv.default = ("sleep", 0.5, "Yes.")
        env = _env(tmp_path, pg_url, srv)
        unkeyed = {k: v for k, v in env.items() if not k.startswith("OPENAI_")}  # this one cannot call the model
        workers = [_worker(unkeyed, "--concurrency", "2")]
        try:
            job_id, eng = _submit(monkeypatch, pg_url, n, "unfit", max_workers=1)
            # only a worker that cannot call the model: it leaves the job queued (never fails it), saying why
            waiting = _until(lambda: "waiting for a worker that can run it" in (j := jobs.get(job_id, eng)).message
                             and j, 120, "the job left for another worker")
            assert waiting.status == "queued" and "not configured" in waiting.message
            workers.append(_worker(env, "--concurrency", "1"))  # one that can: it takes the job
            _until(lambda: (j := jobs.get(job_id, eng)).status == "running" and j, 120, "the job to start")
            done = _until(lambda: (j := jobs.get(job_id, eng)).status not in jobs.ACTIVE and j, 180, "the run")
        finally:
            _stop(*workers)
    assert done.status == "done", done.error
    with eng.connect() as c:
        statuses = [r.status for r in c.execute(select(tables.bench_answers.c.status).where(
            tables.bench_answers.c.run_id == "unfit"))]
    assert statuses == ["ok"] * n  # no "not configured" failure stored as an answer
    assert len(srv.requests) == n
    err = workers[0].stderr.read()
    assert "left for another worker" in err and "this worker's setup differs" in err


def test_a_stopping_worker_hands_back_only_what_continues_and_never_a_cancelled_job():
    made = []
    for kind, cancelled in (("benchmark", False), ("exam", True), ("generate", False)):
        ctx = jobs.JobContext(f"hand-{kind}", None)
        ctx.kind = kind
        if cancelled:
            ctx.cancel.set()  # the user's Cancel, still winding down
        made.append(ctx)
    with jobs._local_lock:
        jobs._running.update({c.job_id: c for c in made})
    try:
        assert jobs.hand_back_running() == ["hand-benchmark"]
        assert not made[1].handed_back  # stays the user's cancel
        assert not made[2].handed_back and not made[2].cancel.is_set()  # a generation runs to its end
    finally:
        with jobs._local_lock:
            for c in made:
                jobs._running.pop(c.job_id, None)

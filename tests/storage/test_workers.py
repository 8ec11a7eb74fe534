"""Jobs spread over worker processes (lib/storage/work_queue.py, procrastinate on a real PostgreSQL): a job queued by
one process and run by a worker process, shown with the worker's host and process, cancelled from elsewhere within
seconds; a worker killed with kill -9 whose job another worker takes again, continuing from its saved rows with
nothing duplicated; a worker started while the database is down waits with a clear line, not a traceback."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from sqlalchemy import select

from lib.app import job_handlers
from lib.core import config
from lib.evaluation.benchmark.dataset import load_items
from lib.evaluation.benchmark.runs import RunConfig
from lib.storage import jobs, tables
from lib.storage.engine import get_engine
from tests.conftest import ROOT, make_text_pdf
from tests.fake_llm_server import FakeLLMServer
from tests.storage.test_jobs import _answers


def _env(home: Path, url: str, srv: FakeLLMServer) -> dict:
    return {**os.environ, "NEPAQA_HOME": str(home), "NEPAQA_DATABASE_URL": url, "NEPAQA_WORKERS": "queue",
            "OPENAI_API_KEY": "test-key-for-the-local-server", "OPENAI_BASE_URL": srv.url + "/v1",
            "OPENAI_MODEL": "gpt-slow"}


def _worker(env: dict, *extra: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "lib", "worker", *extra], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _until(check, timeout: float, what: str):  # noqa: ANN001, ANN202 - a poll
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def _queue_benchmark(monkeypatch, url: str, n: int, run_id: str) -> tuple[str, object]:
    monkeypatch.setenv("NEPAQA_DATABASE_URL", url)
    monkeypatch.setenv("NEPAQA_WORKERS", "queue")
    eng = get_engine(url)
    items, _ = load_items(config.SAMPLE20)
    cfg = RunConfig(models=["openai/gpt-slow"], modes=["none"], limit=n)
    job_id = jobs.submit("benchmark", job_handlers.benchmark_params(items[:n], cfg, run_id, max_workers=1),
                         "a benchmark on the workers", eng)
    assert jobs.get(job_id, eng).status == "queued"  # queued for the workers: nothing runs in this process
    return job_id, eng


def test_a_queued_job_runs_on_a_worker_which_shows_and_a_cancel_reaches(tmp_path, pg_url, monkeypatch):
    with FakeLLMServer() as srv:
        srv.default = ("sleep", 0.4)
        job_id, eng = _queue_benchmark(monkeypatch, pg_url, 20, "on-a-worker")
        monkeypatch.setattr(jobs, "QUEUED_GRACE_S", 0.0)  # an app-queued job with no process would read interrupted
        time.sleep(0.5)
        assert jobs.get(job_id, eng).status == "queued"  # waiting for a worker: no process behind it, by design
        worker = _worker(_env(tmp_path, pg_url, srv))
        try:
            running = _until(lambda: (j := jobs.get(job_id, eng)).status == "running" and j.runs_on and j, 120,
                             "the worker to take the job")
            assert running.runs_on.endswith(f"(process {worker.pid})") and running.elsewhere  # "on a worker"
            _until(lambda: _answers(eng, "on-a-worker")[0] >= 2, 60, "answers")
            jobs.cancel(job_id, eng)
            asked = time.monotonic()
            done = _until(lambda: (j := jobs.get(job_id, eng)).status == "cancelled" and j, 30, "the cancel")
            assert time.monotonic() - asked < 5  # a cancel from another process reaches the worker in seconds
            assert done.message.startswith("cancelled; finished answers are kept")
            assert 2 <= _answers(eng, "on-a-worker")[0] < 20
        finally:
            worker.terminate()
            worker.wait(30)


def test_a_killed_workers_job_is_taken_again_by_another_and_nothing_is_duplicated(tmp_path, pg_url, monkeypatch):
    with FakeLLMServer() as srv:
        srv.default = ("sleep", 0.3)
        job_id, eng = _queue_benchmark(monkeypatch, pg_url, 12, "killed-worker")
        env = _env(tmp_path, pg_url, srv)
        first = _worker(env)
        try:
            _until(lambda: _answers(eng, "killed-worker")[0] >= 3, 120, "the first worker's answers")
        finally:
            first.send_signal(signal.SIGKILL)
            first.wait(10)
        kept = _answers(eng, "killed-worker")[0]
        assert 3 <= kept < 12
        srv.default = ("ok", "Yes.")
        asked_before = len(srv.requests)
        second = _worker(env)
        try:
            # its lease names a process gone from this host: interrupted at once, then queued again by the worker
            resumed = _until(lambda: next((j for j in jobs.list_jobs(10, eng) if j.resumed_from == job_id
                                           and j.status == "done"), None), 120, "the job taken again and done")
            assert jobs.get(job_id, eng).status == "resumed"
            assert resumed.result["run_id"] == "killed-worker" and resumed.origin == "worker"
            asked_after = len(srv.requests) - asked_before
        finally:
            second.terminate()
            err = second.communicate(timeout=60)[1]
    assert _answers(eng, "killed-worker") == (12, 12)  # every item answered: nothing lost
    assert asked_after <= 12 - kept + 1  # only the unanswered ones asked again (one may have been in flight)
    assert "queued again as" in err


def test_a_worker_started_while_the_database_is_down_waits_and_says_so(tmp_path):
    env = {**os.environ, "NEPAQA_HOME": str(tmp_path), "NEPAQA_WORKERS": "queue",
           "NEPAQA_DATABASE_URL": "postgresql+psycopg://nobody:secret-pw@127.0.0.1:9/nepaqa"}
    log = tmp_path / "worker.log"
    with log.open("w") as out:
        worker = subprocess.Popen([sys.executable, "-m", "lib", "worker"], cwd=ROOT, env=env,
                                  stdout=subprocess.DEVNULL, stderr=out)
        try:
            _until(lambda: log.read_text().count("trying again") >= 2, 60, "two tries logged")
            assert worker.poll() is None  # it waits; it does not exit
        finally:
            worker.terminate()
            worker.wait(30)
    err = log.read_text()
    assert "worker: the store at 127.0.0.1:9 does not answer" in err and "trying again" in err
    assert "Traceback" not in err and "secret-pw" not in err


def test_a_folder_is_queued_one_job_per_pdf_and_what_is_indexed_is_skipped(tmp_path, pg_url):
    folder = tmp_path / "archive"
    (folder / "vol2").mkdir(parents=True)
    make_text_pdf(folder / "a.pdf", ["The access road would be 21 miles long and would cross two streams. " * 8])
    make_text_pdf(folder / "vol2" / "b.pdf", ["Construction would employ about 300 workers at the peak. " * 8])
    (folder / "notes.txt").write_text("not a PDF, not picked up")
    env = {**os.environ, "NEPAQA_HOME": str(tmp_path / "home"), "NEPAQA_DATABASE_URL": pg_url,
           "NEPAQA_WORKERS": "queue"}

    def cli(*args: str) -> dict:
        out = subprocess.run([sys.executable, "-m", "lib", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                             timeout=300)
        assert out.returncode == 0, out.stderr
        if args[0] == "ingest":
            assert out.stdout.count("\n") == 1  # the summary is one JSON line
        return json.loads(out.stdout)

    (folder / "fake.pdf").write_text("a text file named .pdf")
    first = cli("ingest", "--queue", str(folder), str(tmp_path / "missing.pdf"))
    assert (first["queued"], first["skipped"], len(first["jobs"])) == (2, 0, 2)
    reasons = {Path(r["file"]).name: r["reason"] for r in first["refused"]}
    assert "No such file" in reasons["missing.pdf"] and "is not a PDF" in reasons["fake.pdf"]  # refused up front
    queued_again = cli("ingest", "--queue", str(folder))  # before any worker ran: on their way, not twice
    assert (queued_again["queued"], queued_again["skipped"]) == (0, 2)
    worker = subprocess.run([sys.executable, "-m", "lib", "worker", "--once"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=300)
    assert worker.returncode == 0, worker.stderr
    listed = {j["job_id"]: j for j in cli("jobs")}
    assert all(listed[j]["status"] == "done" for j in first["jobs"])
    assert sorted(d["name"] for d in cli("docs")) == ["a", "b"]
    again = cli("ingest", "--queue", str(folder))
    assert (again["queued"], again["skipped"], len(again["refused"])) == (0, 2, 1)
    no_workers = subprocess.run([sys.executable, "-m", "lib", "ingest", "--queue", str(folder)], cwd=ROOT,
                                env={**env, "NEPAQA_WORKERS": ""}, capture_output=True, text=True, timeout=120)
    assert no_workers.returncode == 2 and no_workers.stderr.startswith("error: --queue hands the files to the workers")


def test_a_job_no_worker_has_taken_is_cancelled_at_once(tmp_path, pg_url, monkeypatch):
    with FakeLLMServer():
        job_id, eng = _queue_benchmark(monkeypatch, pg_url, 3, "never-taken")
        jobs.cancel(job_id, eng)
        job = jobs.get(job_id, eng)
        assert (job.status, job.message) == ("cancelled", "cancelled before a worker took it")
        assert jobs.run_queued(job_id, eng) == "skipped"  # a worker that gets it later leaves it alone


def test_a_manifest_sets_metadata_over_extraction_and_a_bad_row_refuses_only_its_file(tmp_path, pg_url):
    from lib.documents import metadata as meta_lib
    from lib.storage.engine import get_engine

    folder = tmp_path / "archive"
    folder.mkdir()
    make_text_pdf(folder / "a.pdf", ["Prepared by the U.S. Army Corps of Engineers. The levee would be raised. " * 8])
    make_text_pdf(folder / "b.pdf", ["The pipeline would cross 12 streams and two wetlands in the valley. " * 8])
    (tmp_path / "manifest.csv").write_text(
        "file,lead_agency,publish_date,states,tags\n"
        "archive/a.pdf,Bureau of Land Management,2019-05,\"Alaska, MI\",caribou\n"
        "b.pdf,,someday,,\n"
        "c.pdf,Forest Service,,,\n")
    env = {**os.environ, "NEPAQA_HOME": str(tmp_path / "home"), "NEPAQA_DATABASE_URL": pg_url,
           "NEPAQA_WORKERS": "queue"}
    run = [sys.executable, "-m", "lib", "ingest", "--queue", str(folder), "--manifest"]
    out = subprocess.run([*run, str(tmp_path / "manifest.csv")], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert (summary["queued"], summary["skipped"]) == (1, 0)
    assert summary["refused"] == [{"file": str(folder / "b.pdf"), "reason": summary["refused"][0]["reason"]}]
    assert summary["refused"][0]["reason"].startswith("manifest line 3: ")
    assert summary["manifest_unmatched"] == ["line 4: c.pdf"]  # said, not dropped
    worker = subprocess.run([sys.executable, "-m", "lib", "worker", "--once"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=300)
    assert worker.returncode == 0, worker.stderr
    eng = get_engine(pg_url)
    with eng.connect() as c:
        doc = next(r for r in c.execute(select(tables.documents)) if r.name == "a")
    meta = meta_lib.get(doc.doc_id, eng)
    assert (meta["lead_agency"].value, meta["lead_agency"].source) == ("Bureau of Land Management", "person")
    assert meta["publish_date"].value == "2019-05" and meta["states"].value == ["AK", "MI"]
    assert meta_lib.tags_many([doc.doc_id], eng)[doc.doc_id] == ["caribou"]
    (tmp_path / "bad.csv").write_text("file,agency\na.pdf,BLM\n")
    bad = subprocess.run([*run, str(tmp_path / "bad.csv")], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=120)
    assert bad.returncode == 2 and bad.stderr.startswith("error: The manifest bad.csv has column(s) 'agency'")


def test_the_queue_connects_with_the_parameters_the_engine_uses():
    """A password with spaces and quotes stays one value; several hosts reach libpq as its own lists."""
    from psycopg.conninfo import conninfo_to_dict
    from sqlalchemy import create_engine

    from lib.storage.work_queue import conninfo

    one = conninfo_to_dict(conninfo(create_engine(
        "postgresql+psycopg://u:p%20q'x@127.0.0.1:5432/db?sslmode=disable")))
    assert one == {"host": "127.0.0.1", "port": "5432", "user": "u", "password": "p q'x", "dbname": "db",
                   "sslmode": "disable"}
    two = conninfo_to_dict(conninfo(create_engine("postgresql+psycopg://u:p@/db?host=h1:5432&host=h2:5433")))
    assert (two["host"], two["port"]) == ("h1,h2", "5432,5433")

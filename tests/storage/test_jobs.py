"""Long work as jobs: recorded, cancellable, interrupted by a kill and resumed from saved rows, run by the CLI
with the same code, and kept running through page switches and widget clicks in the app."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select, update
from streamlit.testing.v1 import AppTest

from lib.core import config
from lib.core.errors import UserError
from lib.storage import jobs, leases, tables
from lib.storage.engine import get_engine
from tests.conftest import ROOT

T = 180


def _cli(args: list[str], env: dict, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lib", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)


def _env(home: Path, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL")}
    return env | {"NEPAQA_HOME": str(home)} | extra


def _answers(engine, run_id: str) -> tuple[int, int]:
    """(rows, distinct cells) of a run's answers: equal when nothing was written twice."""
    t = tables.bench_answers
    with engine.connect() as c:
        rows = c.execute(select(func.count()).select_from(t).where(t.c.run_id == run_id)).scalar()
        cells = len(c.execute(select(t.c.item_id, t.c.model, t.c.mode).where(t.c.run_id == run_id)
                              .distinct()).fetchall())
    return rows, cells


def test_cli_ingest_runs_the_job_code_and_records_it(tmp_path, pdf_factory):
    pdf = pdf_factory("cli_job.pdf", ["Caribou calving grounds lie north of the pipeline corridor. " * 40,
                                      "Mitigation includes seasonal construction windows. " * 40])
    env = _env(tmp_path / "home")
    out = _cli(["ingest", str(pdf)], env)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["status"] == "indexed" and doc["pages"] == 2
    assert "[embed]" in out.stderr and "%" in out.stderr  # stage name and percent, as before
    listed = json.loads(_cli(["jobs"], env).stdout)
    assert len(listed) == 1
    job = listed[0]
    assert (job["kind"], job["status"], job["origin"]) == ("ingest", "done", "cli")
    assert job["result"]["doc_id"] == doc["doc_id"] and job["progress"] == 1.0
    # a bad file is refused before any job is recorded
    bad = _cli(["ingest", str(tmp_path / "missing.pdf")], env)
    assert bad.returncode == 2 and bad.stderr.startswith("error: No such file")
    assert len(json.loads(_cli(["jobs"], env).stdout)) == 1


def test_cancel_keeps_finished_answers_and_resume_completes_the_run(tmp_path, monkeypatch):
    """A benchmark job against a slow model: cancelled mid-run it stops, keeps its answers; resumed, it
    continues the same run without answering anything twice."""
    from lib.app.job_handlers import benchmark_params
    from lib.evaluation.benchmark.dataset import load_items
    from lib.evaluation.benchmark.runs import RunConfig
    from lib.models import registry
    from tests.fake_llm_server import FakeLLMServer

    eng = get_engine()
    with FakeLLMServer() as srv:
        srv.default = ("sleep", 0.3)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key-for-the-local-server")
        monkeypatch.setenv("OPENAI_BASE_URL", srv.url + "/v1")
        monkeypatch.setenv("OPENAI_MODEL", "gpt-slow")
        registry.reset()
        items, _ = load_items(config.SAMPLE20)
        params = benchmark_params(items, RunConfig(models=["openai/gpt-slow"], modes=["none"]), max_workers=1)
        job_id = jobs.submit("benchmark", params, "slow benchmark")
        deadline = time.monotonic() + 60
        while _answers(eng, params["run_id"])[0] < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        jobs.cancel(job_id)
        job = jobs.wait(job_id, 60)
        assert job.status == "cancelled" and job.result["run_id"] == params["run_id"]
        kept, _ = _answers(eng, params["run_id"])
        assert 3 <= kept < 20  # stopped early, finished answers kept
        time.sleep(1.0)
        assert _answers(eng, params["run_id"])[0] == kept  # nothing runs on after the cancel
        with pytest.raises(Exception, match="not running"):
            jobs.cancel(job_id)

        srv.default = ("ok", "Yes.")
        again = jobs.resume(job_id)
        done = jobs.wait(again, 120)
        assert done.status == "done" and done.resumed_from == job_id
        assert done.result["run_id"] == params["run_id"]
        assert _answers(eng, params["run_id"]) == (20, 20)
        assert done.result["summary"]["answers"] == 20
    registry.reset()


def test_a_killed_cli_run_shows_interrupted_and_resumes_from_saved_rows(tmp_path):
    from tests.fake_llm_server import FakeLLMServer

    home = tmp_path / "home"
    home.mkdir()
    with FakeLLMServer() as srv:
        srv.default = ("sleep", 0.3)
        env = _env(home, OPENAI_API_KEY="test-key-for-the-local-server", OPENAI_BASE_URL=srv.url + "/v1",
                   OPENAI_MODEL="gpt-slow")
        proc = subprocess.Popen([sys.executable, "-m", "lib", "bench", "--questions", str(config.SAMPLE20),
                                 "--models", "openai/gpt-slow", "--modes", "none", "--workers", "1",
                                 "--run-id", "killed"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        eng = get_engine(f"sqlite:///{home / 'nepaqa.db'}")
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                if _answers(eng, "killed")[0] >= 3:
                    break
            except Exception:  # noqa: BLE001 - the store may not exist yet
                pass
            time.sleep(0.1)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        kept, _ = _answers(eng, "killed")
        assert 3 <= kept < 20
        [job] = jobs.list_jobs(engine=eng)
        assert job.status == "interrupted" and job.resumable and job.result["run_id"] == "killed"

        srv.default = ("ok", "Yes.")
        n_requests = len(srv.requests)
        out = _cli(["jobs", "resume", job.job_id], env)
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["run_id"] == "killed"
    assert _answers(eng, "killed") == (20, 20)
    assert len(srv.requests) - n_requests <= 20 - kept + 1  # only the unanswered ones (one may have been in flight)
    latest = jobs.list_jobs(engine=eng)[0]
    assert latest.status == "done" and latest.resumed_from == job.job_id and latest.origin == "cli"


def test_an_ingest_job_survives_a_page_switch_and_a_widget_click(services):
    """The app starts the ingest as a job; the user goes to Ask and clicks there; the job finishes anyway and
    the sidebar panel offers its result."""

    before = {d.doc_id for d in services.docs.list()}
    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=T).run()
    at.switch_page("pages/documents.py").run()
    assert not at.exception
    pdf = long_pdf(Path(config.paths().home) / "job_upload.pdf", "Groundwater monitoring well", pages=500)
    at.file_uploader[0].set_value([("job_upload.pdf", pdf.read_bytes(), "application/pdf")]).run()
    next(b for b in at.button if b.label == "Index uploaded files").click().run()
    assert not at.exception
    [job] = [j for j in jobs.list_jobs(5) if j.title == "Index job_upload"]
    assert jobs.get(job.job_id).active
    at.switch_page("pages/ask.py").run()  # navigate away while it runs
    assert not at.exception
    assert jobs.get(job.job_id).active  # (the switch really happened mid-job)
    at.main.button[0].click().run()  # and click something there (not the sidebar's Cancel)
    done = jobs.wait(job.job_id, 300)
    assert done.status == "done", done.error
    assert done.result["doc_id"] not in before
    assert done.result["doc_id"] in {d.doc_id for d in services.docs.list()}
    # a reload (a new session) finds it in the sidebar's jobs panel, its result one click away
    fresh = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=T).run()
    side = " ".join(m.value for m in fresh.sidebar.markdown)
    assert "Index job\\_upload" in side  # the title, escaped for Markdown
    assert any(b.label == "Open result" for b in fresh.sidebar.button)
    # the session's store is shared: a 500-page document left in it changes the collection-wide word statistics
    # that other tests' rankings read (tests/retrieval/test_comparison.py failed when run after this one)
    services.docs.delete(done.result["doc_id"])


def long_pdf(path: Path, topic: str, pages: int = 150) -> Path:
    """A PDF long enough that its ingest takes several seconds here; every page says something different."""
    from tests.conftest import make_text_pdf

    return make_text_pdf(path, [" ".join(f"{topic} {n}-{i} was surveyed in season {i % 7} at station {n * i}."
                                         for i in range(30)) for n in range(pages)])


def test_cancelling_an_ingest_stops_it_at_once_and_leaves_nothing(services):
    from lib.app.job_handlers import ingest_params

    pdf = long_pdf(Path(config.paths().home) / "cancel_me.pdf", "Wetland delineation plot")
    import hashlib

    doc_id = hashlib.sha256(pdf.read_bytes()).hexdigest()[:12]
    job_id = jobs.submit("ingest", ingest_params(str(pdf)), "Index cancel_me")
    deadline = time.monotonic() + 120
    while not jobs.get(job_id).message.startswith("embed") and time.monotonic() < deadline:
        time.sleep(0.05)
    asked = time.monotonic()
    jobs.cancel(job_id)
    job = jobs.wait(job_id, 60)
    assert job.status == "cancelled"
    assert time.monotonic() - asked < 5  # stops within seconds, not after the whole embedding
    assert doc_id not in {d.doc_id for d in services.docs.list()}
    assert services.docs.index.count(doc_id) == 0  # the vectors it had written were taken back


def test_a_failed_upload_job_says_why(services, bad_files):
    at = AppTest.from_file(str(ROOT / "pages" / "documents.py"), default_timeout=T).run()
    at.file_uploader[0].set_value([("report.pdf", bad_files["not_pdf"].read_bytes(), "application/pdf")]).run()
    next(b for b in at.button if b.label == "Index uploaded files").click().run()
    job_id = at.session_state["ingest_jobs"][0]
    failed = jobs.wait(job_id, 60)
    assert failed.status == "failed" and "PDF" in failed.error
    assert not Path(failed.params["path"]).exists()  # the staged copy of a bad file is not kept
    at.run()
    assert any("PDF" in e.value for e in at.error)  # the message is on the page, not hidden


def test_interrupted_only_when_no_process_holds_the_job(tmp_path, monkeypatch):
    """A job row left 'running' by a process that is gone reads as interrupted; one whose process holds its
    lease does not, even queued for long; a resume is claimed once."""
    eng = get_engine(f"sqlite:///{tmp_path / 'j.db'}")
    ghost = jobs._insert("ingest", "ghost", {"path": "x.pdf"}, "cli", eng, "running")  # no process behind it
    live_id = jobs._new_id()
    lease = jobs._hold(live_id, "ingest", eng)  # as another process would hold it
    jobs._insert("ingest", "live", {"path": "y.pdf"}, "app", eng, "queued", job_id=live_id)
    monkeypatch.setattr(jobs, "QUEUED_GRACE_S", 0.0)  # "queued for long"
    by_title = {j.title: j for j in jobs.list_jobs(engine=eng)}
    assert by_title["ghost"].status == "interrupted" and by_title["ghost"].resumable
    assert by_title["live"].status == "queued"
    assert by_title["live"].runs_on == leases.here() and not by_title["live"].elsewhere  # this process: no word on it
    lease.release()
    assert {j.title: j.status for j in jobs.list_jobs(engine=eng)}["live"] == "interrupted"
    with pytest.raises(Exception, match="not running"):
        jobs.cancel(ghost, eng)
    jobs.claim_resume(ghost, eng)
    with pytest.raises(Exception, match="only an interrupted, cancelled or failed job"):
        jobs.claim_resume(ghost, eng)  # a second Resume (another tab, the CLI) is refused
    assert jobs.get(ghost, eng).status == "resumed"


def test_a_lease_held_by_a_killed_process_not_yet_reaped_is_free_at_once(tmp_path):
    """kill -9 leaves a zombie until its parent reaps it; the zombie still answers os.kill(pid, 0), but it will never
    renew its lease, so the lease must be free at once, not after EXPIRY_S."""
    eng = get_engine(f"sqlite:///{tmp_path / 'z.db'}")
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        first = leases.Lease("run:zombie", eng)
        assert first.try_acquire()  # then the row made to read as the one the killed process left
        with eng.begin() as c:
            c.execute(update(tables.leases).where(tables.leases.c.name == "run:zombie").values(
                holder="killed-holder", pid=child.pid, heartbeat_at=time.time()))
        first.release()  # stops its heartbeat; the row is no longer its own, so it stays
        other = leases.Lease("run:zombie", eng, "the resume")
        assert not other.try_acquire()  # the holder runs: held
        child.send_signal(signal.SIGKILL)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and Path(f"/proc/{child.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
            time.sleep(0.05)
        assert other.try_acquire()  # a zombie, never reaped: free at once
        other.release()
    finally:
        child.kill()
        child.wait()


def test_a_folder_upload_is_queued_like_a_bulk_ingest_in_embedded_mode(tmp_path):
    """The Documents page's folder upload (lib/app/workers.queue_uploads) with no workers: one job per PDF run here,
    the same file twice skipped, a file that is no PDF refused with the reason, the manifest's values set."""
    from lib.app import workers
    from lib.documents import metadata as meta_lib
    from tests.conftest import make_text_pdf

    pdf = make_text_pdf(tmp_path / "levee.pdf", ["The levee along the river would be raised by four feet. " * 9])
    data = pdf.read_bytes()
    manifest = ("manifest.csv", b"file,title,eis_number\nlevee.pdf,Levee Raising Final EIS,20190042\n")
    summary = workers.queue_uploads([("levee.pdf", data), ("copy/levee-again.pdf", data), ("notes.pdf", b"just notes")],
                                    manifest)
    assert (summary.queued, summary.skipped) == (1, 1)
    assert summary.refused[0]["file"] == "notes.pdf" and "is not a PDF" in summary.refused[0]["reason"]
    job = jobs.wait(summary.jobs[0], T)
    assert job.status == "done", job.error
    meta = meta_lib.get(job.result["doc_id"], get_engine())
    assert meta["title"].value == "Levee Raising Final EIS" and meta["title"].source == "person"
    assert meta["eis_number"].value == "20190042"


def test_a_manifest_eis_column_makes_the_uploaded_files_volumes_of_one_eis(tmp_path):
    """Rows naming the same EIS in the manifest's ``eis`` column: their files are that EIS's volumes, numbered in the
    manifest's row order (not the upload's), each joining as its job finishes; a row without it stands alone."""
    from lib.app import workers
    from lib.collection import volumes
    from lib.documents import metadata as meta_lib
    from tests.conftest import make_text_pdf

    texts = {"main.pdf": "The dam would raise the reservoir by twelve feet, flooding the lower meadows. ",
             "appx.pdf": "Appendix B lists the fish surveys made below the dam in each season. ",
             "other.pdf": "An unrelated plan for a trail along the ridge above the valley. "}
    uploads = [(name, make_text_pdf(tmp_path / name, [text * 9]).read_bytes()) for name, text in texts.items()]
    manifest = ("manifest.csv", b"file,eis,volume_title\nappx.pdf,Dam FEIS,Volume 1: Fish Surveys\nmain.pdf,Dam FEIS,\n"
                                b"other.pdf,,\n")
    summary = workers.queue_uploads(uploads, manifest)
    assert summary.queued == 3 and summary.refused == []
    done = {jobs.get(j).title.removeprefix("Index "): jobs.wait(j, T) for j in summary.jobs}
    assert all(j.status == "done" for j in done.values()), [j.error for j in done.values()]
    ids = {name: j.result["doc_id"] for name, j in done.items()}
    try:
        (eis,) = [e for e in volumes.every() if ids["main.pdf"] in e.doc_ids]
        assert [(v.doc_id, v.position) for v in eis.volumes] == [(ids["appx.pdf"], 1), (ids["main.pdf"], 2)]
        assert eis.grouped_by == "manifest" and volumes.of(ids["other.pdf"]) is None
        assert meta_lib.value_of(meta_lib.get(ids["appx.pdf"], get_engine()), "volume_title") == "Volume 1: Fish Surveys"
    finally:  # the session's shared store goes on without an EIS of volumes
        for d in (ids["appx.pdf"], ids["main.pdf"]):
            volumes.remove(d)


def test_volumes_uploaded_together_join_one_eis_and_a_resumed_volume_still_takes_its_place(tmp_path):
    """The Documents page's "volumes of one EIS" (lib/app/volumes.start_set): checked whole, one job per volume,
    each joining the EIS in file-name order as it finishes; the same set again is refused, naming the volumes that
    are indexed already. A job resumed after its upload was committed and its kept copy dropped (the app stopped
    between the two) does not fail: its document takes its place."""
    from lib.app import volumes as volumes_case
    from lib.app.job_handlers import ingest_params
    from lib.collection import volumes
    from lib.documents.pdf import sha256_bytes
    from tests.conftest import make_text_pdf

    texts = {"vol_10.pdf": "Volume ten holds the responses to the comments on the wind farm's bird surveys. ",
             "vol_2.pdf": "Volume two describes the turbines' noise at the nearest farmhouses in winter. ",
             "vol_1.pdf": "Volume one sets out the purpose and need for the wind farm on the northern ridge. "}
    uploads = [(n, make_text_pdf(tmp_path / n, [t * 9]).read_bytes()) for n, t in texts.items()]
    ordered = volumes_case.in_volume_order(uploads)
    assert [n for n, _ in ordered] == ["vol_1.pdf", "vol_2.pdf", "vol_10.pdf"]  # numbers as numbers
    started = volumes_case.start_set(ordered, None, None)
    done = [jobs.wait(j, T) for j in started]
    assert [j.status for j in done] == ["done"] * 3, [j.error for j in done]
    ids = [j.result["doc_id"] for j in done]
    try:
        (eis,) = [e for e in volumes.every() if ids[0] in e.doc_ids]
        assert [(v.doc_id, v.position) for v in eis.volumes] == list(zip(ids, (1, 2, 3), strict=True))
        with pytest.raises(UserError, match=r"Volume 1 \(vol_1\.pdf\) is indexed already \(as 'vol_1'\), and is volume 1 of another EIS"):
            volumes_case.start_set(ordered, None, None)

        # volume 2's job again, as resumed after the app stopped: its upload committed, the kept copy gone
        volumes.remove(ids[1])
        params = ingest_params(str(tmp_path / "gone.pdf"), "vol_2", staged=True, volume=(eis.eis_id, 2, "upload"))
        params["sha256"] = sha256_bytes(ordered[1][1])
        job = jobs.wait(jobs.submit("ingest", params, "Index vol_2 (resumed)"), T)
        assert job.status == "done" and job.result["skipped"] and job.result["doc_id"] == ids[1], job.error
        assert [(v.doc_id, v.position) for v in volumes.get(eis.eis_id).volumes] == \
            list(zip(ids, (1, 2, 3), strict=True))
    finally:  # the session's shared store goes on without an EIS of volumes
        for d in ids:
            if d in volumes.places():
                volumes.remove(d)

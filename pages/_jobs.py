"""The jobs panel every page shows in the sidebar, and the small live view of one job a page shows where it was
started. Jobs run on threads of the server process (lib/storage/jobs.py), so this only reads their rows."""
from __future__ import annotations

import time

import streamlit as st

from lib.app import REEMBED
from lib.core import UserError
from lib.storage import job_access, jobs
from pages._ui import plain, said

ICONS = {"queued": "⏳", "running": "⏳", "done": "✅", "failed": "❌", "cancelled": "⏹️", "interrupted": "⚠️"}
RESULT_PAGES = {"ingest": "pages/documents.py", "benchmark": "pages/benchmark.py", "exam": "pages/enviroexam.py",
                "generate": "pages/benchmark.py", REEMBED: "pages/documents.py"}
RECENT_S = 3600  # finished jobs stay in the panel for an hour
POLL_S = 1.5


def _elapsed(job: jobs.Job) -> str:
    s = job.seconds
    if s is None:
        return ""
    return f"{s:.0f} s" if s < 90 else f"{s / 60:.0f} min"


def open_result(job: jobs.Job) -> None:
    """Go to the page that shows what a finished job made, with it selected."""
    job = jobs.get(job.job_id)  # the panel's list is light (no results): read this one whole
    if job.kind == "benchmark" and job.result.get("run_id"):
        st.session_state["bench_run"] = job.result["run_id"]
        st.session_state["results_run"] = job.result["run_id"]  # the Results tab's run picker
        st.session_state["bench_tab"] = "Results"
    elif job.kind == "exam":
        st.session_state["exam_tab"] = "Results"
    elif job.kind == "generate" and job.result.get("items"):
        st.session_state["load_generated"] = job.job_id
    elif job.kind in ("ingest", REEMBED):
        st.session_state["docs_first_tab"] = "Indexed documents"
        if isinstance(doc := job.result.get("doc_id"), str):
            st.session_state["docs_pick"] = doc  # the document this job indexed, selected
    st.switch_page(RESULT_PAGES[job.kind])


def job_row(job: jobs.Job, where: str) -> None:
    """One job: title, progress or outcome, and its one action (cancel, open, resume)."""
    key = f"{where}-{job.job_id}"
    mine = job_access.may_manage(job.owner)  # another person's job: an admin's to cancel, dismiss or resume
    st.markdown(f"{ICONS.get(job.status, '')} **{plain(job.title)}**")
    if job.active:
        waiting = "waiting for a worker" if job.origin == jobs.WORKER_ORIGIN else "waiting for a free slot"
        text = f"{job.progress * 100:.0f}% · {job.message}" if job.status == "running" else waiting
        st.progress(min(1.0, job.progress), text=plain(text))
        if job.elsewhere:  # where exactly is a detail: one hover away
            st.caption("on a worker", help=f"Runs on {job.runs_on}")
        if mine and st.button("Cancel", key=f"cancel-{key}", disabled=job.cancel_requested,
                     help="Stops at the next safe point; finished work is kept."):
            try:
                jobs.cancel(job.job_id)
            except UserError as exc:
                st.error(said(exc))
        if job.cancel_requested:
            st.caption("Cancelling…")
        return
    cancelled = {"ingest": "cancelled; the document was not indexed",
                 REEMBED: "cancelled; documents it finished stay embedded, the rest are found by their words "
                         "until embedded again (Documents page)"}.get(
        job.kind, "cancelled; the answers finished so far are kept")
    detail = {"done": f"finished in {_elapsed(job)}", "cancelled": cancelled,
              "resumed": "resumed as a new job (see the sidebar)",
              "interrupted": "interrupted (the app stopped); resume to continue",
              "failed": "failed"}.get(job.status, job.status)
    st.caption(plain(detail))
    if job.status == "failed" and job.error and where == "side":  # the panel is narrow: the reason's first line
        first = job.error.strip().splitlines()[0]
        st.caption(":red[" + said(first if len(first) <= 160 else first[:157] + "…") + "]",
                   help=said(job.error) if first != job.error.strip() or len(first) > 160 else None)
    elif job.status == "failed" and job.error:
        st.error(said(job.error))
    if mine and where == "side" and job.status in ("failed", "interrupted", "cancelled"):
        st.button("Dismiss", key=f"dismiss-{key}", on_click=_dismiss, args=(job.job_id,),
                  help="Hide it from this panel, for everyone and after a restart; the command line's job list "
                       "still shows it")
    if mine and job.resumable and st.button("Resume", key=f"resume-{key}",
                                   help="Benchmarks and exams continue from their saved answers."):
        try:
            jobs.resume(job.job_id)
        except UserError as exc:
            st.error(said(exc))
        st.rerun()
    if job.status == "done" and st.button("Open result", key=f"open-{key}"):
        open_result(job)


def _dismiss(job_id: str) -> None:
    try:
        jobs.dismiss(job_id)
    except UserError as exc:  # it was resumed or restarted meanwhile: say so rather than hide a live job
        st.toast(said(exc))
        return
    st.session_state["_jobs_dismissed"] = True  # the page's own card of it goes too (jobs_panel reruns the page)


def _fragment_only_run() -> bool:
    """Whether this is a fragment's own rerun (a timer tick), not a run of the whole page: only then does a job
    that just finished need a page rerun to show its result (a whole-page run draws it anyway)."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx()
    return bool(ctx and ctx.fragment_ids_this_run)


def _visible(all_jobs: list[jobs.Job]) -> list[jobs.Job]:
    """Running and queued jobs first (never hidden behind finished ones), then interrupted ones, then the
    recently finished; a job resumed by a newer one is left out (the newer one is shown)."""
    now = time.time()
    keep = [j for j in all_jobs if j.status != "resumed" and not j.dismissed
            and (j.active or j.status == "interrupted" or now - (j.ended_at or now) < RECENT_S)]
    return sorted(keep, key=lambda j: (not j.active, j.status != "interrupted", -j.created_at))


@st.fragment(run_every=POLL_S)
def jobs_panel() -> None:
    """Running jobs with progress and Cancel; recent finished ones with their result one click away. When a job
    this session is watching finishes, the whole page reruns so it shows the new result."""
    try:
        shown = _visible(jobs.list_jobs(12, light=True))
    except Exception:  # noqa: BLE001 - a store that cannot be read must not take every page down
        return
    if st.session_state.pop("_jobs_dismissed", False) and _fragment_only_run():  # Dismiss reran only this panel
        st.rerun(scope="app")
    active = {j.job_id for j in shown if j.active}
    before = st.session_state.get("_jobs_active", set())
    st.session_state["_jobs_active"] = active
    if not shown:
        return
    active_n = sum(1 for j in shown if j.active)
    running = sum(1 for j in shown if j.status == "running")
    now = time.time()
    fresh = [j for j in shown if not j.active and (j.status in ("failed", "interrupted") or now - (j.ended_at or 0) < 300)]
    label = " · ".join(x for x in ("Jobs", f"{running} running" if running else "",
                                   f"{active_n - running} waiting" if active_n > running else "",
                                   f"{len(shown) - active_n} finished" if len(shown) > active_n else "") if x)
    with st.expander(label, expanded=bool(active_n or fresh)):  # open while anything needs a look
        for job in shown[:6]:
            job_row(job, "side")
    if before - active and _fragment_only_run():  # something finished since the last tick: refresh the page
        st.rerun(scope="app")


def watch(job_id: str | None, where: str) -> jobs.Job | None:
    """A page's view of the job it started: live progress and Cancel while it runs, then its outcome."""
    if not job_id:
        return None
    try:
        job = jobs.get(job_id)
    except UserError:
        return None
    if job.active:
        _live(job_id, where)
    elif not job.dismissed:  # dismissed in the sidebar: gone from the page too
        job_row(job, where)
    return job


@st.fragment(run_every=1.0)
def _live(job_id: str, where: str) -> None:
    """Redrawn every second while the job runs; when it ends, the page reruns to show what it made."""
    job = jobs.get(job_id)
    job_row(job, where)
    if not job.active and _fragment_only_run():
        st.rerun(scope="app")

"""EnviroExam: the 42-course environmental-science exam; leaderboard, per-course results, runs, and a quiz."""
import random
import time

import pandas as pd
import streamlit as st

from lib.app import charts
from lib.app import exam as exam_case
from lib.core import UserError, access, csv_safe
from lib.evaluation import exam as ee
from lib.evaluation.exam import translate as tr
from lib.models import registry
from pages._gate import through_gate
from pages._jobs import watch
from pages._ui import plain, run_safely, said, table, tidy

through_gate()  # a page reached without the app's sign-in gate goes back through it

st.title("🎓 EnviroExam")
st.caption("936 multiple-choice questions (210 dev, 726 test) over 42 environmental-science courses at bachelor, "
           "master and doctor level (Huang et al., 2024), from Chinese universities.")
st.info("**The questions are in Chinese, as published**, and models are asked and scored in Chinese. Course names "
        "and levels are shown in English. With a connected model (OpenAI, Anthropic or your own server), the quiz "
        "can show a machine translation of each question beside the original; translations are for reading "
        "only and never used for scoring.", icon="🈶")

available = {p.id: p.label for p, ok, _ in registry.status_all()
             if ok and p.language_model and (p.local or access.allowed(access.Action.CONNECTED_MODEL))}
courses = ee.courses()
meta = pd.DataFrame([{"course": c, "title": ee.course_title(c), "level": ee.course_level(c)} for c in courses])
tab_results, tab_run, tab_quiz, tab_method = st.tabs(["Results", "Run the exam", "Take the quiz", "Method"],
                                                     default=st.session_state.pop("exam_tab", "Results"))

with tab_results:
    runs = ee.all_runs()
    board = charts.exam_leaderboard(ee.leaderboard(runs=runs))
    st.altair_chart(charts.exam_leaderboard_chart(board, ee.PUBLISHED, ee.RUN_HERE), width="stretch")
    table(tidy(board.assign(I=board["I"].astype(object).where(board["I"].notna(), exam_case.VOID))), hide_index=True,
          width="stretch", height=280)  # I is missing only where it is void (CV above 1)
    st.caption("Ranked: the 31 published models and the full runs made here with the same settings (all 726 test "
               "questions, 0-shot, direct answers, one option order; a failed call or an unreadable answer counts as "
               "wrong, see failed / unparsed). Other runs are listed under **Partial runs and other settings** below, "
               "not ranked.")
    st.download_button("Download leaderboard (CSV)", csv_safe.to_csv(board), "enviroexam_leaderboard.csv", "text/csv")

    st.subheader("Partial runs and other settings")
    partial = ee.partial_runs(runs=runs)
    if partial:
        table(tidy(pd.DataFrame(exam_case.partial_table(partial))), hide_index=True, width="stretch",
              key="exam_partial_runs", long=["not ranked because"])
        st.caption("A question limit, a subset of the courses, a run not finished, or settings other than the "
                   "published board's (5-shot, chain of thought, circular, dev split): not comparable with the "
                   "leaderboard, so not ranked on it. "
                   "Questions: those answered, of those the run was started for.")
    else:
        st.caption("None: runs with a question limit or a subset of the courses appear here.")

    shown = [r for r in runs if r.n_questions]
    if not shown:
        st.info("No model has been run here yet: see **Run the exam**. Published per-course scores are not available, "
                "so the course charts below show runs made here.")
    else:
        per = charts.exam_per_course(shown, meta)
        st.altair_chart(charts.course_heatmap(per, list(meta["title"])), width="stretch")
        pick = st.selectbox("Model", sorted(per["model"].unique()))
        one = per[per["model"] == pick]
        # full width: 42 course titles need the room (in half a page the bars were 70 px wide, the title cut)
        st.altair_chart(charts.course_bars(one, "Accuracy per course"), width="stretch")
        st.altair_chart(charts.level_bars(per), width="stretch")
        shots_chart = charts.shots_bars(per)
        if shots_chart is not None:
            st.altair_chart(shots_chart)
        st.download_button("Download per-course accuracy (CSV)", csv_safe.to_csv(per), "enviroexam_courses.csv", "text/csv")

with tab_run:
    if not available:
        st.warning("No answering model is available.")
    else:
        c1, c2, c3 = st.columns(3)
        model = c1.selectbox("Model", list(available), format_func=available.get, key="exam_model")
        shots = c2.radio("Shots", [0, 5], horizontal=True, key="exam_shots", help="5-shot puts the course's five dev questions first")
        cot = c3.checkbox("Chain of thought", help="The model reasons in free text; the letter is then parsed")
        circular = c3.checkbox("Circular evaluation (4 rotations, slower ×4)", key="exam_circular",
                               help="Each question is asked with its options in the orders ABCD, BCDA, CDAB and "
                                    "DABC, and counts as right only when all four answers are (OpenCompass's "
                                    "CircularEval). A circular run is a run of its own.")
        chosen = st.multiselect("Courses (empty = all 42)", courses, format_func=ee.course_title, key="exam_courses")
        fit = exam_case.default_limit(model, shots, cot, circular, len(chosen or courses))
        limit = st.number_input("Questions per course (0 = all)", 0, exam_case.MAX_LIMIT, fit, key="exam_limit",
                                help="The starting value is what this model finishes in about a minute here; 0 asks "
                                     "all 726 test questions (the only run ranked on the leaderboard).")
        restart = st.checkbox("Start over", key="exam_restart",
                              help="Discard the stored answers of this run (same model, settings, courses and limit) "
                                   "and ask again: needed when the model's options or the prompts changed since.")
        plan = exam_case.plan(model, shots, cot, chosen, limit, circular, restart)
        kept = plan.calls - plan.to_ask
        st.markdown(f"**Planned:** {plan.questions} question(s) over {plan.n_courses} course(s)"
                    + (f", each asked {ee.ROTATIONS} times" if circular else "")
                    + (f" ({kept} answer(s) already given under these settings are kept)" if kept else "")
                    + (" · nothing left to ask" if not plan.to_ask else
                       f" · **estimated time** {plain(plan.estimate.text(lambda p: available.get(p['model'], p['model'])))}"))
        unmeasured = plan.to_ask and not plan.estimate.measured  # and not being timed now (one click, one timing)
        if unmeasured and not exam_case.running(st.session_state.get("exam_job")) and access.allowed(
                access.Action.RUN_BENCHMARK) and st.button(
                f"Time it first: {exam_case.TIMING_COURSES} questions", key="exam_time_it",
                help=f"Answers the first question of {exam_case.TIMING_COURSES} courses with this model and these "
                     "settings, to measure its pace on this machine; then the estimate is shown. Its answers are "
                     "kept, and a run with the same settings does not ask them again."):
            st.session_state["exam_job"] = exam_case.start_timing(
                model, f"EnviroExam timing · {available.get(model, model)} · {shots}-shot", shots, cot, circular)
        why = exam_case.unranked_because(shots, cot, circular, chosen, limit)
        if why:
            ranked = exam_case.ranked_plan(model)
            cost = ("every one of them is answered here already: see Results" if not ranked.to_ask else
                    f"{ranked.to_ask} still to ask with this model, " + (
                        plain(ranked.estimate.text(lambda p: available.get(p['model'], p['model'])))
                        if ranked.estimate.measured else "its time not measured here yet (this quick run measures it)"))
            st.info(f"**A quick look, not ranked:** this run is not set beside the 31 published models, because "
                    f"{plain('; '.join(why))}. A ranked run asks all {ranked.questions} test questions, 0-shot, with "
                    f"direct answers and one option order (“Questions per course” 0, no course chosen): {cost}.",
                    icon="⏱️")
        st.caption("Local models choose by the likelihood of the letters A–D (fast, never unparseable); API models "
                   "answer in text and the letter is parsed. A rerun with the same settings resumes and asks failed "
                   "questions again. A question limit or a subset of the courses makes a partial run, listed apart "
                   "from the leaderboard.")
        if st.button("Run", type="primary", disabled=not access.allowed(access.Action.RUN_BENCHMARK),
                     help=None if access.allowed(access.Action.RUN_BENCHMARK) else "Needs the analyst role."):
            st.session_state["exam_job"] = exam_case.start(model, f"EnviroExam · {available.get(model, model)} · "
                                                           f"{shots}-shot", shots, cot, chosen, limit, circular, restart)
        job = watch(st.session_state.get("exam_job"), "exam")
        if job is not None and job.status in ("done", "cancelled") and job.result.get("run_id"):
            res = run_safely(ee.summarize_run, job.result["run_id"])
            if res is not None:
                m = st.columns(7)
                m[0].metric("Questions", res.n_questions)
                two = lambda v: None if v is None else round(float(v), 2)  # noqa: E731 - shown with 2 decimals
                m[1].metric("M (mean %)", two(res.M))
                m[2].metric("σ", two(res.sigma))
                m[3].metric("CV", two(res.cv))
                m[4].metric("I", exam_case.VOID if res.void else two(res.I),
                            help="I = M × (1 − CV); void (the paper's word) where CV is above 1: the courses' scores "
                                 "spread more than their mean, as when most courses score 0")
                m[5].metric("Failed", res.failed, help="Calls that failed: counted as wrong, asked again next run")
                m[6].metric("Unparsed", res.unparsed, help="Answers with no readable letter: counted as wrong")
                st.caption(f"{plain(res.label)} · {res.n_courses} course(s)")
                if res.partial:
                    st.info(f"Partial run: {res.n_questions} question(s) over {res.n_courses} course(s). It is "
                            "listed under Partial runs and not ranked against full runs.")
                if res.failed:
                    st.warning(f"{res.failed} question(s) failed (the model call raised an error) and count as "
                               "wrong; run again with the same settings to ask them again.")
                if res.unparsed:
                    st.warning(f"{res.unparsed} answer(s) had no readable letter and count as wrong.")

with tab_quiz:
    qc = st.selectbox("Course", courses, format_func=lambda c: f"{ee.course_title(c)} ({ee.course_level(c)})", key="quiz_course")
    if st.button("New quiz (10 questions)") or st.session_state.get("quiz_for") != qc:
        st.session_state["quiz"] = exam_case.new_quiz(qc, random.Random(time.time_ns()))
        st.session_state["quiz_for"] = qc
        st.session_state.pop("quiz_done", None)
    quiz = st.session_state["quiz"]
    translators = tr.translators()
    shown_tr = st.session_state.setdefault("quiz_translations", {})
    if translators:
        t1, t2 = st.columns([2, 3])
        tmodel = t1.selectbox("Translate with", list(translators), format_func=translators.get, key="quiz_tr_model")
        if t2.button("Show English machine translations", help="Each question is translated once by the chosen "
                     "model and cached; the quiz is still scored on the Chinese original."):
            bar = st.progress(0.0, text="Translating…")
            for i, q in enumerate(quiz, 1):
                try:
                    shown_tr[(tmodel, qc, q.index)] = tr.translate(tmodel, ee.format_question(q))
                except UserError as exc:
                    st.error(said(exc), icon="⚠️")
                    break
                bar.progress(i / len(quiz), text=f"Translated {i} of {len(quiz)}")
            bar.empty()
    else:
        tmodel = None
        st.caption("Machine translation needs a connected language model (OpenAI, Anthropic or your own server); "
                   "the tiny offline model cannot translate Chinese.")
    with st.form("quiz_form"):
        answers = {}
        for i, q in enumerate(quiz, 1):
            # radio labels and options render Markdown: the item text goes in escaped
            answers[q.index] = st.radio(f"{i}. {plain(q.question)}", ee.LETTERS, index=None, key=f"quiz_{qc}_{q.index}",
                                        format_func=lambda k, q=q: f"{k}. {plain(q.options[k])}")
            english = shown_tr.get((tmodel, qc, q.index))
            if english:
                st.caption(f"Machine translation by {plain(translators.get(tmodel, tmodel))}, for reading only:")
                st.text(english)  # a model's words: text, never Markdown
        submitted = st.form_submit_button("Score me", type="primary")
    if submitted:
        blank = exam_case.unanswered(quiz, answers)
        signature = (qc, tuple(blank))
        if blank and st.session_state.get("quiz_blank_ok") != signature:
            st.session_state["quiz_blank_ok"] = signature
            st.warning(f"{len(blank)} of {len(quiz)} questions are unanswered (number "
                       f"{', '.join(map(str, blank))}); they would count as wrong. Answer them, or press "
                       "**Score me** again to score as it is.", icon="✋")
            submitted = False
    if submitted:
        st.session_state.pop("quiz_blank_ok", None)
        score = exam_case.score_quiz(quiz, answers)
        st.metric("Your score", f"{score.percent:.0f}%", help=f"{score.right} of {score.total}"
                  + (f"; {score.unanswered} unanswered, counted wrong" if score.unanswered else ""))
        compared = exam_case.quiz_comparison(qc, quiz, score, ee.all_runs())
        st.caption(f"You and each model run here on the same {len(quiz)} questions.")
        st.altair_chart(charts.quiz_bars(compared.rows), width="stretch")
        if compared.left_out:
            st.caption("Not compared, as they did not ask all of these questions: " + plain("; ".join(compared.left_out))
                       + ". A run with every question of the course (“Questions per course” 0) can be compared.")
        with st.expander("Answers"):
            for q, m in zip(quiz, score.marks, strict=True):
                mark = {"right": "✅", "unanswered": "⬜"}.get(m, "❌")
                st.text(f"{mark} {q.question} — {q.answer}. {q.options[q.answer]}")

with tab_method:
    st.markdown(
        "**Scoring, as the paper defines it.** For each course *i*, s<sub>i</sub> is the accuracy in percent; "
        "*M* is the mean of s<sub>i</sub> over the *n* courses run; σ is the population standard deviation of "
        "s<sub>i</sub> around *M*; CV = σ / *M*; and the composite index *I* = *M* × (1 − CV) when 0 ≤ CV ≤ 1, "
        "otherwise the model is *void*.\n\n"
        "*Note:* the paper prints σ = √(Σ(s<sub>i</sub> − 1)² / n). We read the 1 as a typo for *M*: that is the "
        "population standard deviation, and it reproduces the published table (where *I* = *M* − σ to rounding).\n\n"
        "**Settings.** The paper ran OpenCompass with max_out_len = 100, max_seq_len = 4096, temperature 0.7 and "
        "top_p 0.95. Here local models pick the letter with the highest next-token likelihood (OpenCompass's "
        "perplexity mode) and API models answer at temperature 0 with the letter parsed from the text.\n\n"
        "**Every question asked counts.** A call that fails is stored and scored wrong (and asked again by the next "
        "run with the same settings); an answer with no readable letter is scored wrong and kept. The letter is read "
        "from a stated answer (答案：C, “the answer is C”), a cue (选B, option D), a leading or bracketed letter, "
        "or a single bare capital A–D; an English article (“a combination of …”) is never read as A, and a reply "
        "naming several letters with no stated answer reads as none.\n\n"
        "**Full and partial runs.** Only a run over all 726 test questions is ranked beside the published models; "
        "a run with a question limit or a subset of the courses is labelled partial and listed apart.\n\n"
        "**Circular evaluation** (optional, OpenCompass's CircularEval): each question is asked four times with "
        "its options rotated (ABCD, BCDA, CDAB, DABC) and counts as right only when all four answers pick the "
        "right option, which removes the credit a model gets from a preference for one letter.",
        unsafe_allow_html=True)
    table(meta.assign(questions=[len(ee.load_course(c)) for c in courses]), hide_index=True,
          width="stretch", height=300, column_order=["title", "level", "questions"])  # the course's id is the data's

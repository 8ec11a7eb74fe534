"""The Benchmark page's Results tab: a run's closed and open scores apart, each with n and a 95% interval, the
majority baseline, paired tests, type × mode and position charts, retrieval hit@k, the manifest, the item
drill-down and the downloads. Model answers and item text are shown as text."""
from collections.abc import Callable

import pandas as pd
import streamlit as st

from lib.app import Services, accounts, benchmark, charts
from lib.core.stats import MIN_N
from lib.evaluation.benchmark import StoredRun, report
from lib.models import registry
from lib.qa import MODE_LABELS, support
from pages import _support_view as support_view
from pages._ui import plain, run_safely, table, tidy

SUPPORT_GROUPS = (
    ("Offline support checker", ("faithfulness_offline", "citation_precision_offline")),
    ("Judge model", ("faithfulness_judge", "citation_precision_judge")),
    ("Retrieved passages against the gold passage (offline text overlap)", ("context_precision", "context_recall")),
)


def support_section(df: pd.DataFrame, common: list[str], label_of: Callable[[str], str],
                    model_name: Callable[[str], str]) -> None:
    """The reference-free scores by model and mode, each checker in its own table, beside (never averaged with)
    the scores against the expected answers above."""
    rf = report.reference_free_frame(df, common)
    if rf.empty:
        return
    st.markdown("**Does each answer stand on its sources?** (reference-free: no expected answer needed; RAG and "
                "gold answers)")
    st.caption("Faithfulness: the share of an answer's checkable sentences that its own passages support (partly "
               "supported counts as not). Citation precision: the share of its [n] markers whose source holds the "
               "sentence; a marker to no source holds nothing. The offline checker is a classifier fitted on labelled "
               "EIS answers; a differing number, date, name or negation keeps a sentence at most "
               "partly supported; a claim it cannot decide ('not checked') and a sentence left uncited in an answer "
               "that cites count as not supported; sentences that make no claim are left out. 'No value': answers the score applies to that gave none (a bare yes/no, no "
               "citation); 'judge failed': answers the judge could not score, retried when the run is resumed. "
               "Calibration against experts: Validate, Support checkers.")
    for title, metrics in SUPPORT_GROUPS:
        present = [m for m in metrics if not rf[rf["metric"] == m].empty]
        if not present:
            continue
        st.markdown(f"*{title}*")
        for name in present:  # one table per metric, each the page's width (side by side, half a page was too narrow)
            st.caption(report.metric_label(name))
            table(charts.reference_free_table(rf[rf["metric"] == name], label_of), hide_index=True, width="stretch")
    faith = rf[rf["metric"] == "faithfulness_offline"]
    if not faith.empty:
        st.altair_chart(charts.score_bars(faith, "faithfulness (offline checker)", model_name))


def answer_with_marks(r: pd.Series, mets: dict, key: str) -> None:
    """A stored answer with its offline support marks, summary and sentence-by-sentence evidence; the judge's
    summary, where the run has one, on its own line."""
    offline = (mets.get("faithfulness_offline") or {}).get("details") or {}
    marks = support.read_marks(offline.get("marks"))
    support_view.marked_answer(r["answer"] or "", marks)
    if offline.get("summary"):
        support_view.summary_line(offline["summary"], "offline")
    judged = (mets.get("faithfulness_judge") or {}).get("details") or {}
    if judged.get("summary"):
        support_view.summary_line(judged["summary"], "judge")
    if marks:
        by_n = {c.n or i: c for i, c in enumerate(r["contexts"], start=1)}

        def locate(n: int) -> tuple[str, int, int] | None:
            c = by_n.get(n)
            return (c.doc_id, c.page_start, c.page_end or c.page_start) if c and c.doc_id and c.page_start else None
        support_view.sentence_details(marks, key + f"_{r['model']}_{r['mode']}", locate,
                                      failures=judged.get("failures", []))


def _header(res: benchmark.RunResults, label_of: Callable[[str], str]) -> None:
    """The run's counts, and how its open questions were scored."""
    summary = res.summary
    m = st.columns(6)
    m[0].metric("Items", summary.n_items)
    m[1].metric("Answers", summary.answers)
    m[2].metric("Failed answers", summary.failures, help="Counted, shown, and retried when the run is resumed.")
    m[3].metric("Judge failures", summary.judge_failures, help="The answer exists but the judge could not score it; "
                "retried on resume and by rescore.")
    m[4].metric("No statements", summary.no_statements)
    m[5].metric("Unclear yes/no", summary.unclear, help="Counted as wrong in closed accuracy.")
    if res.proxy:
        st.warning("Open questions in this run are scored with the **token-F1 proxy (not RAGAS)**: word overlap "
                   "plus embedding similarity, an offline stand-in. It is not comparable with published RAGAS "
                   "figures; configure a judge model and rescore for RAGAS answer correctness.", icon="⚖️")
    else:
        st.caption(f"Open questions scored with RAGAS answer correctness; judge: {label_of(summary.judge)}.")
    with st.expander("Configuration (manifest)"):
        rows = benchmark.manifest_rows(res.run_id, res.created_at, summary.manifest)
        table(tidy(pd.DataFrame(rows, columns=["what", "value"])), hide_index=True, width="stretch", long=["value"])


def _rescore(svc: Services, run_id: str, available: dict[str, str]) -> None:
    with st.expander("Rescore this run (no new answers)"):
        st.caption("Scores the stored answers again: with a judge model for RAGAS answer correctness, or with "
                   "the current yes/no parser. No answer is generated again.")
        judge_opts = ["(keep the run's scoring)", *registry.judge_choices()]
        new_judge = st.selectbox("Judge", judge_opts, format_func=lambda j: available.get(j, j), key="rescore_judge")
        if not new_judge.startswith("("):
            warn = registry.get(new_judge).judge_warning()
            if warn:
                st.warning(warn)
        if st.button("Rescore", key="rescore_run"):
            done = run_safely(benchmark.rescore_answers, run_id, None if new_judge.startswith("(") else new_judge, svc)
            if done is not None:
                st.toast(f"{done.rescored} answers re-scored")
                st.rerun()


def _score_tables(res: benchmark.RunResults, label_of: Callable[[str], str]) -> None:
    """Closed accuracy (with the majority baseline) and the open score side by side, each with n and interval."""
    info = res.summary.comparison
    if info.left_out:
        st.info(f"Comparisons below use the **{info.items} items answered in every model × mode cell**; "
                f"{info.left_out} left out: " + "; ".join(f"{n} {why}" for why, n in info.reasons.items()) + ".")
    closed_t = charts.score_table(res.comparison, "closed", label_of)  # st.table renders Markdown in cells
    if res.majority:
        closed_t = pd.concat([closed_t, charts.majority_row(res.majority)])
    closed = benchmark.closed_view(res.comparison, closed_t, res.summary.no_verdict)
    left, right = st.columns(2)
    with left:
        st.markdown("**Closed questions: accuracy** (exact yes/no)")
        if closed.note:
            st.caption(closed.note)
        if closed.state == "table" or (closed.state == "too_few"
                                       and st.toggle("Why: the table anyway", key=f"closed_why_{res.run_id}")):
            st.table(closed.table.set_index("model"))
    with right:
        st.markdown(f"**Open questions: {report.metric_label(res.summary.metric)}**")
        st.table(charts.score_table(res.comparison, "open", label_of).set_index("model"))
    if not res.proxy:
        st.markdown(f"**{report.PUBLISHED_LABEL}**")
        table(report.published_table2(), hide_index=True, width="stretch")
        st.caption("The paper scored all items (closed ones too) with RAGAS answer correctness; the table above "
                   "scores open items with it and closed items by exact yes/no, so read them side by side, not as one ranking.")


def _charts(res: benchmark.RunResults, label_of: Callable[[str], str], model_name: Callable[[str], str]) -> None:
    """Score bars, the paired tests in one line, type × mode, position, and retrieval hit@k."""
    comp = res.comparison
    c1, c2 = st.columns(2)
    closed = comp[comp["kind"] == "closed"]
    if not closed.empty and not closed["small"].all():
        c1.altair_chart(charts.score_bars(closed, "closed accuracy", model_name))
    if not comp[comp["kind"] == "open"].empty:
        c2.altair_chart(charts.score_bars(comp[comp["kind"] == "open"], "open score", model_name))
    st.caption(f"Bars: mean on the common items; lines: 95% interval; grey bars have n < {MIN_N} (too few to read).")
    if res.tests:
        st.markdown("**Are the differences real?** " + res.tally.sentence())
        if st.toggle("Why: each comparison", key=f"tests_why_{res.run_id}"):
            for t in res.tests:
                st.text(report.describe_test(t, model_name))
    tm = res.type_mode
    if not tm.empty and not res.type_mode_readable:  # a chart of grey cells says nothing: one line instead
        st.caption(f"Question type × mode: at most {int(tm['n'].max())} items per type and mode, too few "
                   f"to read (fewer than {MIN_N}); a bigger item set fills this chart.")
    elif not tm.empty:
        st.altair_chart(charts.type_mode_heatmap(tm, model_name))
    if not res.position.empty:
        st.altair_chart(charts.position_lines(res.position, model_name))
    if res.hits:
        st.markdown("**Retrieval hit@k** (RAG answers whose chunks contain the gold passage): " + "; ".join(
            f"{label_of(mo)} {h.mean:.0%} (95% {charts.ci_text(*h.ci95)}, n = {h.n})"
            for mo, h in res.hits.items()))


def _answer_card(r: pd.Series, label_of: Callable[[str], str], key: str) -> None:
    """One stored answer of the open item: its score, marks, metrics and the passages it was given."""
    with st.container(border=True):
        st.markdown(f"**{label_of(r['model'])} · {MODE_LABELS.get(r['mode']) or plain(r['mode'])}** "
                    f"— score {r['score'] if pd.notna(r['score']) else '—'} ({plain(benchmark.status_words(r['score_status']))})"
                    + (f" · verdict {plain(verdict)}" if (verdict := benchmark.verdict_words(r["verdict"], r["verdict_source"]))
                       else ""))
        mets = r["metrics"] if isinstance(r["metrics"], dict) else {}
        if r["status"] != "ok":
            st.text(f"⚠️ {r['error']}")
        else:
            answer_with_marks(r, mets, key)
        st.caption(" · ".join(f"{plain(report.metric_label(k))}: {v['value'] if v['value'] is not None else '—'} "
                              f"({plain(benchmark.status_words(v['status']))})" for k, v in mets.items())
                   + (f" · answered in {float(r['seconds']):.1f} s" if pd.notna(r["seconds"]) else "")
                   + (f" · kept {r['kept_fraction']:.0%} of the PDF" if r["truncated"] else ""),
                   help=f"Length of the prompt and the answer in the model's tokens: {r['tokens_in']} and "
                        f"{r['tokens_out']}" if pd.notna(r["tokens_in"]) else None)
        for c in r["contexts"]:
            if c.page_start:
                st.caption(c.pages)
                st.text(c.text[:300] + "…")


def _items(res: benchmark.RunResults, label_of: Callable[[str], str], model_name: Callable[[str], str]) -> None:
    """Every answer in a table, one item opened with its expected answer, gold passage and answers, and the downloads."""
    df = res.answers
    st.subheader("Items")
    table(benchmark.item_table(df, model_name), hide_index=True, width="stretch", height=260, long=["Answer"])
    questions = df.drop_duplicates("item_id").set_index("item_id")["question"].to_dict()
    pick = st.selectbox("Open an item", sorted(df["item_id"].unique()), key="open_item",
                        format_func=lambda i: f"{i} · {str(questions.get(i, ''))[:90]}")
    sub = df[df["item_id"] == pick]
    first = sub.iloc[0]
    st.markdown(f"**{plain(first['question_type'])}**")
    st.text(first["question"])
    st.caption("Expected answer")
    st.text(first["expected"])
    with st.expander("Gold passage"):
        st.text(first["gold_context"])
    for _, r in sub.iterrows():
        _answer_card(r, label_of, f"bench_{res.run_id}_{pick}")
    d1, d2 = st.columns(2)
    d1.download_button("Download answers (CSV)", accounts.download(f"answers of run {res.run_id}", lambda: benchmark.answers_csv(
        res)), f"{res.run_id}.csv", "text/csv")
    d2.download_button("Download run (JSON)", accounts.download(f"run {res.run_id}", lambda: benchmark.run_json(res)),
                       f"{res.run_id}.json", "application/json")


def results_tab(svc: Services, available: dict[str, str], label_of: Callable[[str], str],
                run_name: Callable[[StoredRun], str]) -> None:
    """Pick a run; its counts, configuration, scores, charts and items."""
    def model_name(mid: str) -> str:
        return available.get(mid, mid)

    runs = benchmark.run_list()
    if not runs:
        st.info("No runs yet. Run a benchmark in tab 2, or `python -m lib bench ...`.")
        return
    ids = [r.run_id for r in runs]
    names = {r.run_id: run_name(r) for r in runs}
    default = ids.index(st.session_state["bench_run"]) if st.session_state.get("bench_run") in ids else 0
    run_id = st.selectbox("Run", ids, index=default, key="results_run", format_func=names.get)
    res = benchmark.run_results(run_id)
    if res is None:
        st.info("This run is gone (deleted in another tab?). Pick another.")
        return
    _header(res, label_of)
    _rescore(svc, run_id, available)
    if res.answers.empty:
        st.info("This run has no answers yet.")
        return
    _score_tables(res, label_of)
    _charts(res, label_of, model_name)
    support_section(res.answers, res.common, label_of, model_name)
    _items(res, label_of, model_name)

"""The Benchmark page's Results tab: a run's closed and open scores apart, each with n and a 95% interval, the
majority baseline, paired tests, type × mode and position charts, retrieval hit@k, the manifest, the item
drill-down and the downloads. Model answers and item text are shown as text."""
import json
from collections.abc import Callable

import pandas as pd
import streamlit as st

from lib.app import Services, charts
from lib.core import csv_safe
from lib.core.stats import MIN_N
from lib.evaluation.benchmark import answers, list_runs, load_run, report, rescore, summarize
from lib.models import registry
from lib.qa import MODE_LABELS
from pages import _support_view as support_view
from pages._ui import plain, run_safely, tidy

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
               "EIS answers (bench/README.md); a differing number, date, name or negation keeps a sentence at most "
               "partly supported; a claim it cannot decide ('not checked') and a sentence left uncited in an answer "
               "that cites count as not supported; sentences that make no claim are left out. 'No value': answers the score applies to that gave none (a bare yes/no, no "
               "citation); 'judge failed': answers the judge could not score, retried when the run is resumed. "
               "Calibration against experts: Validate, Support checkers.")
    for title, metrics in SUPPORT_GROUPS:
        present = [m for m in metrics if not rf[rf["metric"] == m].empty]
        if not present:
            continue
        st.markdown(f"*{title}*")
        for col, name in zip(st.columns(2), present, strict=False):  # one table per metric: never one column of two
            col.caption(report.metric_label(name))
            col.dataframe(charts.reference_free_table(rf[rf["metric"] == name], label_of), hide_index=True,
                          width="stretch")
    faith = rf[rf["metric"] == "faithfulness_offline"]
    if not faith.empty:
        st.altair_chart(charts.score_bars(faith, "faithfulness (offline checker)", model_name))


def answer_with_marks(r: pd.Series, mets: dict, key: str) -> None:
    """A stored answer with its offline support marks, summary and sentence-by-sentence evidence; the judge's
    summary, where the run has one, on its own line."""
    offline = (mets.get("faithfulness_offline") or {}).get("details") or {}
    support_view.marked_answer(r["answer"] or "", offline.get("marks", []))
    if offline.get("summary"):
        support_view.summary_line(offline["summary"], "offline")
    judged = (mets.get("faithfulness_judge") or {}).get("details") or {}
    if judged.get("summary"):
        support_view.summary_line(judged["summary"], "judge")
    if offline.get("marks"):
        by_n = {int(c.get("n") or i): c for i, c in enumerate(r["contexts"], start=1)}

        def locate(n: int) -> tuple[str, int, int] | None:
            c = by_n.get(n) or {}
            return (c["doc_id"], c["page_start"], c.get("page_end") or c["page_start"]) \
                if c.get("doc_id") and c.get("page_start") else None
        support_view.sentence_details(offline["marks"], key + f"_{r['model']}_{r['mode']}", locate,
                                      failures=judged.get("failures", []))


def results_tab(svc: Services, available: dict[str, str], label_of: Callable[[str], str], run_name: Callable[[dict], str]) -> None:
    def model_name(mid: str) -> str:
        return available.get(mid, mid)

    runs = list_runs()
    if not runs:
        st.info("No runs yet. Run a benchmark in tab 2, or `python -m lib bench ...`.")
    else:
        ids = [r["run_id"] for r in runs]
        names = {r["run_id"]: run_name(r) for r in runs}
        default = ids.index(st.session_state["bench_run"]) if st.session_state.get("bench_run") in ids else 0
        run_id = st.selectbox("Run", ids, index=default, key="results_run", format_func=names.get)
        cfg = next(r for r in runs if r["run_id"] == run_id)
        summary = summarize(run_id)
        df = report.answers_frame(run_id)
        m = st.columns(6)
        m[0].metric("Items", summary.n_items)
        m[1].metric("Answers", summary.answers)
        m[2].metric("Failed answers", summary.failures, help="Counted, shown, and retried when the run is resumed.")
        m[3].metric("Judge failures", summary.judge_failures, help="The answer exists but the judge could not score it; retried on resume and by rescore.")
        m[4].metric("No statements", summary.no_statements)
        m[5].metric("Unclear yes/no", summary.unclear, help="Counted as wrong in closed accuracy.")
        proxy = not report.published_comparable(summary.metric)
        if proxy:
            st.warning("Open questions in this run are scored with the **token-F1 proxy (not RAGAS)**: word overlap "
                       "plus embedding similarity, an offline stand-in. It is not comparable with published RAGAS "
                       "figures; configure a judge model and rescore for RAGAS answer correctness.", icon="⚖️")
        else:
            st.caption(f"Open questions scored with RAGAS answer correctness; judge: {label_of(summary.judge)}.")
        with st.expander("Configuration (manifest)"):
            man = summary.manifest or {}
            def opts(o: dict) -> str:
                t = o.get("temperature")
                return (f"temperature {'not sent (model default or no sampling)' if t is None else f'{t:g}'}, "
                        f"window {o.get('context_window'):,} tokens" + (f", seed {o['seed']}" if o.get("seed") is not None else ""))

            rows = [("run id (for `python -m lib bench --run-id`)", run_id),
                    ("started", str(cfg.get("created_at", ""))[:19]),
                    ("models", ", ".join(x["id"] for x in man.get("models", []))),
                    *((f"options sent to {x['id']}", opts(x["options"])) for x in man.get("models", [])),
                    ("judge", (man.get("judge") or {}).get("id", "none (token-F1 proxy)")),
                    ("embedder", man.get("embedder")), ("app version", man.get("app_version")),
                    *((f"document {d['name']}", f"sha256 {str(d['sha256'])[:12]}…, chunks {d['chunk_size']}/"
                       f"{d['chunk_overlap']} tokens, index generation {d['gen']}") for d in man.get("documents", [])),
                    *((f"setting {k}", str(v)) for k, v in man.get("settings", {}).items() if v is not None),
                    *((f"prompt {k}", f"sha256 {v}") for k, v in man.get("prompts", {}).items())]
            st.dataframe(tidy(pd.DataFrame(rows, columns=["what", "value"])), hide_index=True, width="stretch")
        with st.expander("Rescore this run (no new answers)"):
            st.caption("Scores the stored answers again: with a judge model for RAGAS answer correctness, or with "
                       "the current yes/no parser. No answer is generated again.")
            judge_opts = ["(keep the run's scoring)", *[mid for mid in available if mid != registry.EXTRACTIVE]]
            new_judge = st.selectbox("Judge", judge_opts, format_func=lambda j: available.get(j, j), key="rescore_judge")
            if not new_judge.startswith("("):
                warn = registry.get(new_judge).judge_warning()
                if warn:
                    st.warning(warn)
            if st.button("Rescore", key="rescore_run"):
                done = run_safely(rescore, run_id, None if new_judge.startswith("(") else new_judge, services=svc)
                if done is not None:
                    st.toast(f"{done['rescored']} answers re-scored")
                    st.rerun()
        if df.empty:
            st.info("This run has no answers yet.")
        else:
            stored = load_run(run_id)
            items_r, cfg_r = stored
            rows_r = answers(run_id)
            common = report.comparable_items(items_r, cfg_r, rows_r)
            info = summary.comparison
            if info["left_out"]:
                st.info(f"Comparisons below use the **{info['items']} items answered in every model × mode cell**; "
                        f"{info['left_out']} left out: " + "; ".join(f"{n} {why}" for why, n in info["reasons"].items()) + ".")
            comp = report.comparison_frame(df, common)
            left, right = st.columns(2)
            with left:
                st.markdown("**Closed questions: accuracy** (exact yes/no)")
                closed_t = charts.score_table(comp, "closed", label_of)  # st.table renders Markdown in cells
                mb = report.majority([it for it in items_r if it.id in set(common)])
                if mb:
                    closed_t = pd.concat([closed_t, charts.majority_row(mb)])
                few = comp[comp["kind"] == "closed"]
                if few.empty and summary.no_verdict:
                    st.caption(f"No closed accuracy: {summary.no_verdict} closed answer(s) came with no verdict "
                               "(quotes only: the extractive baseline cannot decide yes or no). They are counted "
                               "apart, never scored wrong.")
                elif not few.empty and few["small"].all():  # every cell too small to read: one line, the table on ask
                    st.caption(f"Too few closed items to read: {int(few['n'].max())} per cell (fewer than {MIN_N}). "
                               "Load a set with more closed questions for an accuracy worth comparing.")
                    if st.toggle("Why: the table anyway", key=f"closed_why_{run_id}"):
                        st.table(closed_t.set_index("model"))
                else:
                    st.table(closed_t.set_index("model"))
            with right:
                st.markdown(f"**Open questions: {report.metric_label(summary.metric)}**")
                st.table(charts.score_table(comp, "open", label_of).set_index("model"))
            if not proxy:
                st.markdown(f"**{report.PUBLISHED_LABEL}**")
                st.dataframe(report.published_table2(), hide_index=True, width="stretch")
                st.caption("The paper scored all items (closed ones too) with RAGAS answer correctness; the table above "
                           "scores open items with it and closed items by exact yes/no, so read them side by side, not as one ranking.")
            c1, c2 = st.columns(2)
            if not comp[comp["kind"] == "closed"].empty and not comp[comp["kind"] == "closed"]["small"].all():
                c1.altair_chart(charts.score_bars(comp[comp["kind"] == "closed"], "closed accuracy", model_name))
            if not comp[comp["kind"] == "open"].empty:
                c2.altair_chart(charts.score_bars(comp[comp["kind"] == "open"], "open score", model_name))
            st.caption(f"Bars: mean on the common items; lines: 95% interval; grey bars have n < {MIN_N} (too few to read).")
            tests = report.paired_tests(df, common, cfg_r.models, cfg_r.modes)
            if tests:
                few = [t for t in tests if t["n"] < report.MIN_TEST_N]
                real = [t for t in tests if t["n"] >= report.MIN_TEST_N and not t["within_noise"]]
                line = (f"{len(tests)} paired comparison(s) on the same items: {len(real)} show a difference beyond "
                        f"noise, {len(tests) - len(real) - len(few)} within noise"
                        + (f", {len(few)} with too few items to compare (fewer than {report.MIN_TEST_N})" if few else ""))
                st.markdown("**Are the differences real?** " + line)
                if st.toggle("Why: each comparison", key=f"tests_why_{run_id}"):
                    for t in tests:
                        st.text(report.describe_test(t, lambda mid: available.get(mid, mid)))
            tm = report.by_type_mode(df, common)
            if not tm.empty and tm["small"].all():  # a chart of grey cells says nothing: one line instead
                st.caption(f"Question type × mode: at most {int(tm['n'].max())} items per type and mode, too few "
                           f"to read (fewer than {MIN_N}); a bigger item set fills this chart.")
            elif not tm.empty:
                st.altair_chart(charts.type_mode_heatmap(tm, model_name))
            pos = report.by_position(df, common)
            if not pos.empty:
                st.altair_chart(charts.position_lines(pos, model_name))
            hits = report.retrieval_detail(cfg_r, rows_r)
            if hits:
                st.markdown("**Retrieval hit@k** (RAG answers whose chunks contain the gold passage): " + "; ".join(
                    f"{label_of(mo)} {h['mean']:.0%} (95% {charts.ci_text(*h['ci95'])}, n = {h['n']})" for mo, h in hits.items()))

            support_section(df, common, label_of, model_name)

            st.subheader("Items")
            view = df[["item_id", "question_type", "model", "mode", "status", "score", "score_status", "verdict",
                       "verdict_source", "answer"]].copy()
            view["model"] = view["model"].map(lambda mid: available.get(mid, mid))
            view["mode"] = view["mode"].map(lambda m: MODE_LABELS.get(m, m))
            view["score"] = pd.to_numeric(view["score"], errors="coerce").round(2)  # all None: a run with no score yet
            view = view.astype(object).where(view.notna(), "—")
            view.columns = ["Item", "Question type", "Model", "Context", "Answered", "Score", "Scored", "Verdict",
                            "Verdict from", "Answer"]
            st.dataframe(view, hide_index=True, width="stretch", height=260)
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
                with st.container(border=True):
                    st.markdown(f"**{label_of(r['model'])} · {MODE_LABELS.get(r['mode']) or plain(r['mode'])}** "
                                f"— score {r['score'] if pd.notna(r['score']) else '—'} ({plain(r['score_status'])})")
                    mets = r["metrics"] if isinstance(r["metrics"], dict) else {}
                    if r["status"] != "ok":
                        st.text(f"⚠️ {r['error']}")
                    else:
                        answer_with_marks(r, mets, f"bench_{run_id}_{pick}")
                    st.caption(" · ".join(f"{plain(report.metric_label(k))}: {v['value'] if v['value'] is not None else '—'} "
                                          f"({plain(v['status'])})"
                                          for k, v in mets.items()) + f" · {r['seconds']} s · {r['tokens_in']} in / {r['tokens_out']} out"
                               + (f" · kept {r['kept_fraction']:.0%} of the PDF" if r["truncated"] else ""))
                    for c in r["contexts"]:
                        if c.get("page_start"):
                            st.caption(f"p. {c['page_start']}" if c["page_start"] == c["page_end"]
                                       else f"pp. {c['page_start']}–{c['page_end']}")
                            st.text(c["text"][:300] + "…")
            d1, d2 = st.columns(2)
            export = df.drop(columns=["gold_context"]).copy()
            export["metrics"] = export["metrics"].map(json.dumps)
            d1.download_button("Download answers (CSV)", csv_safe.to_csv(export), f"{run_id}.csv", "text/csv")
            d2.download_button("Download run (JSON)", json.dumps(
                {"run_id": run_id, "created_at": cfg["created_at"], "config": cfg["config"],
                 "summary": summary.cli_dict(), "answers": df.drop(columns=["gold_context"]).to_dict(orient="records")},
                default=str, indent=1), f"{run_id}.json", "application/json")

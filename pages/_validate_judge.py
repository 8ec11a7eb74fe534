"""The Validate page's Judge tab: a configured judge model labels the queued items with the experts' questions; its
agreement with each expert and with the adjudicated label is shown with n, its replies as text."""
import pandas as pd
import streamlit as st

from lib.app import benchmark as bench_case
from lib.core import access
from lib.core.stats import kappa_band
from lib.models import registry
from lib.review import annotations as ann
from lib.review import judge_review as jr
from pages._ui import run_safely, table, tidy


def judge_tab(label_names: dict[str, str]) -> None:
    st.caption("A judge model labels the queued items with the experts' three questions (type correct, answer "
               "correct, proof supports it). Its labels are stored apart and never enter the experts' agreement "
               "figures; the tables show how often it agrees with each expert and with the adjudicated label, so you "
               "can tell whether it could stand in for them on items generated at scale.")
    judge_models = registry.judge_choices()
    queue = ann.items()
    judge_pick = None
    if not queue:
        st.info("No items in the validation queue yet.")
    elif not judge_models:
        st.info("No judge model is configured. Set an API key (OpenAI, Anthropic, an OpenAI-compatible server) or "
                "a local GGUF model; the extractive baseline is no language model and cannot judge.")
    else:
        c1, c2 = st.columns([3, 2])
        judge_pick = c1.selectbox("Judge model", list(judge_models), key="judge_model",
                                  format_func=judge_models.get)
        warn = registry.get(judge_pick).judge_warning()
        if warn:
            st.warning(warn)
        every = "(all queued items)"
        judge_src = c2.selectbox("Items", [every, *ann.sources()], key="judge_source",
                                 format_func=lambda s: s if s == every else bench_case.item_set_name(s))
        judge_ids = [it.item_id for it in queue if judge_src == every or it.source == judge_src]
        judged = jr.done_items(judge_pick)
        pending = [i for i in judge_ids if i not in judged]
        st.caption(f"{len(judge_ids) - len(pending)} of {len(judge_ids)} items already labelled by this judge; "
                   "items that failed (a reply that was not the JSON asked for) are tried again.")
        if st.button(f"Label {len(pending)} item(s) with the judge", type="secondary" if warn else "primary",
                     disabled=not pending or not access.allowed(access.Action.RUN_BENCHMARK),
                      key="judge_run"):
            st.button("Cancel", key="cancel_judge", help="Stops after the items in flight; finished ones are kept.")
            judge_bar = st.progress(0.0, text="starting…")

            def judge_progress(done: int, total: int, _msg: str) -> None:
                judge_bar.progress(done / total, text=f"{done}/{total} items")

            res = run_safely(jr.judge_items, judge_pick, pending, progress=judge_progress)
            if res is not None:
                judge_bar.progress(1.0, text="done")
                st.success(f"{res.labelled} labelled, {res.failed} failed, {res.skipped} already done"
                           + (f", {res.cancelled} cancelled" if res.cancelled else "") + ".")
    known_judges = jr.judges()
    if known_judges:
        st.markdown("**Agreement with the experts**")
        shown = st.selectbox("Judge", known_judges, key="judge_shown", format_func=lambda i: judge_models.get(i, i),
                             index=known_judges.index(judge_pick) if judge_pick in known_judges else 0)
        jrep = jr.judge_agreement(shown)
        for name, r in jrep.items():
            st.markdown(f"**{label_names[name]}** · {r.n_judged} item(s) labelled by the judge")
            pairs = [(f"expert: {who}", who, c) for who, c in r.vs_experts.items()]
            pairs.append(("adjudicated label", "the adjudicated label", r.vs_adjudicated))
            table(tidy(pd.DataFrame([{"compared with": col, "n": c.n, "% agreement": c.percent,
                                        "Cohen's κ": c.kappa, "κ reading": kappa_band(c.kappa),
                                        "note": c.note or ""} for col, _, c in pairs])),
                         hide_index=True, width="stretch")
            st.text("\n".join(jr.sentence(shown, other, c) for _, other, c in pairs))
            if any(0 < c.n < jr.SMALL_SAMPLE for _, _, c in pairs):
                st.warning(f"Some of these figures rest on fewer than {jr.SMALL_SAMPLE} items: treat them as rough "
                           "until more items are labelled by both.", icon="⚠️")
        st.caption("κ is Cohen's kappa (agreement corrected for chance; Landis & Koch readings). n is the number of "
                   "items both labelled. The adjudicated label is the final one: the adjudicator's where set, else "
                   "the experts' unanimous value; disputed items are left out.")
        jrows = jr.judge_rows(shown)
        failed = [r for r in jrows if r.status == "failed"]
        with st.expander(f"The judge's labels ({len(jrows)} rows, {len(failed)} failed)"):
            table(tidy(pd.DataFrame([{k: getattr(r, k) for k in ("item_id", "label", "value", "status", "error",
                                                                    "raw", "created_at")} for r in jrows])),
                         hide_index=True, width="stretch")

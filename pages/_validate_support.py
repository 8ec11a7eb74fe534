"""The Validate page's Support checkers tab: how well each support checker (offline; a judge model) agrees with the
experts on "Is each sentence of the answer supported by the sources shown?", with percent, Cohen's κ and n, the
threshold each checker uses, and "uncalibrated" until enough expert labels exist."""
import pandas as pd
import streamlit as st

from lib.core import access
from lib.core.stats import kappa_band
from lib.models import registry
from lib.review import support_calibration as sc
from pages import _support_view as support_view
from pages._ui import plain, run_safely, table, tidy


def _status(r: sc.CheckerAgreement) -> str:
    if r.n == 0:
        return "uncalibrated: no expert label to compare with yet"
    if not r.calibrated:
        return f"uncalibrated: {r.n} of {sc.CALIBRATED_AT} expert labels"
    return f"calibrated on {r.n} expert labels"


def support_tab() -> None:
    st.caption("Experts answer \"Is each sentence of the answer supported by the sources shown?\" in Review (keys "
               "8 / 9; the sources shown are the item's proof passage). Each support checker answers the same "
               "question for the same items: the table shows how often it agrees with the experts, over every "
               "(item, expert) label both have. These are the checkers behind the support marks in Ask, the "
               "benchmark's faithfulness and citation precision, and the Arena.")
    cal = run_safely(sc.calibration)
    if cal is None:
        return
    if not cal.n_labels:
        st.info("No expert has answered the support question yet. In Review, press 8 (yes) or 9 (no) on an item; "
                f"each checker stays uncalibrated until {sc.CALIBRATED_AT} expert labels can be compared.")
    # a figure and its interval in one cell, and each checker's note below the table: ten columns ran past the page
    rows = [{"checker": r.name, "status": _status(r), "n": r.n,
             "% agreement (95% interval)": "—" if r.percent is None else f"{r.percent:.1f}" + (
                 f" ({r.percent_ci95[0]:.0f}–{r.percent_ci95[1]:.0f})" if r.percent_ci95 else ""),
             "Cohen's κ (95% interval)": "—" if r.kappa is None else f"{r.kappa:.2f}" + (
                 f" ({r.kappa_ci95[0]:.2f}–{r.kappa_ci95[1]:.2f})" if r.kappa_ci95 else ""),
             "κ reading": kappa_band(r.kappa) if r.calibrated and r.kappa is not None else "—"} for r in cal.checkers]
    table(tidy(pd.DataFrame(rows)), hide_index=True, width="stretch", long=["checker", "status", "κ reading"],
          column_config={"n": st.column_config.Column("n", help="Expert labels compared with the checker's")})
    for r in cal.checkers:
        left_out = "; ".join(f"{n} {why}" for why, n in r.left_out.items())
        note = (r.note or "").strip().rstrip(".")
        st.caption(f"{plain(r.name)}'s threshold: {plain(r.threshold)}." + (f" {plain(note[:1].upper() + note[1:])}." if note else "")
                   + (f" Left out: {plain(left_out)}." if left_out else ""))
    st.markdown("**The marks and how far to trust them**")
    support_view.legend(run_safely(sc.expert_mark_figures))
    for r in cal.checkers:
        if not r.calibrated:
            st.warning(f"{plain(r.name)} is **uncalibrated**: its agreement with the experts rests on "
                       f"{r.n} label(s), fewer than {sc.CALIBRATED_AT}. Read its marks as a first look.",
                       icon="⚖️")
    st.caption(f"{cal.n_labels} expert label(s) on {cal.n_items} item(s). κ corrects the agreement for "
               "chance; it is undefined when every label is the same. Judge checks are stored apart from the "
               "experts' labels and never enter their agreement figures.")
    judge_models = registry.judge_choices()
    if not judge_models:
        st.caption("A judge model checks support too once one is configured (OpenAI, Anthropic, an "
                   "OpenAI-compatible server or a larger local GGUF model).")
        return
    c1, c2 = st.columns([3, 2])
    pick = c1.selectbox("Judge model for the support check", list(judge_models), key="support_judge",
                        format_func=lambda i: f"{judge_models[i]} · {i}")
    warn = registry.get(pick).judge_warning()
    if warn:
        st.warning(warn)
    if c2.button("Check the expert-labelled items with it", key="support_judge_run",
                 disabled=not cal.n_items or not access.allowed(access.Action.RUN_BENCHMARK)):
        done = run_safely(sc.judge_items, pick)
        if done is not None:
            st.toast(f"{done.checked} checked, {done.nothing_to_check} with nothing to check, "
                     f"{done.failed} failed (tried again next time), {done.skipped} done before")
            st.rerun()

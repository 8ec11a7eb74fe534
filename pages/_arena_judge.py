"""The Arena page's Judge tab: a configured judge model votes on the experts' pairs in both orders, and its
agreement with the experts is shown with n. Replies and errors are shown through plain(), never Markdown."""
from collections.abc import Callable

import pandas as pd
import streamlit as st

from lib.core import access
from lib.models import registry
from lib.review import arena
from lib.review import arena_judge as aj
from pages._ui import plain, run_safely, table, tidy


def judge_tab(aid: str, info: arena.Arena, model_name: Callable[[str], str]) -> None:
    llms = [registry.get(m) for m in registry.judge_choices()]
    voted = len({v.pair_key for v in arena.votes(aid)})
    if not voted:
        st.info("The judge votes on the pairs the experts voted on: vote first.", icon="🗳️")
    elif not llms:
        st.info("No language model is configured to judge.", icon="🔌")
    else:
        jpick = st.selectbox("Judge model", [p.id for p in llms], format_func=model_name, key="arena_judge")
        warn = registry.get(jpick).judge_warning()
        if warn:
            st.warning(plain(warn), icon="⚠️")
        if jpick in {m for m, _ in info.systems}:
            st.warning(f"{plain(model_name(jpick))} wrote some of these answers: judges tend to prefer their own "
                       "answers (self-preference), so its agreement with the experts may be flattering.", icon="⚠️")
        todo = aj.pending(aid, jpick)
        unreadable = [r for r in aj.judge_rows(aid, registry.get(jpick).id) if r.status == "unreadable"]
        st.caption(f"{len(todo)} of {voted} voted pair(s) not yet judged by this model; each is asked twice, with "
                   "the answers in both orders (a verdict that changes with the order counts as a tie).")
        done_msg = st.session_state.pop("_arena_judged", None)
        if done_msg:
            bad = done_msg["unreadable"] + done_msg["failed"]
            (st.warning if bad else st.success)(
                f"Judged {done_msg['judged']} pair(s)."
                + (f" {done_msg['unreadable']} reply(ies) could not be read (the model did not answer A, B, tie or "
                   "both_bad), so those pairs have no verdict; a model at temperature 0 would say the same again, "
                   "so they are not asked again unless you say so." if done_msg["unreadable"] else "")
                + (f" {done_msg['failed']} call(s) failed and will be asked again next time." if done_msg["failed"]
                   else "")
                + (" For example: " + "; ".join(plain(e) for e in done_msg["errors"]) if bad else ""), icon="🧑‍⚖️")

        def run_judge(retry: bool) -> None:
            bar = st.progress(0.0, text="Judging…")
            res = run_safely(aj.judge_pairs, aid, jpick, retry_unreadable=retry,
                             progress=lambda d, t, m: bar.progress(d / t, text=f"{d} of {t} pairs"))
            if res:
                errors = [r.error for r in aj.judge_rows(aid, registry.get(jpick).id) if r.status != "ok" and r.error]
                st.session_state["_arena_judged"] = res.as_dict() | {"errors": sorted(set(errors))[:2]}
                st.rerun()  # the counts and the buttons follow

        judge_ok = access.allowed(access.Action.RUN_BENCHMARK)  # judging runs a model: an analyst's
        if todo and st.button(f"Judge {len(todo)} pair(s) ({2 * len(todo)} calls)", type="primary", disabled=not judge_ok):
            run_judge(False)
        if unreadable and st.button(f"Ask again about the {len(unreadable)} pair(s) whose reply could not be read",
                                    disabled=not judge_ok):
            run_judge(True)
        for judge in aj.judges(aid):
            r = aj.judge_vs_experts(aid, judge)
            st.subheader(f"{plain(model_name(judge))} against the experts")
            o, mj = r.overall, r.vs_majority
            c1, c2, c3, c4 = st.columns(4)
            c1.metric(f"Agreement per expert vote (n = {o.n})",
                      "—" if o.percent is None else f"{o.percent:.0f}%",
                      help=f"n = {o.n} expert votes on judged pairs")
            c2.metric(f"Cohen's κ per vote (n = {o.n})", "—" if o.kappa is None else f"{o.kappa:.2f}",
                      help=f"n = {o.n} expert votes")
            c3.metric(f"Per pair, vs the majority (n = {mj.n})",
                      "—" if mj.percent is None else f"{mj.percent:.0f}%",
                      help=f"n = {mj.n} pairs with a majority ({r.no_majority} without one left out); "
                           f"κ {'—' if mj.kappa is None else format(mj.kappa, '.2f')}")
            c4.metric("Changed with the order", f"{r.n_flipped + r.n_changed} of {r.n_judged}",
                      help=f"{r.n_flipped} flipped outright (first ↔ second), {r.n_changed} changed in "
                           "another way (a preference and a tie or 'both bad', or a tie and 'both bad'); all count "
                           "as ties")
            st.caption(f"n = {o.n} expert votes on {r.n_judged} judged pair(s), on three categories: first "
                       "better, second better, no preference (tie or both bad). A pair several experts voted on "
                       "counts once per expert in the per-vote figures, once in the per-pair figure."
                       + (f" {r.n_unreadable} pair(s) with unreadable replies and {r.n_failed} failed call(s) "
                          "have no verdict and are not counted." if r.n_failed + r.n_unreadable else "")
                       + (f" {plain(o.note)}." if o.note else ""))
            if r.per_expert:
                table(tidy(pd.DataFrame([{"expert": w, "n": c.n, "agreement %": c.percent,
                                                 "Cohen's κ": None if c.kappa is None else round(c.kappa, 2),
                                                 "note": c.note}
                                                for w, c in r.per_expert.items()])), hide_index=True)

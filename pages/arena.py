"""Arena: experts compare two answers to one EIS question, blind; systems earn Bradley–Terry ratings; a judge model
is checked against the experts. The work is in lib/arena.py, lib/arena_ratings.py and lib/arena_judge.py.

Answers, passages, questions and names are shown with st.text or through plain(), never as Markdown.
"""
import re
import time

import pandas as pd
import streamlit as st

from lib import arena, charts
from lib import arena_judge as aj
from lib.arena_ratings import ratings, win_matrix
from lib.contexts import MODE_LABELS
from lib.errors import UserError
from lib.providers import registry
from pages._reviewer import reviewer_identity
from pages._ui import passage_text, plain, run_safely, tidy

st.title("⚖️ Arena")
st.caption("Experts compare two answers to the same EIS question without knowing which model wrote them, and vote "
           "for the better one. The votes give each system (a model in a context mode) a Bradley–Terry rating with "
           "a 95% interval, and show whether a judge model agrees with the experts.")

available = {p.id: p.label for p, ok, _ in registry.status_all() if ok}
VOTE_WORDS = {"left": "A is better", "right": "B is better", "tie": "Tie", "both_bad": "Both are bad"}


def model_name(model_id: str) -> str:
    return available.get(model_id, model_id)


def system_name(key: str) -> str:
    """A system key ("model · mode") in plain words."""
    model, _, mode = key.rpartition(" · ")
    return arena.system_label(model, mode, model_name) if model else key


def short_name(key: str) -> str:
    """A system's name for chart axes: the labels without their parenthetical notes."""
    return re.sub(r" \([^)]*\)", "", system_name(key))


def source_title(src: dict) -> str:
    if src["kind"] == "ask":
        return f"Ask history · {src['n_questions']} question(s) · {src['n_pairs']} pairs"
    return (f"Benchmark run: {charts.run_title(src['run'], model_name, MODE_LABELS)} · {src['n_pairs']} pairs")


@st.cache_data(max_entries=32, show_spinner="Fitting ratings and 1,000 bootstrap resamples…")
def _ratings(votes: tuple, seed: int = 0) -> dict:
    return ratings([arena.Vote(*v) for v in votes], seed=seed, n_bootstrap=1000)


def setup_form() -> None:
    srcs = arena.sources()
    if not srcs:
        st.info("No answers to compare yet. Run a benchmark (Benchmark page) with two models or two context modes, "
                "or ask questions on the Ask page with two models: their answers can then be compared here.",
                icon="💡")
        return
    with st.form("new_arena"):
        pick = st.selectbox("Answers from", range(len(srcs)), format_func=lambda i: source_title(srcs[i]))
        systems = srcs[pick]["systems"]
        chosen = st.multiselect("Systems to compare (a model in a context mode)", range(len(systems)),
                                default=list(range(len(systems))),
                                format_func=lambda i: arena.system_label(*systems[i], model_name),
                                help="Only answers that differ in one thing are paired: two models in one mode, or "
                                     "one model in two modes.")
        c1, c2 = st.columns([3, 1])
        name = c1.text_input("Arena name (optional)")
        k = c2.number_input("Experts per pair", 1, 5, 2, help="Pairs already voted on by fewer experts than this "
                            "come first, so the experts' agreement can be measured.")
        if st.form_submit_button("Start the arena", type="primary"):
            picked = [systems[i] for i in chosen] if len(chosen) != len(systems) else None
            if picked is not None and len(picked) < 2:
                st.error("Pick at least two systems.", icon="⚠️")
                return
            made = run_safely(arena.create_arena, srcs[pick]["source"], picked, name, int(k))
            if made:
                st.session_state["arena_pick"] = made
                st.rerun()


all_arenas = arena.arenas()
if not all_arenas:
    st.subheader("Start an arena")
    setup_form()
    st.stop()

ids = [a["arena_id"] for a in all_arenas]
if st.session_state.get("arena_pick") not in ids:
    st.session_state["arena_pick"] = ids[0]
names = {a["arena_id"]: a["name"] for a in all_arenas}
aid = st.selectbox("Arena", ids, format_func=lambda i: names[i], key="arena_pick")
info = arena.get_arena(aid)
summary = arena.arena_summary(info)
st.caption(f"{summary['n_pairs']} pairs over {summary['n_questions']} question(s) · "
           f"{len(info['systems'])} systems · {summary['n_votes']} vote(s) from {len(summary['experts'])} expert(s)"
           + (f" · each pair wanted from {info['min_experts']} experts" if info["min_experts"] > 1 else ""))
if summary["left_out"]:
    st.caption("Left out (failed or empty answers cannot be compared): " + "; ".join(
        f"{plain(arena.system_label(*s, model_name))}: {n}" for s, n in sorted(summary["left_out"].items())))

tab_vote, tab_ratings, tab_judge, tab_arenas = st.tabs(
    ["Vote", "Ratings", "Judge vs experts", "Arenas, import / export"], key="arena_tab", on_change="rerun")


@st.fragment
def vote_panel(arena_id: str, who: str, live: bool) -> None:
    """One pair at a time, names hidden until the vote. A fragment: a vote reruns only this panel."""
    done, total = arena.progress(arena_id, who)
    st.progress(done / total if total else 0.0, text=f"{done} of {total} pairs voted by you")
    last = st.session_state.get(f"_arena_last_{arena_id}_{who}")
    if last:
        st.success(f"Your vote: {last['vote']}. A was {plain(last['a'])}; B was {plain(last['b'])}.", icon="🔓")
    if st.session_state.pop("_arena_stale", False):
        st.warning("A key pressed while the next pair was loading was ignored; press it again.", icon="⌨️")
    if "_arena_error" in st.session_state:
        st.error(plain(st.session_state.pop("_arena_error")), icon="⚠️")
    pair = arena.next_pair(arena_id, who)
    if pair is None:
        st.success("You have voted on every pair in this arena. See the Ratings tab.", icon="✅")
        return
    shown = st.session_state.setdefault(f"_arena_shown_{pair.pair_key}_{who}", time.time())
    st.session_state["_arena_current"] = pair.pair_key

    def cast(vote: str, pk: str = pair.pair_key) -> None:
        if st.session_state.get("_arena_current") != pk:  # a key that reached the previous pair's button
            st.session_state["_arena_stale"] = True
            return
        try:
            arena.cast_vote(arena_id, who, pair, vote, st.session_state.get(f"reason_{pk}", ""),
                            time.time() - shown)
        except UserError as exc:
            st.session_state["_arena_error"] = str(exc)
            return
        st.session_state[f"_arena_last_{arena_id}_{who}"] = {
            "vote": VOTE_WORDS[vote], "a": arena.system_label(*pair.left.system, model_name),
            "b": arena.system_label(*pair.right.system, model_name)}

    st.markdown("**Question**")
    st.text(pair.question)
    if pair.gold or pair.passages:
        with st.expander("Passages from the EIS (what the answers could draw on)"):
            if pair.gold:
                st.caption("Reference passage (the source the question was written from)")
                st.text(passage_text(pair.gold))
            for p in pair.passages:
                where = " ".join(x for x in (f"[{p['n']}]" if p.get("n") else "", plain(p.get("doc_name") or ""),
                                             f"p. {p['page_start']}" if p.get("page_start") else "") if x)
                st.caption(f"Retrieved passage {where}")
                st.text(passage_text(p.get("text")))
    ca, cb = st.columns(2)
    for col, side, ans in ((ca, "A", pair.left), (cb, "B", pair.right)):
        with col.container(border=True):
            st.markdown(f"**Answer {side}**")
            st.text(ans.text)
    b = st.columns(4)
    for col, vote, key, icon in ((b[0], "left", "Left", "⬅️"), (b[1], "right", "Right", "➡️"),
                                 (b[2], "tie", "T", "🤝"), (b[3], "both_bad", "X", "👎")):
        col.button(f"{icon} {VOTE_WORDS[vote]}", key=f"v_{vote}_{pair.pair_key}", width="stretch",
                   shortcut=key if live else None, on_click=cast, args=(vote,))
    st.text_input("Reason (optional, saved with the vote)", key=f"reason_{pair.pair_key}")
    st.caption("Keys: ← A is better · → B is better · T tie · X both bad. The names are shown after your vote.")


with tab_vote:
    voters = sorted({v["annotator"] for v in arena.votes(aid)})
    who, _adjudicator = reviewer_identity(voters)
    if who:
        vote_panel(aid, who, tab_vote.open is not False)  # the keys live only while this tab is shown
    else:
        st.caption("Pick or add your name above to start voting.")

with tab_ratings:
    rows = arena.votes(aid)
    if not rows:
        st.info("No votes yet. Vote on a few pairs in the Vote tab; ratings appear here.", icon="🗳️")
    else:
        votes = arena.rating_votes(rows)
        result = _ratings(tuple((v.left, v.right, v.vote, v.annotator, v.item_id) for v in votes))
        n = result["n_votes"]
        if n < charts.ARENA_FEW:
            st.warning(f"Only {n} vote(s): the intervals are wide. Read an order only where two intervals do not "
                       f"overlap; {charts.ARENA_FEW} votes or more make a first reading.", icon="⚠️")
        if result["unbounded"]:
            st.warning("The votes do not bound every rating: " + "; ".join(
                f"{plain(system_name(s))}: {why}" for s, why in result["unbounded"].items())
                + ". Bradley–Terry needs every system to have both won (or tied) and lost (or tied) against the "
                "rest; until then those numbers rest on the fit's light prior, not on the votes. Read the win "
                "rates below, and vote on more pairs.", icon="⚠️")
        st.dataframe(charts.arena_table(result, system_name), hide_index=True, width="stretch")
        st.altair_chart(charts.arena_ratings_chart(result, short_name), width="stretch")
        st.caption(f"{n} vote(s), {result['ties']} tie(s) of which {result['both_bad']} 'both bad'. "
                   "Bradley–Terry fitted with choix; a tie counts as half a win to each side, and 'both bad' as a "
                   "tie. Ratings are log-odds centred at 0 (a difference of 1 means the better one wins 73% of the "
                   "time); Elo-style = 1000 + 174 × rating. Intervals: 1,000 bootstrap resamples of the votes "
                   "(seed 0).")
        bias = result["position_bias"]
        st.subheader("Position bias")
        if bias["n"]:
            st.altair_chart(charts.position_bias_chart(bias), width="stretch")
            text = (f"The left answer won {bias['left_share']:.0%} of {bias['n']} decisive votes "
                    f"(binomial test against 50%: p = {bias['p_value']:.3f}).")
            (st.warning if bias["p_value"] < 0.05 else st.caption)(
                text + (" The experts favour a side: check that answers are not recognisable by position."
                        if bias["p_value"] < 0.05 else ""))
        else:
            st.caption("No decisive vote yet (only ties and 'both bad').")
        st.subheader("Win rates and votes per pair")
        matrix = win_matrix(votes)
        st.altair_chart(charts.win_rate_heatmap(matrix, short_name), width="stretch")
        per_pair = pd.DataFrame([{
            "system": system_name(m["model"]), "against": system_name(m["opponent"]), "votes (n)": m["n"],
            "wins": m["wins"], "losses": m["losses"], "ties (incl. both bad)": m["ties"],
            "both bad": sum(1 for v in votes if v.vote == "both_bad" and {v.left, v.right} == {m["model"], m["opponent"]}),
            "win rate": m["win_rate"]} for m in matrix if m["model"] < m["opponent"]])
        st.dataframe(tidy(per_pair), hide_index=True, width="stretch")
        st.subheader("Experts' agreement")
        ag = arena.expert_agreement(rows)
        if not ag["n_pairs"]:
            st.caption("No pair has votes from two experts yet. Set 'Experts per pair' to 2 or more when starting an "
                       "arena, and have a second expert vote.")
        else:
            c1, c2, c3, c4 = st.columns(4)
            c1.metric("Pairs seen by 2+ experts", ag["n_pairs"], help=f"{ag['n_votes']} votes by {ag['n_experts']} experts")
            c2.metric("Percent agreement", f"{ag['percent']:.0f}%")
            c3.metric("Fleiss' κ", "—" if ag["fleiss"] is None else f"{ag['fleiss']:.2f}",
                      help="Needs 3+ experts who voted on the same pairs.")
            c4.metric("Krippendorff's α", "—" if ag["alpha"] is None else f"{ag['alpha']:.2f}")
            st.caption(f"On the vote relative to the pair (first better / second better / tie / both bad), n = "
                       f"{ag['n_pairs']} pairs." + (" Too few pairs to read (n < 30)." if ag["n_pairs"] < 30 else ""))

with tab_judge:
    llms = [p for p, ok, _ in registry.status_all() if ok and registry.is_llm(p)]
    voted = len({v["pair_key"] for v in arena.votes(aid)})
    if not voted:
        st.info("The judge votes on the pairs the experts voted on: vote first.", icon="🗳️")
    elif not llms:
        st.info("No language model is configured to judge.", icon="🔌")
    else:
        jpick = st.selectbox("Judge model", [p.id for p in llms], format_func=model_name, key="arena_judge")
        warn = registry.judge_warning(registry.get(jpick))
        if warn:
            st.warning(plain(warn), icon="⚠️")
        todo = aj.pending(aid, jpick)
        st.caption(f"{len(todo)} of {voted} voted pair(s) not yet judged by this model; each is asked twice, with "
                   "the answers in both orders (a verdict that flips with the order counts as a tie).")
        if todo and st.button(f"Judge {len(todo)} pair(s) ({2 * len(todo)} calls)", type="primary"):
            bar = st.progress(0.0, text="Judging…")
            res = run_safely(aj.judge_pairs, aid, jpick,
                             progress=lambda d, t, m: bar.progress(d / t, text=f"{d} of {t} pairs"))
            if res:
                st.success(f"Judged {res['judged']} pair(s); {res['failed']} failed (tried again next time).")
        for judge in aj.judges(aid):
            r = aj.judge_vs_experts(aid, judge)
            st.subheader(f"{plain(model_name(judge))} against the experts")
            o = r["overall"]
            c1, c2, c3, c4 = st.columns(4)
            c1.metric("Expert votes compared (n)", o["n"])
            c2.metric("Agreement", "—" if o["percent"] is None else f"{o['percent']:.0f}%")
            c3.metric("Cohen's κ", "—" if o["kappa"] is None else f"{o['kappa']:.2f}")
            c4.metric("Flipped with the order", f"{r['n_flipped']} of {r['n_judged']}")
            if o.get("note"):
                st.caption(plain(o["note"]))
            st.caption("Compared on three categories: first better, second better, no preference (tie or both bad). "
                       + (f"{r['n_failed']} pair(s) failed and are not counted." if r["n_failed"] else ""))
            if r["per_expert"]:
                st.dataframe(tidy(pd.DataFrame([{"expert": w, "n": c["n"], "agreement %": c["percent"],
                                                 "Cohen's κ": c["kappa"], "note": c["note"]}
                                                for w, c in r["per_expert"].items()])), hide_index=True)

with tab_arenas:
    st.subheader("Votes as CSV")
    st.download_button("Download this arena's votes (CSV)", arena.votes_csv(aid), file_name=f"arena_{aid}_votes.csv",
                       mime="text/csv", disabled=not summary["n_votes"])
    up = st.file_uploader("Import votes (CSV exported from an arena over the same answers)", type=["csv"],
                          key="arena_import")
    if up is not None and st.button("Import into this arena"):
        from lib.textfile import decode_text

        text = run_safely(decode_text, up.getvalue(), "votes file")
        n_in = run_safely(arena.import_votes_csv, text, aid) if text is not None else None
        if n_in:
            st.success(f"Imported {n_in} vote(s).")
    st.subheader("Start another arena")
    setup_form()

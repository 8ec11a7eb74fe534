"""Arena: experts compare two answers to one EIS question, blind; systems earn Bradley–Terry ratings; a judge model
is checked against the experts. The work is in lib/arena.py, lib/arena_ratings.py and lib/arena_judge.py.

Answers, passages, questions and names are shown with st.text or through plain(), never as Markdown.
"""
import hashlib
import math
import re
import time

import pandas as pd
import streamlit as st

from lib.app import charts
from lib.core.errors import UserError
from lib.core.stats.ratings import ELO_SCALE, MIN_VOTES, ratings, win_matrix
from lib.models import registry
from lib.qa.contexts import MODE_LABELS
from lib.review import arena, arena_csv
from lib.review import arena_judge as aj
from pages._reviewer import reviewer_identity
from pages._ui import passage_text, plain, run_safely, tidy

st.title("⚖️ Arena")
st.caption("Experts compare two answers to the same EIS question without knowing which model wrote them, and vote "
           "for the better one. **How:** pick your name, read the question and answers A and B, then vote (buttons "
           "or keys); the names appear after your vote. The votes rate each system (a model with a kind of context) "
           "with a 95% interval, and show whether a judge model agrees with the experts.")

available = {p.id: p.label for p, ok, _ in registry.status_all() if ok}
SMALL_N = 30  # below this many pairs, agreement is a first look
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
        return f"Ask history, every question · {src['n_questions']} question(s) · {src['n_pairs']} pairs"
    if src["kind"] == "ask_batch":
        q = src["question"] if len(src["question"]) <= 90 else src["question"][:90].rsplit(" ", 1)[0] + " …"
        return f"Ask: “{q}” · {src['n_pairs']} pairs"
    return (f"Benchmark run: {charts.run_title(src['run'], model_name, MODE_LABELS)} · {src['n_pairs']} pairs")


BOOTSTRAP, SEED = 1000, 0


@st.cache_data(max_entries=32, show_spinner=f"Fitting ratings and {BOOTSTRAP:,} bootstrap resamples…")
def _ratings(votes: tuple) -> dict:
    return ratings([arena.Vote(*v) for v in votes], seed=SEED, n_bootstrap=BOOTSTRAP)


def widget_id(pair_key: str) -> str:
    """A pair's widget keys carry a hash, not the answers' ids (they end up in the page's HTML)."""
    return hashlib.sha256(pair_key.encode()).hexdigest()[:12]


def setup_form() -> None:
    """Start an arena: the answers (a benchmark run, the Ask history, or one Ask question), the systems, the experts
    wanted per pair. Plain widgets, not a form, so the systems follow the answers picked."""
    srcs = arena.sources()
    if not srcs:
        st.info("No answers to compare yet. Run a benchmark (Benchmark page) with two models or two context modes, "
                "or ask questions on the Ask page with two models: their answers can then be compared here.",
                icon="💡")
        return
    pick = st.selectbox("Answers from", range(len(srcs)), format_func=lambda i: source_title(srcs[i]), key="new_src")
    systems = srcs[pick]["systems"]
    chosen = st.multiselect("Systems to compare (a model with a kind of context)", range(len(systems)),
                            default=list(range(len(systems))), key=f"new_sys_{srcs[pick]['source']}",
                            format_func=lambda i: arena.system_label(*systems[i], model_name),
                            help="Only answers that differ in one thing are paired: two models with the same context, "
                                 "or one model with two kinds of context.")
    c1, c2 = st.columns([3, 1])
    if st.session_state.pop("_arena_clear_name", False):
        st.session_state["new_name"] = ""  # before the field is drawn: the next arena is not given the same name
    name = c1.text_input("Arena name (optional)", key="new_name")
    k = c2.number_input("Experts per pair", 1, 5, 2, key="new_k", help="Pairs other experts voted on by fewer "
                        "experts than this come first, so the experts' agreement can be measured.")
    if st.button("Start the arena", type="primary"):
        picked = [systems[i] for i in chosen]
        if len(picked) < 2:
            st.error("Pick at least two systems.", icon="⚠️")
            return
        made = run_safely(arena.create_arena, srcs[pick]["source"], picked, name, int(k))
        if made:
            st.session_state["_arena_open"] = made  # picked before the arena selectbox is drawn, on the rerun
            st.session_state["_arena_toast"] = "Arena started: it is open above; vote in the Vote tab."
            st.session_state["_arena_clear_name"] = True
            st.rerun()


if "_arena_toast" in st.session_state:
    st.toast(plain(st.session_state.pop("_arena_toast")), icon="⚖️")
all_arenas = arena.arenas()
if not all_arenas:
    st.subheader("Start an arena")
    setup_form()
    st.stop()

ids = [a["arena_id"] for a in all_arenas]
if st.session_state.get("_arena_open") in ids:
    st.session_state["arena_pick"] = st.session_state.pop("_arena_open")
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
    st.caption("Left out (failed, empty or 'nothing to quote' answers cannot be compared): " + "; ".join(
        f"{plain(arena.system_label(*s, model_name))}: {n}" for s, n in sorted(summary["left_out"].items())))
if summary["identical"]:
    st.caption(f"{summary['identical']} pair(s) of identical answers are not asked (there is nothing to choose).")

tab_vote, tab_ratings, tab_judge, tab_arenas = st.tabs(
    ["Vote", "Ratings", "Judge vs experts", "Arenas, import / export"], key="arena_tab", on_change="rerun")


@st.fragment
def vote_panel(arena_id: str, who: str, live: bool) -> None:
    """One pair at a time, names hidden until the vote. A fragment: a vote reruns only this panel."""
    snap = arena.snapshot(arena_id)  # one read for the progress, the pair and the vote
    done, total = arena.progress(arena_id, who, snap=snap)
    st.progress(done / total if total else 0.0, text=f"{done} of {total} pairs voted by you")

    def notices() -> None:
        """Below the buttons, so a notice coming or going never moves them under the pointer."""
        last = st.session_state.get(f"_arena_last_{arena_id}_{who}")
        if last:
            st.success(f"Your vote: {last['vote']}. A was {plain(last['a'])}; B was {plain(last['b'])}.", icon="🔓")
        if "_arena_undone" in st.session_state:
            st.info(f"Your last vote ({st.session_state.pop('_arena_undone')}) was taken back; vote on the pair "
                    "again.", icon="↩️")
        if st.session_state.pop("_arena_stale", False):
            st.warning("A key pressed while the next pair was loading was ignored; press it again.", icon="⌨️")
        if "_arena_error" in st.session_state:
            st.error(plain(st.session_state.pop("_arena_error")), icon="⚠️")
    stack_key = f"_arena_voted_{arena_id}_{who}"  # the pairs this expert voted on in this session, latest last
    stack = st.session_state.setdefault(stack_key, [])
    pair = arena.next_pair(arena_id, who, snap=snap, prefer=st.session_state.get(f"_arena_redo_{arena_id}_{who}"))

    def undo() -> None:
        """Take back the vote this session last cast (whatever other tabs or imports did since)."""
        st.session_state.pop(f"_arena_last_{arena_id}_{who}", None)
        while stack:
            pk = stack.pop()
            undone = arena.take_back(arena_id, who, pk)
            if undone:
                st.session_state[f"_arena_redo_{arena_id}_{who}"] = pk
                st.session_state.pop(f"_arena_shown_{arena_id}_{widget_id(pk)}_{who}", None)  # timed afresh
                st.session_state["_arena_undone"] = VOTE_WORDS[undone["vote"]]
                return

    if pair is None:
        st.success("You have voted on every pair in this arena. See the Ratings tab.", icon="✅")
        if stack:
            st.button("↩️ Undo my last vote", key=f"undo_end_{arena_id}", on_click=undo)
        notices()
        return
    wid = widget_id(pair.pair_key)
    shown = st.session_state.setdefault(f"_arena_shown_{arena_id}_{wid}_{who}", time.time())
    st.session_state["_arena_current"] = pair.pair_key

    def cast(vote: str, pk: str = pair.pair_key) -> None:
        if st.session_state.get("_arena_current") != pk:  # a key that reached the previous pair's button
            st.session_state["_arena_stale"] = True
            return
        try:
            arena.cast_vote(arena_id, who, pair, vote, st.session_state.get(f"reason_{wid}", ""),
                            time.time() - shown, snap=snap)
        except UserError as exc:
            st.session_state["_arena_error"] = str(exc)
            return
        stack.append(pk)
        st.session_state.pop(f"_arena_shown_{arena_id}_{wid}_{who}", None)
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
        col.button(f"{icon} {VOTE_WORDS[vote]}", key=f"v_{vote}_{wid}", width="stretch",
                   shortcut=key if live else None, on_click=cast, args=(vote,))
    c_reason, c_undo = st.columns([4, 1], vertical_alignment="bottom")
    c_reason.text_input("Reason (optional, saved with the vote)", key=f"reason_{wid}")
    c_undo.button("↩️ Undo last vote", key=f"undo_{wid}", disabled=not stack, width="stretch",
                  shortcut="U" if live else None, on_click=undo)
    st.caption("Keys: ← A is better · → B is better · T tie · X both bad · U undo. The names are shown after your "
               "vote. Citations such as [1] (p. 8) come with answers that were given retrieved passages. The time "
               "from the pair on screen to your vote is saved with it.")
    notices()


with tab_vote:
    who, _adjudicator = reviewer_identity(arena.voters())  # experts of Validate and of every arena
    if who:
        vote_panel(aid, who, tab_vote.open is not False)  # the keys live only while this tab is shown
    else:
        st.caption("Pick or add your name above to start voting.")

with tab_ratings:
    rows = arena.votes(aid)
    mine_left = bool(who) and (lambda d_t: d_t[0] < d_t[1])(arena.progress(aid, who))
    if not rows:
        st.info("No votes yet. Vote on a few pairs in the Vote tab; ratings appear here.", icon="🗳️")
    elif mine_left and not st.session_state.get(f"_arena_peek_{aid}_{who}"):
        st.info("You still have pairs to vote on. Seeing the ratings and vote counts first can bias your votes (and "
                "hint at which systems the next pair comes from), so they are folded away until you finish.",
                icon="🙈")
        st.button("Show the ratings anyway",
                  on_click=lambda: st.session_state.__setitem__(f"_arena_peek_{aid}_{who}", True))
    else:
        votes = arena.rating_votes(rows)
        result = _ratings(tuple((v.left, v.right, v.vote, v.annotator, v.item_id) for v in votes))
        n = result["n_votes"]
        if n < charts.ARENA_FEW:
            st.warning(f"Only {n} vote(s): the intervals are wide. Read an order only where two intervals do not "
                       f"overlap; {charts.ARENA_FEW} votes or more make a first reading.", icon="⚠️")
        if summary["groups"] > 1:
            st.warning(f"These systems fall into {summary['groups']} groups that are never compared, even through "
                       "other systems (pairs are two models in one mode, or one model in two modes): ratings across "
                       "groups mean nothing.", icon="⚠️")
        few = {m: why for m, why in result["unbounded"].items() if why.startswith("no interval: too few")}
        apart = {m: why for m, why in result["unbounded"].items() if m not in few}
        if apart:
            st.warning("The votes do not bound every rating: " + "; ".join(
                f"{plain(system_name(s))}: {why}" for s, why in apart.items())
                + ". Bradley–Terry needs the systems to have both won (or tied) and lost (or tied) against each "
                "other; until then those numbers rest on the fit's light prior, not on the votes, and have no "
                "interval" + (". The others are rated and centred among themselves" if result["centred_on"] else "")
                + ". Read the win rates below, and vote on more pairs.", icon="⚠️")
        if few:
            st.caption(f"No interval yet for systems with fewer than {MIN_VOTES} votes (a bootstrap of one or two "
                       "votes repeats them and would look certain): "
                       + "; ".join(plain(system_name(s)) for s in few) + ".")
        keys = [arena.system_key(*sy) for sy in info["systems"]]
        unvoted = [k for k in keys if k not in result["models"]]
        table = charts.arena_ratings_table(result, system_name, keys,
                                           {arena.system_key(*sy): n for sy, n in summary["left_out"].items()})
        st.dataframe(tidy(table), hide_index=True, width="stretch")
        if unvoted:
            st.caption("Systems with no votes yet have no rating: " + "; ".join(plain(system_name(k)) for k in unvoted))
        st.altair_chart(charts.arena_ratings_chart(result, short_name), width="stretch")
        st.caption(f"{n} vote(s), {result['ties']} tie(s) of which {result['both_bad']} 'both bad'. "
                   "Bradley–Terry fitted with choix; a tie counts as half a win to each side, and 'both bad' as a "
                   "tie. Ratings are log-odds centred at 0 (a difference of 1 means the better one wins "
                   f"{1 / (1 + math.exp(-1)):.0%} of the time); Elo-style = 1000 + {ELO_SCALE:.0f} × rating. "
                   f"Intervals: {BOOTSTRAP:,} bootstrap resamples of the votes (seed {SEED}). Not in the ratings: "
                   "failed, empty and 'nothing to quote' answers (a system that often has nothing to quote is "
                   "spared those losses; see the left-out column) and pairs of identical answers (not counted as "
                   "ties).")
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
        per_pair = charts.arena_pair_table(matrix, short_name)
        st.dataframe(tidy(per_pair), hide_index=True, width="stretch")
        st.subheader("Experts' agreement")
        ag = arena.expert_agreement(rows)
        if not ag["n_pairs"]:
            st.caption("No pair has votes from two experts yet: a second expert's first pairs will be those already "
                       "voted on." if info["min_experts"] > 1 else "No pair has votes from two experts yet. Start an "
                       "arena with 'Experts per pair' at 2 or more so that experts share pairs.")
        else:
            c1, c2, c3, c4 = st.columns(4)
            c1.metric("Pairs seen by 2+ experts (n)", ag["n_pairs"],
                      help=f"{ag['n_votes']} votes by {ag['n_experts']} experts")
            ci_text = ("no interval on one pair" if ag["percent_ci95"] is None else
                       f"95% interval {ag['percent_ci95'][0]:.0f}–{ag['percent_ci95'][1]:.0f}%")
            c2.metric("Percent agreement", f"{ag['percent']:.0f}%",
                      help=f"n = {ag['n_pairs']} pairs; {ci_text} (bootstrap over pairs)")
            c3.metric("Fleiss' κ", "—" if ag["fleiss"] is None else f"{ag['fleiss']:.2f}",
                      help=f"Over the {ag['fleiss_n']} pair(s) with {ag['fleiss_m']} votes each (Fleiss' κ needs the "
                           "same number of votes per pair, and at least two pairs with more than one kind of vote).")
            c4.metric("Krippendorff's α", "—" if ag["alpha"] is None else f"{ag['alpha']:.2f}",
                      help=f"n = {ag['n_pairs']} pairs")
            st.caption(f"On the vote relative to the pair (first better / second better / tie / both bad): percent "
                       f"agreement {ag['percent']:.0f}% ({ci_text}) and α over n = {ag['n_pairs']} pairs, Fleiss' κ over n = "
                       f"{ag['fleiss_n']} pairs with {ag['fleiss_m']} votes each."
                       + (f" Too few pairs to read (n < {SMALL_N})." if ag["n_pairs"] < SMALL_N else ""))
            if ag["cohen"]:
                st.dataframe(tidy(pd.DataFrame([{"experts": k, "pairs both voted on (n)": c["n"],
                                                 "Cohen's κ": None if c["kappa"] is None else round(c["kappa"], 2)}
                                                for k, c in ag["cohen"].items()])), hide_index=True)

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
        if jpick in {m for m, _ in info["systems"]}:
            st.warning(f"{plain(model_name(jpick))} wrote some of these answers: judges tend to prefer their own "
                       "answers (self-preference), so its agreement with the experts may be flattering.", icon="⚠️")
        todo = aj.pending(aid, jpick)
        unreadable = [r for r in aj.judge_rows(aid, registry.get(jpick).id) if r["status"] == "unreadable"]
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
                errors = [r["error"] for r in aj.judge_rows(aid, registry.get(jpick).id) if r["status"] != "ok"]
                st.session_state["_arena_judged"] = res | {"errors": sorted(set(errors))[:2]}
                st.rerun()  # the counts and the buttons follow

        if todo and st.button(f"Judge {len(todo)} pair(s) ({2 * len(todo)} calls)", type="primary"):
            run_judge(False)
        if unreadable and st.button(f"Ask again about the {len(unreadable)} pair(s) whose reply could not be read"):
            run_judge(True)
        for judge in aj.judges(aid):
            r = aj.judge_vs_experts(aid, judge)
            st.subheader(f"{plain(model_name(judge))} against the experts")
            o, mj = r["overall"], r["vs_majority"]
            c1, c2, c3, c4 = st.columns(4)
            c1.metric(f"Agreement per expert vote (n = {o['n']})",
                      "—" if o["percent"] is None else f"{o['percent']:.0f}%",
                      help=f"n = {o['n']} expert votes on judged pairs")
            c2.metric(f"Cohen's κ per vote (n = {o['n']})", "—" if o["kappa"] is None else f"{o['kappa']:.2f}",
                      help=f"n = {o['n']} expert votes")
            c3.metric(f"Per pair, vs the majority (n = {mj['n']})",
                      "—" if mj["percent"] is None else f"{mj['percent']:.0f}%",
                      help=f"n = {mj['n']} pairs with a majority ({r['no_majority']} without one left out); "
                           f"κ {'—' if mj['kappa'] is None else format(mj['kappa'], '.2f')}")
            c4.metric("Changed with the order", f"{r['n_flipped'] + r['n_changed']} of {r['n_judged']}",
                      help=f"{r['n_flipped']} flipped outright (first ↔ second), {r['n_changed']} changed in "
                           "another way (a preference and a tie or 'both bad', or a tie and 'both bad'); all count "
                           "as ties")
            st.caption(f"n = {o['n']} expert votes on {r['n_judged']} judged pair(s), on three categories: first "
                       "better, second better, no preference (tie or both bad). A pair several experts voted on "
                       "counts once per expert in the per-vote figures, once in the per-pair figure."
                       + (f" {r['n_unreadable']} pair(s) with unreadable replies and {r['n_failed']} failed call(s) "
                          "have no verdict and are not counted." if r["n_failed"] + r["n_unreadable"] else "")
                       + (f" {plain(o['note'])}." if o.get("note") else ""))
            if r["per_expert"]:
                st.dataframe(tidy(pd.DataFrame([{"expert": w, "n": c["n"], "agreement %": c["percent"],
                                                 "Cohen's κ": None if c["kappa"] is None else round(c["kappa"], 2),
                                                 "note": c["note"]}
                                                for w, c in r["per_expert"].items()])), hide_index=True)

with tab_arenas:
    st.subheader("Votes as CSV")
    st.download_button("Download this arena's votes (CSV)", arena_csv.votes_csv(aid), file_name=f"arena_{aid}_votes.csv",
                       mime="text/csv", disabled=not summary["n_votes"])
    up = st.file_uploader("Import votes (CSV exported from an arena over the same answers)", type=["csv"],
                          key=f"arena_import_{aid}",
                          help="Answers are named by their ids in this studio's store, so votes import into an "
                               "arena over the same benchmark run or Ask answers here, not into another installation.")
    if "_arena_imported" in st.session_state:
        got = st.session_state.pop("_arena_imported")
        st.success(f"Imported: {got['new']} new vote(s), {got['replaced']} replaced (the file's vote differs), "
                   f"{got['unchanged']} already here unchanged.")
    if up is not None and st.button("Import into this arena"):
        from lib.core.textfile import decode_text

        text = run_safely(decode_text, up.getvalue(), "votes file")
        got = run_safely(arena.import_votes_csv, text, aid) if text is not None else None
        if got:
            st.session_state["_arena_imported"] = got
            st.rerun()  # the header's counts and the download follow
    st.subheader("Start another arena")
    setup_form()
    st.subheader("Delete this arena")
    sure = st.checkbox(f"Delete “{plain(info['name'])}” and its {summary['n_votes']} vote(s) (the answers stay)",
                       key=f"del_{aid}")
    if st.button("Delete the arena", disabled=not sure):
        arena.delete_arena(aid)  # the next run opens another arena (or the start form)
        st.session_state["_arena_toast"] = f"Arena “{info['name']}” deleted (its answers stay)."
        st.rerun()

"""The Arena page's Ratings tab: Bradley–Terry ratings with intervals, position bias, win rates and the experts'
agreement, folded while the expert still has pairs to vote on. Names are shown through plain(), never Markdown."""
import math
from collections.abc import Callable

import pandas as pd
import streamlit as st

from lib.app import charts
from lib.core.stats import ELO_SCALE, MIN_VOTES, PositionBias, Ratings, ratings, too_few_votes, win_matrix
from lib.review import arena
from pages._ui import plain, table, tidy

SMALL_N = 30  # below this many pairs, agreement is a first look
BOOTSTRAP, SEED = 1000, 0


@st.cache_data(max_entries=32, show_spinner=f"Fitting ratings and {BOOTSTRAP:,} bootstrap resamples…")
def _ratings(votes: tuple) -> Ratings:
    return ratings([arena.Vote(*v) for v in votes], seed=SEED, n_bootstrap=BOOTSTRAP)


def _warnings(result: Ratings, summary: arena.Summary, system_name: Callable[[str], str]) -> None:
    """What limits the reading: too few votes, groups never compared, ratings the votes do not bound."""
    n = result.n_votes
    if n < charts.ARENA_FEW:
        st.warning(f"Only {n} vote(s): the intervals are wide. Read an order only where two intervals do not "
                   f"overlap; {charts.ARENA_FEW} votes or more make a first reading.", icon="⚠️")
    if summary.groups > 1:
        st.warning(f"These systems fall into {summary.groups} groups that are never compared, even through "
                   "other systems (pairs are two models in one mode, or one model in two modes): ratings across "
                   "groups mean nothing.", icon="⚠️")
    few = too_few_votes(result)
    apart = {m: why for m, why in result.unbounded.items() if m not in few}
    if apart:
        st.warning("The votes do not bound every rating: " + "; ".join(
            f"{plain(system_name(s))}: {why}" for s, why in apart.items())
            + ". Bradley–Terry needs the systems to have both won (or tied) and lost (or tied) against each "
            "other; until then those numbers rest on the fit's light prior, not on the votes, and have no "
            "interval" + (". The others are rated and centred among themselves" if result.centred_on else "")
            + ". Read the win rates below, and vote on more pairs.", icon="⚠️")
    if few:
        st.caption(f"No interval yet for systems with fewer than {MIN_VOTES} votes (a bootstrap of one or two "
                   "votes repeats them and would look certain): "
                   + "; ".join(plain(system_name(s)) for s in few) + ".")


def _position_bias(bias: PositionBias) -> None:
    """Whether the experts favour the left answer (a binomial test on decisive votes)."""
    st.subheader("Position bias")
    if bias.n:
        st.altair_chart(charts.position_bias_chart(bias), width="stretch")
        text = (f"The left answer won {bias.left_share:.0%} of {bias.n} decisive votes "
                f"(binomial test against 50%: p = {bias.p_value:.3f}).")
        (st.warning if bias.p_value < 0.05 else st.caption)(
            text + (" The experts favour a side: check that answers are not recognisable by position."
                    if bias.p_value < 0.05 else ""))
    else:
        st.caption("No decisive vote yet (only ties and 'both bad').")


def _agreement(rows: list[arena.ArenaVote], info: arena.Arena) -> None:
    """How far experts who voted on the same pairs agree, each statistic with its n."""
    st.subheader("Experts' agreement")
    ag = arena.expert_agreement(rows)
    if not ag.n_pairs:
        st.caption("No pair has votes from two experts yet: a second expert's first pairs will be those already "
                   "voted on." if info.min_experts > 1 else "No pair has votes from two experts yet. Start an "
                   "arena with 'Experts per pair' at 2 or more so that experts share pairs.")
    else:
        c1, c2, c3, c4 = st.columns(4)
        c1.metric("Pairs seen by 2+ experts (n)", ag.n_pairs,
                  help=f"{ag.n_votes} votes by {ag.n_experts} experts")
        ci_text = ("no interval on one pair" if ag.percent_ci95 is None else
                   f"95% interval {ag.percent_ci95[0]:.0f}–{ag.percent_ci95[1]:.0f}%")
        c2.metric("Percent agreement", f"{ag.percent:.0f}%",
                  help=f"n = {ag.n_pairs} pairs; {ci_text} (bootstrap over pairs)")
        c3.metric("Fleiss' κ", "—" if ag.fleiss is None else f"{ag.fleiss:.2f}",
                  help=f"Over the {ag.fleiss_n} pair(s) with {ag.fleiss_m} votes each (Fleiss' κ needs the "
                       "same number of votes per pair, and at least two pairs with more than one kind of vote).")
        c4.metric("Krippendorff's α", "—" if ag.alpha is None else f"{ag.alpha:.2f}",
                  help=f"n = {ag.n_pairs} pairs")
        st.caption(f"On the vote relative to the pair (first better / second better / tie / both bad): percent "
                   f"agreement {ag.percent:.0f}% ({ci_text}) and α over n = {ag.n_pairs} pairs, Fleiss' κ over n = "
                   f"{ag.fleiss_n} pairs with {ag.fleiss_m} votes each."
                   + (f" Too few pairs to read (n < {SMALL_N})." if ag.n_pairs < SMALL_N else ""))
        if ag.cohen:
            table(tidy(pd.DataFrame([{"experts": k, "pairs both voted on (n)": c.n,
                                             "Cohen's κ": None if c.kappa is None else round(c.kappa, 2)}
                                            for k, c in ag.cohen.items()])), hide_index=True)


def ratings_tab(aid: str, info: arena.Arena, summary: arena.Summary, who: str, system_name: Callable[[str], str],
                short_name: Callable[[str], str]) -> None:
    """Ratings with intervals, position bias, win rates and agreement; folded while this expert has pairs left."""
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
        n = result.n_votes
        _warnings(result, summary, system_name)
        keys = [arena.system_key(*sy) for sy in info.systems]
        unvoted = [k for k in keys if k not in result.models]
        ratings = charts.arena_ratings_table(result, system_name, keys,
                                           {arena.system_key(*sy): n for sy, n in summary.left_out.items()})
        table(tidy(ratings), hide_index=True, width="stretch", column_config={charts.LEFT_OUT: st.column_config.Column(
            charts.LEFT_OUT, help="Failed, empty and 'nothing to quote' answers: not in the ratings")})
        if unvoted:
            st.caption("Systems with no votes yet have no rating: " + "; ".join(plain(system_name(k)) for k in unvoted))
        st.altair_chart(charts.arena_ratings_chart(result, short_name), width="stretch")
        st.caption(f"{n} vote(s), {result.ties} tie(s) of which {result.both_bad} 'both bad'. "
                   "Bradley–Terry fitted with choix; a tie counts as half a win to each side, and 'both bad' as a "
                   "tie. Ratings are log-odds centred at 0 (a difference of 1 means the better one wins "
                   f"{1 / (1 + math.exp(-1)):.0%} of the time); Elo-style = 1000 + {ELO_SCALE:.0f} × rating. "
                   f"Intervals: {BOOTSTRAP:,} bootstrap resamples of the votes (seed {SEED}). Not in the ratings: "
                   "failed, empty and 'nothing to quote' answers (a system that often has nothing to quote is "
                   "spared those losses; see the left-out column) and pairs of identical answers (not counted as "
                   "ties).")
        _position_bias(result.position_bias)
        st.subheader("Win rates and votes per pair")
        matrix = win_matrix(votes)
        st.altair_chart(charts.win_rate_heatmap(matrix, short_name), width="stretch")
        per_pair = charts.arena_pair_table(matrix, short_name)
        table(tidy(per_pair), hide_index=True, width="stretch", column_config={charts.TIES: st.column_config.Column(
            charts.TIES, help="Ties, 'both bad' included (it has its own column too)")})
        _agreement(rows, info)

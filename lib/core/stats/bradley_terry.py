"""Bradley–Terry ratings from pairwise votes (the blind arena's statistics; issue 14), with bootstrap intervals and
the position-bias check.

The fit is choix's (a maintained implementation of Luce-model inference): ``ilsr_pairwise_dense`` on the matrix of
wins. choix has no ties model, so a tie counts as half a win to each side; a "both bad" vote is a tie for the
ratings and is reported apart. Ratings are natural log-odds, centred so their mean over models is 0 (a rating
difference d means P(left beats right) = 1 / (1 + e^-d)); the Elo-style display is 1000 + 400·log10(e)·rating.
Intervals are percentile bootstrap intervals over votes (seeded; 1,000 resamples by default). Where the votes
cannot bound the ratings (``separation``: a group that never lost to the rest, never won or tied against it, sits
between such groups, or was never compared with the rest), the largest group the votes connect is fitted, centred
and bootstrapped on its own votes; every system outside it gets no interval (both ends None) and is named, with the
reason, in ``unbounded``: its number rests on the light prior, not on the votes."""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from lib.core.errors import UserError
from lib.core.stats.inference import binomial_test, wilson_interval

VOTES = ("left", "right", "tie", "both_bad")
ALPHA = 0.01  # a light prior (choix's regularisation): a model that won every vote still gets a finite rating
ELO_SCALE = 400 * math.log10(math.e)
MIN_VOTES = 5  # below this many votes a system gets its rating but no interval


@dataclass(frozen=True)
class Vote:
    left: str
    right: str
    vote: str  # left | right | tie | both_bad
    annotator: str = ""
    item_id: str = ""


def _wins(pairs: np.ndarray, outcome: np.ndarray, k: int) -> np.ndarray:
    """Matrix W with W[i, j] = wins of i over j, ties as half a win each (pairs: n×2 model indices)."""
    w = np.zeros((k, k))
    left, right = pairs[:, 0], pairs[:, 1]
    np.add.at(w, (left[outcome == 0], right[outcome == 0]), 1.0)  # left won
    np.add.at(w, (right[outcome == 1], left[outcome == 1]), 1.0)  # right won
    tie = outcome == 2
    np.add.at(w, (left[tie], right[tie]), 0.5)
    np.add.at(w, (right[tie], left[tie]), 0.5)
    return w


def _fit(w: np.ndarray) -> np.ndarray:
    import choix  # heavy: imported on first use, off start-up

    params: np.ndarray = choix.ilsr_pairwise_dense(w, alpha=ALPHA, max_iter=1000, tol=1e-10)
    return np.asarray(params - params.mean(), dtype=np.float64)


def left_share_ci(bias: PositionBias) -> list[float] | None:
    """The 95% Wilson interval of the position bias's left share (None without decisive votes)."""
    if not bias.n or bias.left_share is None:
        return None
    lo, hi = wilson_interval(round(bias.left_share * bias.n), bias.n)
    return [round(float(lo), 4), round(float(hi), 4)]


def separation(w: np.ndarray) -> dict[int, str]:
    """Systems whose rating the votes cannot bound, each with the side and the reason. Bradley–Terry has a finite
    fit only when the graph "i won or tied against j" is strongly connected (Ford, 1957). Otherwise:

    - systems never compared, even indirectly, with some others: nothing relates their ratings (both ends open);
    - a group that never lost to the rest: its ratings could rise without limit (no upper bound);
    - a group that never won or tied against the rest: no lower bound;
    - a group in between (it beat some groups outright and lost outright to others): its centred rating depends on
      how far the others drift, so neither end is bounded.

    The fitted numbers there are set by choix's light prior, not by the votes. Returns {system index: reason}; the
    reason starts with "no upper bound", "no lower bound" or "no bound"."""
    from scipy.sparse.csgraph import connected_components  # heavy: imported on first use, off start-up

    k = len(w)
    n_weak, weak = connected_components((w + w.T) > 0, directed=False)
    if n_weak > 1:
        return {i: "no bound: never compared, even through other systems, with " + str(k - int((weak == weak[i]).sum()))
                + " other system(s)" for i in range(k)}
    n_comp, comp = connected_components(w > 0, directed=True, connection="strong")
    if n_comp == 1:
        return {}
    lost_outside = [False] * n_comp  # someone outside the group won or tied against a member
    beat_outside = [False] * n_comp
    for i in range(k):
        for j in range(k):
            if w[i, j] > 0 and comp[i] != comp[j]:
                beat_outside[comp[i]] = True
                lost_outside[comp[j]] = True
    out = {}
    for i in range(k):
        c = comp[i]
        if not lost_outside[c]:
            out[i] = "no upper bound: never lost to the others"
        elif not beat_outside[c]:
            out[i] = "no lower bound: never won or tied against the others"
        else:
            out[i] = "no bound: it beat some systems outright and lost outright to others, so its place between them is open"
    return out


def _core(w: np.ndarray, pairs: np.ndarray) -> list[int]:
    """The largest group of systems the votes connect (a strongly connected group of "won or tied against"; the
    one with more votes inside it on a tie), or [] when no group has two systems."""
    from scipy.sparse.csgraph import connected_components  # heavy: imported on first use, off start-up

    _, comp = connected_components(w > 0, directed=True, connection="strong")
    inside = {c: int(np.sum((comp[pairs[:, 0]] == c) & (comp[pairs[:, 1]] == c))) for c in set(comp.tolist())}
    best = max(inside, key=lambda c: (int(np.sum(comp == c)), inside[c]))
    members = [i for i in range(len(w)) if comp[i] == best]
    return members if len(members) >= 2 else []


TOO_FEW = "no interval: too few votes"  # the reason ``ratings`` gives a system with fewer than MIN_VOTES votes


@dataclass(frozen=True)
class Rating:
    """One system's rating: centred log-odds, its Elo-style display, the 95% bootstrap interval ([None, None]: not
    bounded by the votes, see ``Ratings.unbounded``) and its votes."""

    rating: float
    elo: float
    ci95: list[float | None]
    n: int


@dataclass(frozen=True)
class PositionBias:
    """The left answer's share of the decisive votes, with a binomial test against one half."""

    left_share: float | None
    p_value: float
    n: int


@dataclass(frozen=True)
class Ratings:
    """The arena's figures (see ``ratings``)."""

    models: dict[str, Rating]
    position_bias: PositionBias
    n_votes: int
    ties: int
    both_bad: int
    unbounded: dict[str, str]  # system → why it has no interval
    centred_on: list[str]  # the systems the ratings are centred on
    method: str

    def as_dict(self) -> dict[str, Any]:
        """As the command line prints it."""
        return asdict(self)


def too_few_votes(result: Ratings) -> list[str]:
    """The systems of a ``ratings`` result left without an interval only for having fewer than MIN_VOTES votes;
    the other ``unbounded`` ones are not bounded by the votes (never lost, or never won)."""
    return [m for m, why in result.unbounded.items() if why.startswith(TOO_FEW)]


def ratings(votes: list[Vote], seed: int = 0, n_bootstrap: int = 1000) -> Ratings:
    """The arena's figures: per model its rating, Elo-style display, 95% bootstrap interval and vote count; the
    position bias among decisive votes; vote totals. Ratings are centred (mean 0 over models; where the votes do
    not connect every model, over the largest group they connect, named in ``centred_on``)."""
    if n_bootstrap < 1:
        raise UserError("--bootstrap must be at least 1.")
    if seed < 0:
        raise UserError("--seed must be 0 or more.")
    models = sorted({m for v in votes for m in (v.left, v.right)})
    index = {m: i for i, m in enumerate(models)}
    pairs = np.array([(index[v.left], index[v.right]) for v in votes], dtype=int)
    outcome = np.array([{"left": 0, "right": 1}.get(v.vote, 2) for v in votes], dtype=int)
    k = len(models)
    w = _wins(pairs, outcome, k)
    # Where the votes do not bound the fit (see ``separation``), the largest group the votes do connect is fitted
    # and centred on its own, with intervals from its own votes; the systems outside it keep a number from the whole
    # fit (on the same centring) but no interval: their ends are the prior's, not the votes'.
    open_end = separation(w)
    core = list(range(k))
    if open_end:
        core = _core(w, pairs)
        for i in core:
            open_end.pop(i, None)
    point = _fit(w)
    if open_end and core:
        sub = np.isin(pairs[:, 0], core) & np.isin(pairs[:, 1], core)
        local = {i: j for j, i in enumerate(core)}
        core_pairs = np.array([(local[a], local[b]) for a, b in pairs[sub]], dtype=int)
        point = point - point[core].mean()
        point[core] = _fit(_wins(core_pairs, outcome[sub], len(core)))
        boot_pairs, boot_outcome, width = core_pairs, outcome[sub], len(core)
    else:
        boot_pairs, boot_outcome, width = pairs, outcome, k
    rng = np.random.default_rng(seed)
    boot = np.empty((n_bootstrap, width))
    for b in range(n_bootstrap):
        take = rng.integers(0, len(boot_pairs), len(boot_pairs))
        boot[b] = _fit(_wins(boot_pairs[take], boot_outcome[take], width))
    lo_w, hi_w = np.percentile(boot, [2.5, 97.5], axis=0)
    lo, hi = np.full(k, np.nan), np.full(k, np.nan)
    if width == k:
        lo, hi = lo_w, hi_w
    else:
        lo[core], hi[core] = lo_w, hi_w
    counts = np.bincount(pairs.ravel(), minlength=len(models))
    for i in range(k):  # a bootstrap of one or two votes repeats them: a zero-width band that looks certain
        if counts[i] < MIN_VOTES and i not in open_end:
            open_end[i] = f"{TOO_FEW} (n = {int(counts[i])} < {MIN_VOTES})"
    decisive = outcome < 2
    left_wins = int((outcome == 0).sum())
    bias = binomial_test(left_wins, int(decisive.sum()))
    return Ratings(
        models={m: Rating(round(float(point[i]), 4), round(1000 + ELO_SCALE * float(point[i]), 1),
                          [None, None] if i in open_end else [round(float(lo[i]), 4), round(float(hi[i]), 4)],
                          int(counts[i]))
                for m, i in index.items()},
        position_bias=PositionBias(None if bias.share is None else round(bias.share, 4),
                                   round(float(bias.p_value), 6), int(decisive.sum())),
        n_votes=len(votes), ties=int((outcome == 2).sum()), both_bad=sum(1 for v in votes if v.vote == "both_bad"),
        unbounded={m: open_end[i] for m, i in index.items() if i in open_end},
        centred_on=[models[i] for i in core] if open_end else models,
        method="Bradley-Terry (choix ilsr_pairwise_dense, ties as half a win each, both_bad as a tie); "
               f"percentile bootstrap over votes, {n_bootstrap} resamples, seed {seed}")


@dataclass(frozen=True)
class WinRate:
    """How one model did against one opponent: wins, losses, ties (both bad included; ``both_bad`` apart), n, and
    its win rate with ties as half a win, with the 95% Wilson interval."""

    model: str
    opponent: str
    wins: int
    losses: int
    ties: int
    n: int
    both_bad: int
    win_rate: float
    ci95: list[float]


def win_matrix(votes: list[Vote]) -> list[WinRate]:
    """Per ordered pair of models that met: wins, losses, ties (both bad included; both_bad apart), n, and the win
    rate of ``model``
    over ``opponent`` with ties as half a win, with its 95% Wilson interval."""
    tally: dict[tuple[str, str], list[int]] = {}
    both_bad: dict[tuple[str, str], int] = {}
    for v in votes:
        for me, them, won, lost in ((v.left, v.right, v.vote == "left", v.vote == "right"),
                                    (v.right, v.left, v.vote == "right", v.vote == "left")):
            t = tally.setdefault((me, them), [0, 0, 0])
            t[0 if won else 1 if lost else 2] += 1
            both_bad[(me, them)] = both_bad.get((me, them), 0) + (v.vote == "both_bad")
    out = []
    for (me, them), (w, lo, ti) in sorted(tally.items()):
        n = w + lo + ti
        ci = wilson_interval(w + 0.5 * ti, n)
        out.append(WinRate(me, them, w, lo, ti, n, both_bad[(me, them)], round((w + 0.5 * ti) / n, 4),
                           [round(float(ci[0]), 4), round(float(ci[1]), 4)]))
    return out

"""Inter-annotator agreement with the maintained implementations: scikit-learn's Cohen's kappa,
statsmodels' Fleiss' kappa, and the krippendorff package's alpha (which handles missing labels), for experts'
labels on review items and for experts' votes on arena pairs."""
from __future__ import annotations

import itertools
import math
import warnings
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from lib.core.stats.inference import mean_ci

POSITIVE = "yes"
SMALL_SHARED = 10  # below this many items both raters labelled, agreement figures are rough


@dataclass(frozen=True)
class Label:
    item_id: str
    annotator: str
    label: str
    value: str


@dataclass(frozen=True)
class CohenPair:
    """Two annotators' agreement over the items both labelled: Cohen's κ (None where undefined), n, and the
    confusion table over the categories either used."""

    kappa: float | None
    n: int
    categories: list[str]
    confusion: list[list[int]]


@dataclass(frozen=True)
class LabelAgreement:
    """The experts' agreement on one label, with n: percent agreement, Cohen's κ (the mean over annotator pairs,
    and each pair), Fleiss' κ (3+ annotators), Krippendorff's α and its reading, and the paper's aggregates (the
    share of items some annotator, or every annotator, marked yes)."""

    n_items: int
    n_annotators: int
    percent_agreement: float | None
    cohen_kappa: float | None
    cohen_pairs: dict[str, CohenPair]
    fleiss_kappa: float | None
    krippendorff_alpha: float | None
    alpha_band: str
    either_rule: float | None
    all_rule: float | None
    n_shared: int = 0  # items two or more annotators labelled: the n that agreement rests on (n_items: any label)


@dataclass(frozen=True)
class PairAgreement:
    """Experts' agreement on arena pairs (see ``pair_agreement``)."""

    n_pairs: int
    n_experts: int
    n_votes: int
    percent: float | None  # 0–100
    percent_ci95: list[float] | None
    cohen: dict[str, CohenPair]  # per two experts
    fleiss: float | None
    fleiss_n: int  # the pairs Fleiss' κ is over
    fleiss_m: int | None  # the votes each of them has
    alpha: float | None


@dataclass(frozen=True)
class TwoRaters:
    """Two raters' agreement over the items both labelled: n, how many agree, percent (0–100) and Cohen's κ, with
    the reason in ``note`` where κ is undefined or the sample small."""

    n: int
    agree: int
    percent: float | None
    kappa: float | None
    note: str | None


def _clean(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), 4)


def kappa_band(k: float | None) -> str:
    """Landis & Koch (1977) bands for kappa."""
    if k is None:
        return "n/a"
    if k < 0:
        return "poor (below chance)"
    for hi, name in ((0.2, "slight"), (0.4, "fair"), (0.6, "moderate"), (0.8, "substantial")):
        if k <= hi:
            return name
    return "almost perfect"


def alpha_band(a: float | None) -> str:
    """Krippendorff's (2004) guidance: α ≥ 0.8 reliable, ≥ 0.667 tentative conclusions only."""
    if a is None:
        return "n/a"
    if a >= 0.8:
        return "reliable"
    if a >= 0.667:
        return "tentative"
    return "unreliable"


def table(labels: Iterable[Label], label: str) -> tuple[list[str], list[str], dict[tuple[str, str], str]]:
    """Items, annotators and {(item, annotator): value} for one label."""
    cells = {(lb.item_id, lb.annotator): lb.value for lb in labels if lb.label == label}
    items = sorted({i for i, _ in cells})
    raters = sorted({a for _, a in cells})
    return items, raters, cells


def percent_agreement(items: list[str], raters: list[str], cells: dict[tuple[str, str], str]) -> float | None:
    """Mean over items (with 2+ labels) of the share of agreeing annotator pairs."""
    shares = []
    for it in items:
        vals = [cells[(it, r)] for r in raters if (it, r) in cells]
        pairs = list(itertools.combinations(vals, 2))
        if pairs:
            shares.append(sum(a == b for a, b in pairs) / len(pairs))
    return sum(shares) / len(shares) if shares else None


def _confusion(ya: list[str], yb: list[str], cats: list[str]) -> list[list[int]]:
    from sklearn.metrics import confusion_matrix  # heavy: imported on first use, off start-up

    with warnings.catch_warnings():  # one shared category is a valid 1×1 matrix here
        warnings.simplefilter("ignore", UserWarning)
        return [[int(x) for x in row] for row in confusion_matrix(ya, yb, labels=cats)]


def cohen_pairs(items: list[str], raters: list[str], cells: dict[tuple[str, str], str]) -> dict[str, CohenPair]:
    from sklearn.metrics import cohen_kappa_score  # heavy: imported on first use, off start-up

    out = {}
    for a, b in itertools.combinations(raters, 2):
        common = [it for it in items if (it, a) in cells and (it, b) in cells]
        if len(common) < 2:
            continue
        ya = [cells[(it, a)] for it in common]
        yb = [cells[(it, b)] for it in common]
        cats = sorted(set(ya) | set(yb))
        k = cohen_kappa_score(ya, yb, labels=cats) if len(cats) > 1 else float("nan")
        out[f"{a} × {b}"] = CohenPair(_clean(k), len(common), cats, _confusion(ya, yb, cats))
    return out


def fleiss(items: list[str], raters: list[str], cells: dict[tuple[str, str], str]) -> float | None:
    """Fleiss' kappa over the items every annotator labelled (it needs equal ratings per item)."""
    from statsmodels.stats.inter_rater import (  # heavy: imported on first use, off start-up
        aggregate_raters,
        fleiss_kappa,
    )

    if len(raters) < 3:
        return None
    complete = [it for it in items if all((it, r) in cells for r in raters)]
    if len(complete) < 2:
        return None
    cats = sorted({cells[(it, r)] for it in complete for r in raters})
    codes = {c: i for i, c in enumerate(cats)}
    data = np.array([[codes[cells[(it, r)]] for r in raters] for it in complete])
    counts, _ = aggregate_raters(data, n_cat=len(cats))
    return _clean(fleiss_kappa(counts, method="fleiss"))


def kripp_alpha(items: list[str], raters: list[str], cells: dict[tuple[str, str], str]) -> float | None:
    import krippendorff  # heavy: imported on first use, off start-up

    cats = sorted(set(cells.values()))
    if len(items) < 2 or len(raters) < 2:
        return None
    if len(cats) < 2:
        return 1.0 if any(sum((it, r) in cells for r in raters) >= 2 for it in items) else None
    codes = {c: i for i, c in enumerate(cats)}
    data = np.array([[codes[cells[(it, r)]] if (it, r) in cells else np.nan for it in items] for r in raters],
                    dtype=float)
    try:
        return _clean(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))
    except (ValueError, ZeroDivisionError):
        return None


def rule_shares(items: list[str], raters: list[str], cells: dict[tuple[str, str], str]) -> tuple[float | None, float | None]:
    """The paper's aggregates: share of items some annotator marked yes ('either'), and all marked yes."""
    labelled = [it for it in items if any((it, r) in cells for r in raters)]
    if not labelled:
        return None, None
    either = sum(any(cells.get((it, r)) == POSITIVE for r in raters) for it in labelled) / len(labelled)
    all_ = sum(all(cells[(it, r)] == POSITIVE for r in raters if (it, r) in cells) for it in labelled) / len(labelled)
    return round(either, 4), round(all_, 4)


def agreement_report(labels: Iterable[Label], label_names: Iterable[str] | None = None) -> dict[str, LabelAgreement]:
    labels = list(labels)
    names = list(label_names) if label_names else sorted({lb.label for lb in labels})
    report = {}
    for name in names:
        items, raters, cells = table(labels, name)
        pairs = cohen_pairs(items, raters, cells)
        kappas = [p.kappa for p in pairs.values() if p.kappa is not None]
        either, all_ = rule_shares(items, raters, cells)
        pa = percent_agreement(items, raters, cells)
        alpha = kripp_alpha(items, raters, cells)
        report[name] = LabelAgreement(
            n_items=len(items), n_annotators=len(raters), percent_agreement=_clean(pa) if pa is not None else None,
            cohen_kappa=round(sum(kappas) / len(kappas), 4) if kappas else None, cohen_pairs=pairs,
            fleiss_kappa=fleiss(items, raters, cells), krippendorff_alpha=alpha, alpha_band=alpha_band(alpha),
            either_rule=either, all_rule=all_,
            n_shared=sum(1 for it in items if sum((it, r) in cells for r in raters) >= 2))
    return report


def cli_report(labels: Iterable[Label]) -> dict[str, dict[str, Any]]:
    keys = ("n_items", "n_shared", "n_annotators", "percent_agreement", "cohen_kappa", "fleiss_kappa", "krippendorff_alpha", "either_rule", "all_rule")
    return {name: {k: getattr(r, k) for k in keys} for name, r in agreement_report(labels).items()}


def pair_agreement(cells: dict[tuple[str, str], str]) -> PairAgreement:
    """Experts' agreement on the pairs several of them voted on, from ``cells``: {(pair, expert): the vote relative to
    the pair (first / second / tie / both bad)}, with n:

    - percent agreement: the share of agreeing expert pairs, averaged over pairs (every pair with 2+ votes), with a
      95% bootstrap interval over pairs;
    - Cohen's κ for each two experts, over the pairs both voted on (scikit-learn, via ``cohen_pairs``);
    - Fleiss' κ (statsmodels): over the pairs with the most common number m ≥ 2 of votes (it needs the same number
      of ratings per unit, not the same experts), n = those pairs;
    - Krippendorff's α (nominal; missing votes allowed): every pair with 2+ votes."""
    from statsmodels.stats.inter_rater import fleiss_kappa  # heavy: imported on first use, off start-up

    by_pair: dict[str, list[str]] = defaultdict(list)  # grouped once: large arenas stay fast
    for (pk, _), v in cells.items():
        by_pair[pk].append(v)
    shared = sorted(pk for pk, vals in by_pair.items() if len(vals) >= 2)
    raters = sorted({a for pk, a in cells if len(by_pair[pk]) >= 2})
    sub = {k: v for k, v in cells.items() if len(by_pair[k[0]]) >= 2}
    fleiss, fleiss_n, m = None, 0, None
    if shared:
        sizes = Counter(len(by_pair[pk]) for pk in shared)
        m = max(sizes, key=lambda size: (sizes[size], size))  # the most common count; the larger on a tie
        units = [pk for pk in shared if len(by_pair[pk]) == m]
        cats = sorted({v for pk in units for v in by_pair[pk]})
        fleiss_n = len(units)
        if len(units) >= 2 and len(cats) >= 2:
            counts = np.array([[by_pair[u].count(c) for c in cats] for u in units])
            value = float(fleiss_kappa(counts, method="fleiss"))
            fleiss = None if math.isnan(value) else round(value, 4)

    shares = []  # per pair: the share of its expert pairs that agree (percent agreement is their mean)
    for pk in shared:
        combos = list(itertools.combinations(by_pair[pk], 2))
        shares.append(sum(a == b for a, b in combos) / len(combos))
    ci = mean_ci(shares).ci95 if len(shares) >= 2 else None  # one pair: no interval to speak of
    percent = percent_agreement(shared, raters, sub) if shared else None
    return PairAgreement(len(shared), len(raters), len(sub), None if percent is None else round(100 * percent, 1),
                         None if ci is None else [round(100 * ci[0], 1), round(100 * ci[1], 1)],
                         cohen_pairs(shared, raters, sub),  # per two experts: κ and n (2+ shared pairs)
                         fleiss, fleiss_n, m, kripp_alpha(shared, raters, sub))


def two_rater_agreement(judge: dict[str, str], other: dict[str, str]) -> TwoRaters:
    """Two raters' labels ({item: label}; a judge model and an expert, in review and in the arena): percent
    agreement (0–100) and Cohen's κ over the items both labelled, with n. κ is None, with the reason in ``note``,
    where it is undefined; below SMALL_SHARED items the note says the sample is small."""
    from sklearn.metrics import cohen_kappa_score  # heavy: imported on first use, off start-up

    common = sorted(set(judge) & set(other))
    n = len(common)
    if not n:
        return TwoRaters(0, 0, None, None, "no item labelled by both")
    yj = [judge[i] for i in common]
    yo = [other[i] for i in common]
    agree = sum(a == b for a, b in zip(yj, yo, strict=True))
    cats = sorted(set(yj) | set(yo))
    kappa, note = None, None
    if len(cats) < 2:
        note = f"κ undefined: every label on these items is '{cats[0]}' (no variation to correct for chance)"
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            k = float(cohen_kappa_score(yj, yo, labels=cats))
        if math.isnan(k):
            note = "κ undefined for these labels"
        else:
            kappa = round(k, 4)
    if note is None and n < SMALL_SHARED:
        note = f"small sample (n < {SMALL_SHARED})"
    return TwoRaters(n, agree, round(100 * agree / n, 2), kappa, note)


def kappa_interval(a: list[str], b: list[str], *, seed: int = 0, n_resamples: int = 2000,
                   level: float = 0.95) -> list[float] | None:
    """A percentile-bootstrap interval for Cohen's κ of two raters' paired labels (resampling the pairs; κ computed
    from the confusion counts, as scikit-learn does). Resamples where κ is undefined (one category only) are left
    out; None when fewer than 2 pairs, or when too few resamples give a κ (under half)."""
    n = len(a)
    if n < 2:
        return None
    cats = sorted(set(a) | set(b))
    ia = np.array([cats.index(x) for x in a])
    ib = np.array([cats.index(x) for x in b])
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(n_resamples, n))
    ra, rb = ia[idx], ib[idx]
    po = (ra == rb).mean(axis=1)
    pe = sum((ra == c).mean(axis=1) * (rb == c).mean(axis=1) for c in range(len(cats)))
    ok = pe < 1
    if ok.sum() < n_resamples / 2:
        return None
    kappas = (po[ok] - pe[ok]) / (1 - pe[ok])
    tail = (1 - level) / 2 * 100
    return [round(float(np.percentile(kappas, tail)), 4), round(float(np.percentile(kappas, 100 - tail)), 4)]

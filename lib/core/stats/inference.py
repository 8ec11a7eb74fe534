"""Small statistics for the studio's reports: intervals, paired comparisons, baselines.

Every function here is pure and reproducible: randomness comes only from
``numpy.random.default_rng(seed)``, so the same inputs and seed give the same answer.
Results are frozen dataclasses of plain Python values (``as_dict()`` gives their JSON): floats
rounded to 4 places, intervals as two-element lists, ``None`` where a value is undefined (no data).

The numerical work is done by maintained library code rather than hand-written loops:

* bootstrap intervals: :func:`scipy.stats.bootstrap` (``method="percentile"``);
* McNemar's test: :func:`statsmodels.stats.contingency_tables.mcnemar`;
* binomial tests: :func:`scipy.stats.binomtest`.

What this module adds is the edge cases the libraries do not handle for us (no data,
one item, all values equal), input checks, and the studio's return shapes.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, SupportsFloat, cast

import numpy as np

MIN_N = 5
"""Below this many items a number is shown greyed out: too few to read anything into."""

NOISE_ALPHA = 0.05
"""Significance level behind every ``within_noise`` flag that comes from a p-value."""

MCNEMAR_EXACT_BELOW = 25
"""McNemar's test uses the exact binomial when fewer discordant pairs than this."""

# Above this many resampled values held at once, the bootstrap runs in batches.
_MAX_BOOTSTRAP_CELLS = 5_000_000


class _Result:
    """A statistic's result as its JSON object (for the command line's output and stored summaries)."""

    def as_dict(self) -> dict[str, Any]:
        return asdict(cast(Any, self))


@dataclass(frozen=True)
class MeanCI(_Result):
    """A mean with its 95% interval (``ci95``, whatever the level: tables read one name) and its n; ``mean`` and
    ``ci95`` are None with no values."""

    mean: float | None
    ci95: list[float] | None
    n: int


@dataclass(frozen=True)
class PairedBootstrap(_Result):
    """Two score lists over the same items: their means, the mean difference ``diff`` (a − b) with its interval,
    the bootstrap p-value, and whether the interval holds 0 (``within_noise``)."""

    n: int
    mean_a: float | None
    mean_b: float | None
    diff: float | None
    ci95: list[float] | None
    p_value: float | None
    within_noise: bool


@dataclass(frozen=True)
class McNemar(_Result):
    """McNemar's test of two systems' paired right/wrong outcomes: accuracies, the discordant counts ``b`` (a right,
    b wrong) and ``c`` (a wrong, b right), the statistic, p-value, method (exact or chi2) and ``within_noise``."""

    n: int
    acc_a: float | None
    acc_b: float | None
    b: int
    c: int
    statistic: float
    p_value: float
    method: str
    within_noise: bool


@dataclass(frozen=True)
class Majority(_Result):
    """The majority baseline of closed questions: the answer it always gives, its accuracy with interval, n."""

    answer: str | None
    accuracy: float | None
    n: int
    ci95: list[float] | None


@dataclass(frozen=True)
class Binomial(_Result):
    """A two-sided exact binomial test: n, the observed share (None with n = 0) and the p-value."""

    n: int
    share: float | None
    p_value: float


def small_sample(n: int | None) -> bool:
    """True when ``n`` items are too few to trust (``n < MIN_N``); ``None`` counts as none."""
    return (n or 0) < MIN_N


def _r(x: float) -> float:
    return round(float(x), 4)


def _as_scores(values: Iterable[float], name: str = "values") -> np.ndarray:
    arr = np.asarray(list(values), dtype=float)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a flat list of numbers")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite numbers (found NaN or infinity)")
    return arr


def _as_binary(values: Iterable[object], name: str) -> np.ndarray:
    arr = np.asarray([float(cast(SupportsFloat, v)) for v in values], dtype=np.float64)
    if arr.size and not np.all((arr == 0) | (arr == 1)):
        raise ValueError(f"{name} must hold only 0/1 (or True/False) outcomes")
    return arr.astype(int)


def _check_level(level: float) -> None:
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, got {level!r}")


def _constant(arr: np.ndarray) -> bool:
    """All values equal (to 1e-12), so every bootstrap resample has the same mean."""
    return bool(np.ptp(arr) <= 1e-12)


def _bootstrap_mean(arr: np.ndarray, *, seed: int, n_resamples: int, level: float) -> Any:  # scipy's BootstrapResult (untyped)
    """``scipy.stats.bootstrap`` of the mean, percentile method, seeded; needs >1 distinct value."""
    from scipy import stats as _sps  # heavy: imported on first use, off start-up

    cells = arr.size * n_resamples
    batch = None if cells <= _MAX_BOOTSTRAP_CELLS else max(1, _MAX_BOOTSTRAP_CELLS // arr.size)
    return _sps.bootstrap(
        (arr,), np.mean, n_resamples=n_resamples, batch=batch, vectorized=True,
        confidence_level=level, method="percentile", rng=np.random.default_rng(seed),
    )


def mean_ci(values: Iterable[float], *, seed: int = 0, n_resamples: int = 2000,
            level: float = 0.95) -> MeanCI:
    """Mean of ``values`` with a percentile-bootstrap confidence interval.

    The values are per-item scores on a 0-1 scale (0/1 accuracies or correctness scores);
    the interval is on the same scale, and for such data stays inside [0, 1] because it is
    made of percentiles of resampled means.

    Uses ``scipy.stats.bootstrap(..., method="percentile", rng=default_rng(seed))``; the
    key is ``ci95`` whatever ``level`` is, so tables read one name.

    Returns a ``MeanCI`` (mean, ci95 = [lo, hi], n). Edge cases, which scipy does not handle
    (it warns or returns NaN on degenerate data): no values gives ``mean`` and ``ci95``
    ``None``; all-0 or all-1 outcomes get the Wilson score interval, e.g. 4 of 4 right → [0.51, 1.0] and one
    wrong answer → [0.0, 0.79] (not a zero-width interval that would look certain); one other value, or all
    values equal to another, gives the zero-width interval ``[v, v]``.
    """
    _check_level(level)
    arr = _as_scores(values)
    n = int(arr.size)
    if n == 0:
        return MeanCI(None, None, 0)
    m = float(arr.mean())
    if _constant(arr) and m in (0.0, 1.0):
        # All right or all wrong: a percentile bootstrap collapses to a point and would look certain. For 0/1
        # outcomes use the Wilson score interval instead, which is honest about small n.
        lo, hi = wilson_interval(int(arr.sum()), n, level)
        return MeanCI(_r(m), [_r(max(0.0, lo)), _r(min(1.0, hi))], n)
    if n == 1 or _constant(arr):
        return MeanCI(_r(m), [_r(m), _r(m)], n)
    ci = _bootstrap_mean(arr, seed=seed, n_resamples=n_resamples, level=level).confidence_interval
    return MeanCI(_r(m), [_r(ci.low), _r(ci.high)], n)


def wilson_interval(successes: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a share (statsmodels' ``proportion_confint``); ``successes`` may count a tie as
    half. Honest at small n and at 0 or n successes, where a normal interval collapses."""
    from statsmodels.stats.proportion import proportion_confint  # heavy: imported on first use, off start-up

    lo, hi = proportion_confint(successes, n, alpha=1 - level, method="wilson")
    return float(lo), float(hi)


def paired_bootstrap(a: Sequence[float], b: Sequence[float], *, seed: int = 0,
                     n_resamples: int = 2000, level: float = 0.95) -> PairedBootstrap:
    """Compare two score lists over the same items (paired by position) by bootstrapping items.

    The per-item differences ``d = a - b`` are resampled with
    ``scipy.stats.bootstrap((d,), np.mean, method="percentile", rng=default_rng(seed))``;
    resampling items and taking the mean difference is the paired bootstrap.

    Returns a ``PairedBootstrap`` (n, mean_a, mean_b, diff, ci95 = [lo, hi], p_value, within_noise):

    * ``diff`` is ``mean(a - b)``; ``ci95`` its percentile interval at ``level``.
    * ``p_value`` is two-sided: with ``B = n_resamples`` resampled mean differences, of
      which ``k_le`` are ``<= 0`` and ``k_ge`` are ``>= 0``,
      ``p = min(1, 2 * (min(k_le, k_ge) + 1) / (B + 1))``. The ``+1`` counts the observed
      sample among the resamples, so a bootstrap p-value is never exactly 0 (its smallest
      value is ``2 / (B + 1)``, about 0.001 for 2000 resamples).
    * ``within_noise`` is True when ``ci95`` contains 0.

    All differences equal (e.g. identical lists) means every resample has the same mean:
    the interval is ``[diff, diff]`` and the p-value follows the same formula (1.0 when
    ``diff`` is 0, ``2 / (B + 1)`` otherwise). No items: every number is ``None`` and
    ``within_noise`` is True. Unequal lengths raise ``ValueError``.
    """
    _check_level(level)
    xa, xb = _as_scores(a, "a"), _as_scores(b, "b")
    if xa.size != xb.size:
        raise ValueError(f"paired scores need equal lengths, got {xa.size} and {xb.size}")
    n = int(xa.size)
    if n == 0:
        return PairedBootstrap(0, None, None, None, None, None, True)
    d = xa - xb
    diff = float(d.mean())
    if n == 1 or _constant(d):
        lo = hi = diff
        k_le = n_resamples if diff <= 0 else 0
        k_ge = n_resamples if diff >= 0 else 0
    else:
        res = _bootstrap_mean(d, seed=seed, n_resamples=n_resamples, level=level)
        lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
        dist = np.asarray(res.bootstrap_distribution)
        k_le, k_ge = int(np.sum(dist <= 0)), int(np.sum(dist >= 0))
    p = min(1.0, 2 * (min(k_le, k_ge) + 1) / (n_resamples + 1))
    ci = [_r(lo), _r(hi)]
    return PairedBootstrap(n, _r(xa.mean()), _r(xb.mean()), _r(diff), ci, _r(p), bool(ci[0] <= 0 <= ci[1]))


def mcnemar_test(a_correct: Sequence[object], b_correct: Sequence[object]) -> McNemar:
    """McNemar's test for two systems' paired right/wrong outcomes on the same items.

    The 2x2 table passed to statsmodels' ``mcnemar`` is
    ``[[both right, b], [c, both wrong]]`` with ``b`` = a right & b wrong and
    ``c`` = a wrong & b right; only the discordant counts ``b`` and ``c`` matter.

    With fewer than ``MCNEMAR_EXACT_BELOW`` (25) discordant pairs it uses
    ``mcnemar(table, exact=True)``: the exact two-sided binomial test of ``min(b, c)`` out
    of ``b + c`` at 0.5, and ``statistic`` is ``min(b, c)``. From 25 on it uses
    ``mcnemar(table, exact=False, correction=True)``: the chi-square approximation with
    continuity correction, and ``statistic`` is ``(|b - c| - 1)^2 / (b + c)``. ``method``
    says which (``"exact"`` or ``"chi2"``).

    Returns a ``McNemar`` (n, acc_a, acc_b, b, c, statistic, p_value, method,
    within_noise); ``within_noise`` is ``p_value >= 0.05``. No discordant pairs
    (including no items): ``statistic`` 0.0, ``p_value`` 1.0. Outcomes must be 0/1 or
    booleans; unequal lengths raise ``ValueError``.
    """
    # heavy: imported on first use, off start-up
    from statsmodels.stats.contingency_tables import mcnemar as _sm_mcnemar

    xa, xb = _as_binary(a_correct, "a_correct"), _as_binary(b_correct, "b_correct")
    if xa.size != xb.size:
        raise ValueError(f"paired outcomes need equal lengths, got {xa.size} and {xb.size}")
    n = int(xa.size)
    both = int(np.sum((xa == 1) & (xb == 1)))
    b = int(np.sum((xa == 1) & (xb == 0)))
    c = int(np.sum((xa == 0) & (xb == 1)))
    neither = int(np.sum((xa == 0) & (xb == 0)))
    exact = b + c < MCNEMAR_EXACT_BELOW
    if b + c == 0:
        statistic, p = 0.0, 1.0
    else:
        res = _sm_mcnemar([[both, b], [c, neither]], exact=exact, correction=True)
        statistic, p = float(res.statistic), float(res.pvalue)
    p = min(1.0, p)
    return McNemar(n, _r(xa.mean()) if n else None, _r(xb.mean()) if n else None, b, c, _r(statistic), _r(p),
                   "exact" if exact else "chi2", bool(p >= NOISE_ALPHA))


def majority_baseline(truths: Iterable[str], *, seed: int = 0, n_resamples: int = 2000,
                      level: float = 0.95) -> Majority:
    """Accuracy of always answering the more common gold answer to closed questions.

    ``truths`` are ``"yes"``/``"no"`` (any case, surrounding spaces ignored; anything else
    raises ``ValueError``). The baseline answer is the more common one; on a tie it is
    ``"yes"``. ``ci95`` is :func:`mean_ci` of the 0/1 vector "baseline is right on this
    item", with the same ``seed``, ``n_resamples`` and ``level``.

    Returns a ``Majority`` (answer, accuracy, n, ci95); with no truths ``answer``,
    ``accuracy`` and ``ci95`` are ``None``.
    """
    norm = [str(t).strip().lower() for t in truths]
    bad = sorted({t for t in norm if t not in ("yes", "no")})
    if bad:
        raise ValueError(f"closed gold answers must be yes or no, got {bad[:5]}")
    n = len(norm)
    if n == 0:
        return Majority(None, None, 0, None)
    n_yes = norm.count("yes")
    answer = "yes" if n_yes >= n - n_yes else "no"
    hits = [1.0 if t == answer else 0.0 for t in norm]
    ci = mean_ci(hits, seed=seed, n_resamples=n_resamples, level=level)
    return Majority(answer, ci.mean, n, ci.ci95)


def binomial_test(successes: int, n: int, p: float = 0.5) -> Binomial:
    """Two-sided exact binomial test of ``successes`` out of ``n`` against rate ``p``.

    Uses ``scipy.stats.binomtest(successes, n, p, alternative="two-sided")`` (e.g. how
    often the first-shown option wins, against 0.5, for position bias).

    Returns a ``Binomial`` (n, share, p_value); with ``n == 0`` ``share`` is ``None`` and
    ``p_value`` 1.0. Counts outside ``0 <= successes <= n`` raise ``ValueError``.
    """
    from scipy import stats as _sps  # heavy: imported on first use, off start-up

    successes, n = int(successes), int(n)
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")
    if not 0 <= p <= 1:
        raise ValueError(f"p must be between 0 and 1, got {p!r}")
    if n == 0:
        return Binomial(0, None, 1.0)
    res = _sps.binomtest(successes, n, p, alternative="two-sided")
    return Binomial(n, _r(successes / n), _r(res.pvalue))

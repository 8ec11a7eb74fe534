"""Report statistics: checked against scipy/statsmodels called directly and by simulation."""
import json
import warnings

import numpy as np
import pytest
from scipy import stats as sps
from statsmodels.stats.contingency_tables import mcnemar

from lib.core.stats.inference import (
    MIN_N,
    binomial_test,
    majority_baseline,
    mcnemar_test,
    mean_ci,
    paired_bootstrap,
    small_sample,
)

# A fixed, non-degenerate sample of 0/1 accuracies (13 of 20 right).
ACC = [1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 0, 1, 1, 0, 1, 1, 0, 1, 0, 1]


# --- mean_ci -----------------------------------------------------------------------------


def test_mean_ci_reproducible_and_seed_dependent():
    first = mean_ci(ACC, seed=3)
    assert first == mean_ci(ACC, seed=3)
    assert first.mean == 0.65 and first.n == 20
    # 0/1 data of n=20 puts resampled means on a 0.05 grid, so two seeds can share an
    # interval; continuous scores show that the seed really drives the resampling.
    scores = np.random.default_rng(9).uniform(0, 1, 30).round(3).tolist()
    assert mean_ci(scores, seed=3) == mean_ci(scores, seed=3)
    assert mean_ci(scores, seed=3).ci95 != mean_ci(scores, seed=4).ci95


def test_mean_ci_contains_mean_and_stays_in_unit_interval():
    for data in (ACC, [1] * 19 + [0], [0] * 18 + [1, 1], [0.2, 0.9, 0.55, 1.0, 0.0]):
        r = mean_ci(data, seed=1)
        lo, hi = r.ci95
        assert 0.0 <= lo <= r.mean <= hi <= 1.0
        assert lo < hi


def test_mean_ci_matches_scipy_bootstrap_directly():
    r = mean_ci(ACC, seed=11, n_resamples=1000, level=0.9)
    ref = sps.bootstrap((np.array(ACC, dtype=float),), np.mean, n_resamples=1000, confidence_level=0.9,
                        method="percentile", rng=np.random.default_rng(11)).confidence_interval
    assert r.ci95 == [round(ref.low, 4), round(ref.high, 4)]


def test_mean_ci_edge_cases_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert mean_ci([]).as_dict() == {"mean": None, "ci95": None, "n": 0}
        assert mean_ci([0.4]).as_dict() == {"mean": 0.4, "ci95": [0.4, 0.4], "n": 1}
        # all right: not a zero-width interval but Wilson's, as statsmodels computes it
        from statsmodels.stats.proportion import proportion_confint

        lo, hi = proportion_confint(4, 4, alpha=0.05, method="wilson")
        assert mean_ci([1, 1, 1, 1]).as_dict() == {"mean": 1.0, "ci95": [round(lo, 4), 1.0], "n": 4}
        # one answer is no certainty either: a single wrong answer is 0 with [0, 0.79], not [0, 0]
        assert mean_ci([0]).as_dict() == {"mean": 0.0, "ci95": [0.0, 0.7935], "n": 1}
        assert mean_ci([1]).ci95 == [0.2065, 1.0]
        assert mean_ci([0, 0, 0]).ci95[0] == 0.0 and 0.4 < mean_ci([0, 0, 0]).ci95[1] < 0.6
        assert mean_ci([0.25] * 7).as_dict() == {"mean": 0.25, "ci95": [0.25, 0.25], "n": 7}


def test_mean_ci_returns_plain_json_types():
    r = mean_ci(np.array(ACC), seed=0)
    assert type(r.mean) is float and type(r.n) is int and type(r.ci95) is list
    assert all(type(x) is float for x in r.ci95)
    json.dumps(r.as_dict())
    assert r.ci95 == [round(x, 4) for x in r.ci95]


def test_mean_ci_rejects_nan_and_bad_level():
    with pytest.raises(ValueError):
        mean_ci([0.5, float("nan")])
    with pytest.raises(ValueError):
        mean_ci(ACC, level=95)


@pytest.mark.parametrize("kind", ["bernoulli", "beta"])
def test_mean_ci_coverage_on_simulated_data(kind):
    """The nominal 95% interval covers the true mean in about 95% of simulated samples."""
    rng = np.random.default_rng(2024)
    trials, n = 300, 60
    if kind == "bernoulli":
        true = 0.7
        samples = rng.binomial(1, true, size=(trials, n))
    else:
        true = 2 / (2 + 5)  # mean of Beta(2, 5)
        samples = rng.beta(2, 5, size=(trials, n))
    covered = 0
    for i, sample in enumerate(samples):
        lo, hi = mean_ci(sample.tolist(), seed=i, n_resamples=500).ci95
        covered += lo <= true <= hi
    assert 0.90 <= covered / trials <= 0.98


def test_mean_ci_narrows_with_more_data():
    rng = np.random.default_rng(5)
    small = mean_ci(rng.binomial(1, 0.5, 20).tolist()).ci95
    large = mean_ci(rng.binomial(1, 0.5, 500).tolist()).ci95
    assert large[1] - large[0] < (small[1] - small[0]) / 2


# --- paired_bootstrap -------------------------------------------------------------------


def test_paired_bootstrap_clear_difference():
    b = np.random.default_rng(0).uniform(0, 0.7, 40).tolist()
    a = [x + 0.3 for x in b]
    r = paired_bootstrap(a, b, seed=0)
    assert r.n == 40 and r.diff == 0.3
    assert r.ci95 == [0.3, 0.3]
    assert r.within_noise is False
    assert r.p_value < 0.01
    assert r.mean_a == pytest.approx(r.mean_b + 0.3, abs=1e-4)


def test_paired_bootstrap_noisy_clear_difference():
    rng = np.random.default_rng(1)
    b = rng.binomial(1, 0.4, 80)
    a = np.where(rng.random(80) < 0.5, 1, b)  # a is b with about half its misses fixed
    r = paired_bootstrap(a.tolist(), b.tolist(), seed=2)
    assert r.diff > 0 and r.ci95[0] > 0
    assert not r.within_noise and r.p_value < 0.01


def test_paired_bootstrap_identical_lists_within_noise():
    a = [0.1, 0.9, 0.4, 1.0, 0.0, 0.7]
    r = paired_bootstrap(a, list(a))
    assert r.diff == 0.0 and r.ci95 == [0.0, 0.0]
    assert r.within_noise is True and r.p_value == 1.0


def test_paired_bootstrap_matches_direct_scipy_bootstrap_of_differences():
    a = [1, 1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 0, 1, 1, 0, 1, 0.5, 0.8, 0.2, 1]
    b = [1, 0, 0, 1, 0, 0, 1, 1, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 0, 1, 0.5, 0.3, 0.6, 1]
    r = paired_bootstrap(a, b, seed=7, n_resamples=1500)
    d = np.array(a, dtype=float) - np.array(b, dtype=float)
    ref = sps.bootstrap((d,), np.mean, n_resamples=1500, method="percentile",
                        rng=np.random.default_rng(7))
    assert r.diff == round(d.mean(), 4)
    assert r.ci95 == [round(ref.confidence_interval.low, 4), round(ref.confidence_interval.high, 4)]
    dist = ref.bootstrap_distribution
    k = min(np.sum(dist <= 0), np.sum(dist >= 0))
    assert r.p_value == round(min(1.0, 2 * (k + 1) / 1501), 4)
    assert r.within_noise == (r.ci95[0] <= 0 <= r.ci95[1])
    assert r == paired_bootstrap(a, b, seed=7, n_resamples=1500)


def test_paired_bootstrap_sign_symmetry():
    a = [0.9, 0.2, 0.6, 0.8, 1.0, 0.4, 0.7, 0.3]
    b = [0.5, 0.4, 0.6, 0.2, 0.9, 0.1, 0.7, 0.6]
    ab, ba = paired_bootstrap(a, b, seed=3), paired_bootstrap(b, a, seed=3)
    assert ab.diff == -ba.diff
    assert ab.ci95 == pytest.approx([-ba.ci95[1], -ba.ci95[0]], abs=1e-4)
    assert ab.p_value == ba.p_value


def test_paired_bootstrap_edges():
    with pytest.raises(ValueError):
        paired_bootstrap([1, 0], [1])
    r = paired_bootstrap([], [])
    assert r.n == 0 and r.within_noise is True
    assert all(getattr(r, k) is None for k in ("mean_a", "mean_b", "diff", "ci95", "p_value"))
    json.dumps(paired_bootstrap([0.5], [0.25]).as_dict())


# --- mcnemar_test -----------------------------------------------------------------------


def test_mcnemar_matches_statsmodels_on_hand_written_table():
    # Items:         1  2  3  4  5  6  7  8  9 10 11 12
    a_correct = [1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 1, 0]
    b_correct = [1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0]
    # both right: 1,5,10 -> 3; a only: 2,3,4,8,11 -> 5; b only: 6 -> 1; neither: 7,9,12 -> 3
    table = [[3, 5], [1, 3]]
    ref = mcnemar(table, exact=True)
    r = mcnemar_test(a_correct, b_correct)
    assert (r.n, r.b, r.c) == (12, 5, 1)
    assert r.acc_a == round(8 / 12, 4) and r.acc_b == round(4 / 12, 4)
    assert r.statistic == round(float(ref.statistic), 4) == 1.0
    assert r.p_value == round(float(ref.pvalue), 4)
    assert r.method == "exact"
    # Hand-computed exact binomial: min(b, c)=1 of b+c=6 at 0.5, two-sided -> 14/64.
    assert r.p_value == round(sps.binomtest(1, 6, 0.5).pvalue, 4) == round(14 / 64, 4)
    assert r.within_noise is True


def test_mcnemar_large_discordance_uses_corrected_chi2():
    a_correct = [1] * 30 + [0] * 6 + [1] * 10 + [0] * 4
    b_correct = [0] * 30 + [1] * 6 + [1] * 10 + [0] * 4
    table = [[10, 30], [6, 4]]
    ref = mcnemar(table, exact=False, correction=True)
    r = mcnemar_test([bool(x) for x in a_correct], b_correct)
    assert (r.b, r.c, r.method) == (30, 6, "chi2")
    assert r.statistic == round(float(ref.statistic), 4) == round((30 - 6 - 1) ** 2 / 36, 4)
    assert r.p_value == round(float(ref.pvalue), 4)
    assert r.within_noise is False


def test_mcnemar_no_discordant_pairs_and_bad_input():
    r = mcnemar_test([1, 0, 1], [1, 0, 1])
    assert (r.b, r.c, r.p_value, r.within_noise) == (0, 0, 1.0, True)
    assert mcnemar_test([], []).p_value == 1.0
    with pytest.raises(ValueError):
        mcnemar_test([1, 0], [1])
    with pytest.raises(ValueError):
        mcnemar_test([1, 0.5], [1, 0])


# --- majority_baseline, binomial_test, small_sample --------------------------------------


def test_majority_baseline_fixed_truths():
    truths = ["yes"] * 4 + ["Yes", " YES "] + ["yes"] + ["no", "No", "no"]
    r = majority_baseline(truths, seed=0)
    assert (r.answer, r.accuracy, r.n) == ("yes", 0.7, 10)
    assert r.ci95 == mean_ci([1] * 7 + [0] * 3, seed=0).ci95
    assert majority_baseline(["no", "no", "yes"]).answer == "no"
    assert majority_baseline(["no", "no", "yes"]).accuracy == round(2 / 3, 4)


def test_majority_baseline_tie_and_edges():
    r = majority_baseline(["no", "yes", "no", "yes"])
    assert (r.answer, r.accuracy) == ("yes", 0.5)
    assert majority_baseline([]).as_dict() == {"answer": None, "accuracy": None, "n": 0, "ci95": None}
    with pytest.raises(ValueError):
        majority_baseline(["yes", "maybe"])


@pytest.mark.parametrize("k,n,p", [(8, 10, 0.5), (3, 20, 0.5), (50, 100, 0.5), (12, 30, 0.25), (0, 6, 0.5)])
def test_binomial_test_matches_scipy(k, n, p):
    r = binomial_test(k, n, p)
    assert r.as_dict() == {"n": n, "share": round(k / n, 4), "p_value": round(sps.binomtest(k, n, p).pvalue, 4)}


def test_binomial_test_edges():
    assert binomial_test(0, 0).as_dict() == {"n": 0, "share": None, "p_value": 1.0}
    with pytest.raises(ValueError):
        binomial_test(5, 3)


def test_small_sample():
    assert MIN_N == 5
    assert small_sample(4) and small_sample(0) and small_sample(None)
    assert not small_sample(5) and not small_sample(100)

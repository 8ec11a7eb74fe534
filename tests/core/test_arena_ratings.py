"""Bradley–Terry ratings for the blind arena (issue 14, statistics and CLI): recovery of known strengths, interval
coverage near nominal, ties, position bias, the error contract, and speed."""
import json
import math
import subprocess
import sys
import time

import numpy as np
import pytest

from lib.core.errors import UserError
from lib.core.stats.bradley_terry import Vote, ratings
from lib.review.arena_csv import read_votes_csv
from tests.conftest import ROOT

TRUE = {"m0": -1.0, "m1": -0.4, "m2": 0.0, "m3": 0.5, "m4": 0.9}  # centred: mean 0


def simulate(n: int, seed: int, left_bias: float = 0.0, tie_rate: float = 0.0) -> list[Vote]:
    """Votes from known strengths: P(left wins) = logistic(s_left - s_right + left_bias); some ties."""
    rng = np.random.default_rng(seed)
    names = list(TRUE)
    out = []
    for _ in range(n):
        a, b = rng.choice(len(names), 2, replace=False)
        left, right = names[a], names[b]
        if rng.random() < tie_rate:
            out.append(Vote(left, right, "tie"))
            continue
        p = 1 / (1 + math.exp(-(TRUE[left] - TRUE[right] + left_bias)))
        out.append(Vote(left, right, "left" if rng.random() < p else "right"))
    return out


def test_recovers_the_order_and_centres_ratings():
    r = ratings(simulate(3000, seed=1), n_bootstrap=100)
    fitted = {m: v.rating for m, v in r.models.items()}
    assert sorted(fitted, key=fitted.get) == sorted(TRUE, key=TRUE.get)
    assert abs(sum(fitted.values())) < 1e-6
    assert all(abs(fitted[m] - TRUE[m]) < 0.2 for m in TRUE), fitted
    m = r.models["m4"]
    assert m.elo == pytest.approx(1000 + 400 * math.log10(math.e) * m.rating, abs=0.1)
    assert r.n_votes == 3000 and sum(v.n for v in r.models.values()) == 6000


def test_intervals_cover_the_true_strengths_about_as_often_as_they_claim():
    hits = total = 0
    widths = []
    for seed in range(20):
        r = ratings(simulate(400, seed=100 + seed), seed=seed, n_bootstrap=200)
        for m, s in TRUE.items():
            lo, hi = r.models[m].ci95
            hits += lo <= s <= hi
            total += 1
            widths.append(hi - lo)
    coverage = hits / total
    assert 0.85 <= coverage <= 0.99, coverage  # nominal 95%, 100 intervals
    # and not by being wide: each model has about 160 votes, so a rating's standard error is about
    # 1 / sqrt(160 × 0.25) ≈ 0.16 and a 95% interval about 3.9 × 0.16 ≈ 0.62 wide
    assert 0.4 < sum(widths) / len(widths) < 0.8, sum(widths) / len(widths)


def test_ties_are_half_a_win_and_both_bad_is_a_tie_reported_apart():
    votes = [Vote("a", "b", "tie")] * 10 + [Vote("b", "a", "both_bad")] * 10
    r = ratings(votes, n_bootstrap=50)
    assert r.models["a"].rating == pytest.approx(0.0, abs=1e-6) == r.models["b"].rating
    assert (r.ties, r.both_bad, r.position_bias.n) == (20, 10, 0)
    lopsided = ratings([Vote("a", "b", "left")] * 10 + [Vote("a", "b", "tie")] * 10, n_bootstrap=50)
    assert lopsided.models["a"].rating > 0 > lopsided.models["b"].rating


def test_position_bias_found_when_there_and_not_when_absent():
    biased = ratings(simulate(1500, seed=7, left_bias=0.8), n_bootstrap=20).position_bias
    assert biased.left_share > 0.6 and biased.p_value < 0.001
    fair = ratings(simulate(1500, seed=7), n_bootstrap=20).position_bias
    assert 0.45 < fair.left_share < 0.55 and fair.p_value > 0.05


def test_csv_is_read_all_or_nothing_with_row_numbers():
    good = "left_model,right_model,vote,annotator,item_id\na,b,left,Ada,I1\nb,a,TIE,Ben,I1\n"
    assert read_votes_csv(good) == [Vote("a", "b", "left", "Ada", "I1"), Vote("b", "a", "tie", "Ben", "I1")]
    with pytest.raises(UserError, match="row 3: vote 'maybe'.*row 4: a model cannot face itself"):
        read_votes_csv("left_model,right_model,vote\na,b,left\na,b,maybe\nc,c,left\n")
    with pytest.raises(UserError, match="missing: vote"):
        read_votes_csv("left_model,right_model\na,b\n")


def test_cli_prints_json_and_follows_the_error_contract(tmp_path):
    votes = simulate(2000, seed=3, tie_rate=0.1)
    path = tmp_path / "votes.csv"
    path.write_text("left_model,right_model,vote\n" + "".join(f"{v.left},{v.right},{v.vote}\n" for v in votes))
    started = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "lib", "arena-ratings", str(path), "--seed", "5"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    took = time.perf_counter() - started
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert set(got) >= {"models", "position_bias", "n_votes"} and got["n_votes"] == 2000
    assert set(got["models"]["m2"]) == {"rating", "elo", "ci95", "n"}
    assert set(got["position_bias"]) == {"left_share", "p_value", "n"}
    assert took < 10, f"2,000 votes with 1,000 resamples took {took:.1f} s"
    bad = tmp_path / "bad.csv"
    bad.write_text("left_model,right_model,vote\na,b,sideways\n")
    out = subprocess.run([sys.executable, "-m", "lib", "arena-ratings", str(bad)], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 2 and out.stderr.startswith("error: Nothing was read: 1 bad row(s): row 2")


def test_a_system_that_never_lost_has_no_upper_bound():
    """Complete separation: the maximum-likelihood rating is infinite, so the interval says so instead of showing
    a narrow band set by the prior (8 wins out of 8 gave [2.80, 3.90] before this check)."""
    text = "left_model,right_model,vote\n" + "a,b,left\nb,a,right\n" * 4 + "b,c,tie\nc,b,left\nb,c,left\n" * 2
    r = ratings(read_votes_csv(text), n_bootstrap=200)
    # a never lost: no interval for it (the finite end a bootstrap gives is the prior's); b and c, which the votes
    # connect both ways, are fitted and centred on their own votes
    assert set(r.unbounded) == {"a"} and r.unbounded["a"].startswith("no upper bound")
    assert r.models["a"].ci95 == [None, None] and r.centred_on == ["b", "c"]
    assert r.models["b"].rating == pytest.approx(-r.models["c"].rating)
    assert all(None not in r.models[m].ci95 for m in "bc")
    # one tie against a joins the graph: everything is bounded again
    r = ratings(read_votes_csv(text + "c,a,tie\n" * 5), n_bootstrap=200)
    assert r.unbounded == {} and all(None not in m.ci95 for m in r.models.values())
    assert r.centred_on == ["a", "b", "c"]


def test_one_new_system_does_not_wipe_out_the_connected_ones():
    """200 votes among a, b, c and one loss by a newcomer d: a, b and c keep their intervals; d has none."""
    text = ("left_model,right_model,vote\n" + "a,b,left\nb,a,left\nb,c,left\nc,a,left\na,c,tie\n" * 40
            + "a,d,left\n")
    r = ratings(read_votes_csv(text), n_bootstrap=200)
    assert set(r.unbounded) == {"d"} and r.models["d"].ci95 == [None, None]
    assert all(None not in r.models[m].ci95 for m in "abc")
    assert sum(r.models[m].rating for m in "abc") == pytest.approx(0, abs=1e-6)  # centred on the group
    assert r.models["d"].rating < min(r.models[m].rating for m in "abc")


def test_a_middle_group_and_separate_groups_are_not_bounded_either():
    """A > B > C, each outright: B's centred rating depends on how far A and C drift (5 or 50 votes B>C moved it
    from 0.23 [−0.24, 0.69] to 1.00 [0.73, 1.32] when only the ends were flagged)."""
    chain = "left_model,right_model,vote\n" + "A,B,left\n" * 5 + "B,C,left\n" * 5
    r = ratings(read_votes_csv(chain), n_bootstrap=100)
    assert r.models["B"].ci95 == [None, None] and r.unbounded["B"].startswith("no bound: it beat")
    assert r.models["A"].ci95 == [None, None] == r.models["C"].ci95
    # two pairs never compared: the larger group (more votes) is rated on its own, the other gets no interval
    apart = "left_model,right_model,vote\n" + "a,b,left\nb,a,left\na,b,tie\n" * 2 + "c,d,tie\nd,c,left\n"
    r = ratings(read_votes_csv(apart), n_bootstrap=100)
    assert r.centred_on == ["a", "b"] and None not in r.models["a"].ci95
    assert set(r.unbounded) == {"c", "d"} and r.models["c"].ci95 == [None, None]
    assert all(why.startswith("no bound: never compared") for why in r.unbounded.values())


def test_votes_csv_rows_that_do_not_fit():
    with pytest.raises(UserError, match="row 2: more cells than the header"):
        read_votes_csv("left_model,right_model,vote\na,b,left,extra\nb,a,left\n")
    assert len(read_votes_csv("left_model,right_model,vote\na,b,left,\nb,a,left\n")) == 2  # a trailing comma
    with pytest.raises(UserError, match="row 2: left_mode and right_mode must both be given"):
        read_votes_csv("left_model,left_mode,right_model,right_mode,vote\na,rag,b,,left\n")
    # the Arena's export neutralises a leading @ (a formula in spreadsheets); the reader undoes it
    votes = read_votes_csv("left_model,left_mode,right_model,right_mode,vote\n'@cf/m,rag,b,rag,left\n")
    assert votes[0].left == "@cf/m · rag"
    with pytest.raises(UserError, match="--seed"):
        ratings(votes + [Vote("b · rag", "@cf/m · rag", "left")], seed=-1)


def test_too_few_votes_give_no_interval():
    """One tie between b and c, bootstrapped, is the same tie every time: [0, 0] would look certain."""
    r = ratings(read_votes_csv("left_model,right_model,vote\nb,c,tie\n" + "b,c,left\nc,b,left\n" * 2), n_bootstrap=50)
    assert r.models["b"].n == 5 and None not in r.models["b"].ci95
    r = ratings(read_votes_csv("left_model,right_model,vote\nb,c,tie\n"), n_bootstrap=50)
    assert r.models["b"].ci95 == [None, None] and r.unbounded["b"] == "no interval: too few votes (n = 1 < 5)"


def test_too_few_votes_is_told_apart_from_votes_that_do_not_bound_a_rating():
    """The Ratings tab and its table say "too few votes" for a system rated on fewer than MIN_VOTES votes and
    "not bounded" for one that never lost; the rule is the ratings module's (the page once sorted by a message's
    first words)."""
    from lib.core.stats.bradley_terry import MIN_VOTES, too_few_votes

    text = ("left_model,right_model,vote\n" + "a,b,left\nb,a,right\n" * 4 + "b,c,tie\nc,b,left\nb,c,left\n" * 2
            + "c,d,left\nd,c,left\n")
    r = ratings(read_votes_csv(text), n_bootstrap=200)
    assert r.models["d"].n == 2 < MIN_VOTES  # d won once and lost once: bounded, but on 2 votes
    assert too_few_votes(r) == ["d"]
    assert set(r.unbounded) == {"a", "d"}  # a never lost: unbounded, but not for want of votes

"""The support checkers calibrated against experts: the experts' "each sentence supported?" label, each checker's
verdict on the same items, percent agreement and Cohen's κ with n worked out by hand, "uncalibrated" below 30
labels, and a judge checker on a real HTTP server on 127.0.0.1 whose failures are counted."""
from __future__ import annotations

import json

import pytest

from lib.evaluation.benchmark.dataset import Item
from lib.review import annotations as ann
from lib.review import judge_review
from lib.review import support_calibration as sc
from lib.storage.engine import get_engine
from tests.fake_llm_server import openai_loopback

PROOF = ("The new access road would be 21 miles long and would cross two perennial streams near the northern "
         "boundary of the installation.")
COPIED = "The new access road would be 21 miles long and would cross two perennial streams."
CHANGED = "The new access road would be 12 miles long and would cross two perennial streams."


@pytest.fixture
def engine(tmp_path):
    return get_engine(f"sqlite:///{tmp_path / 'cal.db'}")


def items(n_copied: int = 1) -> list[Item]:
    out = [Item(f"ok{i}", "recall", "How long is the road?", COPIED, PROOF, "doc", page_number=12)
           for i in range(n_copied)]
    out.append(Item("changed", "recall", "How long is the road?", CHANGED, PROOF, "doc", page_number=12))
    out.append(Item("bare", "closed", "Is there a road?", "Yes.", PROOF, "doc"))
    return out


def label(engine, who: str, values: dict[str, str]) -> None:
    for item_id, v in values.items():
        ann.save_label(item_id, who, sc.LABEL, v, engine)


def test_the_offline_checker_against_two_experts(engine):
    ann.add_items(items(), "cal", engine)
    label(engine, "Ada", {"ok0": "yes", "changed": "no", "bare": "yes"})
    label(engine, "Ben", {"ok0": "yes", "changed": "yes", "bare": "yes"})
    cal = sc.calibration(engine)
    assert (cal.n_labels, cal.n_items) == (6, 3)
    (off,) = cal.checkers
    assert off.checker == "offline" and "cut chosen on labelled dev data" in off.threshold
    # checker: ok0 yes, changed no (12 miles where the page says 21); the bare yes has nothing to check
    assert off.left_out == {"nothing to check (a bare yes/no or a few words)": 1}
    # pairs (checker, expert): (y,y) (n,n) Ada; (y,y) (n,y) Ben -> 3 of 4 agree; p_e = .5·.75 + .5·.25 = .5,
    # κ = (.75 - .5) / (1 - .5) = .5
    assert (off.n, off.agree, off.percent, off.kappa) == (4, 3, 75.0, 0.5)
    assert off.calibrated is False
    lo, hi = off.percent_ci95  # Wilson, 3 of 4
    assert lo < 75 < hi and (lo, hi) == (30.1, 95.4)
    assert off.kappa_ci95 is not None and off.kappa_ci95[0] <= 0.5 <= off.kappa_ci95[1]


def test_calibrated_from_30_labels(engine):
    ann.add_items(items(15), "cal", engine)
    for who in ("Ada", "Ben"):
        label(engine, who, {f"ok{i}": "yes" for i in range(14)} | {"ok14": "no"})
    (off,) = sc.calibration(engine).checkers
    assert off.n == 30 and off.calibrated is True and off.agree == 28


def test_the_label_is_optional_and_checked():
    assert ann.check_value(sc.LABEL, "Yes") == ("yes", None)
    assert ann.check_value(sc.LABEL, "maybe")[1]
    assert sc.LABEL not in ann.AGREEMENT_LABELS  # an item is done without it


@pytest.fixture
def judge(monkeypatch):
    with openai_loopback(monkeypatch, "sk-test-cal-judge-0000", "gpt-cal") as srv:
        from lib.models import registry

        yield srv, registry.get("openai/gpt-cal")


def test_a_judge_checker_is_stored_apart_and_its_failures_counted(engine, judge):
    srv, model = judge
    ann.add_items(items(), "cal", engine)
    label(engine, "Ada", {"ok0": "yes", "changed": "no", "bare": "yes"})
    srv.script.append(("ok", json.dumps({"verdicts": [
        {"sentence": 1, "verdict": "supported", "source": 1, "reason": "p. 12"}]})))
    srv.script.append(("ok", "not JSON at all"))
    # two calls (ok0, changed; in either order): one verdict, one reply with none; the bare yes is asked nothing
    done = sc.judge_items(model.id, engine=engine)
    assert done == sc.SupportChecked(checked=1, nothing_to_check=1, failed=1, skipped=0) and len(srv.requests) == 2
    cal = sc.calibration(engine)
    judge_row = next(r for r in cal.checkers if r.checker == "judge")
    assert judge_row.name == f"Judge: {model.id}"
    assert judge_row.left_out == {"judge failed": 1, sc.NOTHING: 1}  # a bare yes is no failure
    assert judge_row.n == 1 and judge_row.calibrated is False
    # the experts' labels are untouched: the judge's verdicts are not among them, nor in the experts' judge tab
    assert all(lb.annotator in ("Ada",) for lb in ann.labels(engine))
    assert judge_review.judges(engine) == []
    srv.script.append(("ok", json.dumps({"verdicts": [
        {"sentence": 1, "verdict": "unsupported", "source": None, "reason": "x"}]})))
    again = sc.judge_items(model.id, engine=engine)
    # the one it checked and the bare yes are not asked again; the failed one is, and now succeeds
    assert again == sc.SupportChecked(checked=1, nothing_to_check=0, failed=0, skipped=2) and len(srv.requests) == 3


def test_the_marks_against_the_experts_once_they_have_labelled_enough(engine):
    """Issue 36 item 7: below 30 expert labels nothing is claimed; from 30 on, the ✓ precision (an all-✓ answer the
    expert calls supported) and the ✗ recall (an answer the expert calls unsupported that has a ✗), each with n."""
    from lib.qa import support_model

    ann.add_items(items(n_copied=14), "cal", engine)
    label(engine, "Ada", {f"ok{i}": "yes" for i in range(14)} | {"changed": "no", "bare": "yes"})
    assert sc.expert_mark_figures(engine) is None  # 16 labels
    label(engine, "Ben", {f"ok{i}": ("yes" if i else "no") for i in range(14)} | {"changed": "no"})
    got = sc.expert_mark_figures(engine)  # 31 labels
    # ✓ answers: the 14 copied ones, each labelled by both experts; one "no" from Ben
    assert (got["supported"].n, round(got["supported"].value, 3)) == (28, round(27 / 28, 3))
    # answers the experts call unsupported: "changed" twice (it has a ✗: 12 miles where the page says 21) and ok0 once
    assert (got["unsupported"].n, got["unsupported"].value) == (3, 2 / 3)
    line = support_model.trust_line("supported", got)
    assert "against the experts, an all-✓ answer was supported 96% of the time (n = 28" in line

"""The offline metrics, one module each, and the Scorer that picks which apply."""
import numpy as np
import pytest

from lib.evaluation.benchmark.dataset import Item
from lib.evaluation.benchmark.runs import MetricScore
from lib.evaluation.benchmark.scoring import Scorer, headline_metric, public_metric_name
from lib.evaluation.metrics.base import Sample
from lib.evaluation.metrics.closed_accuracy import ClosedAccuracy
from lib.evaluation.metrics.retrieval_hit import RetrievalHit
from lib.evaluation.metrics.semantic_similarity import SemanticSimilarity
from lib.evaluation.metrics.token_f1_proxy import TokenF1Proxy, f1_from_counts, token_f1
from lib.qa.context_passage import ContextPassage


def fake_embed(texts):
    # unit vectors with a fixed cosine of 0.6 between the two texts
    return np.array([[1.0, 0.0], [0.6, 0.8]])


def test_f1_formula_on_fixed_counts():
    assert f1_from_counts(2, 1, 1) == pytest.approx(2 / 3)
    assert f1_from_counts(3, 0, 0) == 1.0
    assert f1_from_counts(0, 2, 3) == 0.0
    assert f1_from_counts(1, 0, 3) == pytest.approx(1 / 2.5)
    assert f1_from_counts(0, 0, 0) is None  # nothing to compare: not a silent NaN


@pytest.mark.parametrize(("verdict", "answer", "truth", "value", "status"), [
    ("yes", "Yes.", "Yes", 1.0, "ok"),
    (None, "No, it did not.", "no", 1.0, "ok"),
    (None, "Incorrect.", "yes", 0.0, "ok"),
    (None, "The passage does not say.", "yes", 0.0, "unclear"),
    ("no", "Yes but the structured verdict wins", "no", 1.0, "ok"),
])
def test_closed_accuracy(verdict, answer, truth, value, status):
    r = ClosedAccuracy().score(Sample("q?", answer, truth, "closed", verdict))
    assert (r.value, r.status) == (value, status)


def test_token_f1_proxy_on_fixed_text():
    f1, counts = token_f1("The site is in Ohio", "site in Ohio and Michigan")
    # answer tokens (articles dropped): site is in ohio; truth: site in ohio and michigan
    assert counts == {"tp": 3, "fp": 1, "fn": 2}
    assert f1 == pytest.approx(3 / (3 + 0.5 * 3))
    r = TokenF1Proxy(fake_embed).score(Sample("q", "The site is in Ohio", "site in Ohio and Michigan", "recall"))
    assert r.metric == "token_f1_proxy" and r.status == "ok"
    assert r.value == pytest.approx(round(0.75 * f1 + 0.25 * 0.6, 4))
    assert r.details["semantic"] == pytest.approx(0.6)


def test_proxy_edge_cases_are_statuses_not_nan():
    assert TokenF1Proxy(fake_embed).score(Sample("q", "", "truth", "recall")).status == "no_answer"
    r = TokenF1Proxy(fake_embed).score(Sample("q", "...", "!!!", "recall"))
    assert r.value is None and r.status == "no_statements"
    s = SemanticSimilarity(fake_embed).score(Sample("q", "an answer", "truth", "recall"))
    assert s.value == pytest.approx(0.6)


def test_retrieval_hit_applies_to_rag_only():
    gold = "the proposed interceptor site would avoid wetlands near the access road at fort drum"
    m = RetrievalHit()
    s = Sample("q", "a", "t", "recall", contexts=["noise", "site would avoid wetlands near the access road at fort"],
               gold_context=gold)
    assert m.applies(s, "rag") and not m.applies(s, "gold")
    assert m.score(s).value == 1.0
    assert m.score(Sample("q", "a", "t", "recall", contexts=["unrelated text here"], gold_context=gold)).value == 0.0


def test_scorer_picks_the_metrics_by_item_and_mode():
    sc = Scorer(None, fake_embed)
    closed = Item("c1", "closed", "Did it?", "yes", "gold text here", "doc")
    open_ = Item("o1", "recall", "What?", "the site", "gold text passage here", "doc")
    assert [r.metric for r in sc.score(closed, "none", "Yes.", None, [])] == ["closed_accuracy"]
    assert [r.metric for r in sc.score(closed, "gold", "Yes.", None, [ContextPassage("gold text here")])] == [
        "closed_accuracy", "faithfulness_offline"]
    assert [r.metric for r in sc.score(open_, "rag", "the site", None, [ContextPassage("x", n=1)])] == [
        "semantic_similarity", "token_f1_proxy", "retrieval_hit", "faithfulness_offline",
        "citation_precision_offline", "context_precision", "context_recall"]
    assert headline_metric(None) == "token_f1_proxy" and headline_metric("openai/x") == "answer_correctness"
    assert public_metric_name("answer_correctness") == "ragas_answer_correctness"
    # a stored judge failure or a missing metric is re-scored on resume; a complete set is not
    def stored(status: str) -> MetricScore:
        return MetricScore(None, status, "offline")

    assert sc.needs_rescore(open_, "gold", {"semantic_similarity": stored("ok")})
    assert not sc.needs_rescore(open_, "gold", {"semantic_similarity": stored("ok"),
                                                "token_f1_proxy": stored("ok"),
                                                "faithfulness_offline": stored("no_statements")})


def test_every_metric_on_the_face_needs_only_fields_a_sample_has(monkeypatch):
    """Each metric's ``needs`` names Sample fields (closed accuracy once named "verdict or answer", no field), and
    the Scorer refuses a metric that names another."""
    import inspect

    import lib.evaluation.benchmark.scoring as scoring
    from lib.evaluation import metrics

    # the metrics themselves: not the Metric protocol they all follow
    classes = [obj for name in metrics.__all__ if inspect.isclass(obj := getattr(metrics, name))
               and hasattr(obj, "needs") and hasattr(obj, "score") and not getattr(obj, "_is_protocol", False)]
    assert {c.__name__ for c in classes} == {"AnswerCorrectness", "CitationPrecision", "ClosedAccuracy",
                                             "ContextPrecision", "ContextRecall", "Faithfulness", "RetrievalHit",
                                             "SemanticSimilarity", "TokenF1Proxy"}
    assert {c.__name__: metrics.unknown_needs(c.needs) for c in classes} == {c.__name__: [] for c in classes}

    class Misdeclared(ClosedAccuracy):
        needs = ("verdict or answer", "truth")

    monkeypatch.setattr(scoring, "ClosedAccuracy", Misdeclared)
    with pytest.raises(TypeError, match="needs verdict or answer, which is no field"):
        Scorer(None, fake_embed)


def test_a_sample_without_what_a_metric_needs_is_not_scored_but_says_why():
    item = Item(id="x", question_type="closed", question="Is it?", answer="yes", context="", doc="d")
    both_absent = Scorer(None, fake_embed).score(item, "none", None, None, [])
    assert [(r.metric, r.value, r.status, r.details) for r in both_absent] == [
        ("closed_accuracy", None, "not_applicable", {"why": "the answer has no verdict or answer"})]
    with_verdict = Scorer(None, fake_embed).score(item, "none", None, "yes", [])
    assert [(r.metric, r.value, r.status) for r in with_verdict] == [("closed_accuracy", 1.0, "ok")]

"""The reference-free scores of a benchmark answer: faithfulness and citation precision by the offline checker and
by a judge model (a real HTTP server on 127.0.0.1), context precision and recall against the gold passage, each
its own metric, with its value worked out by hand."""
from __future__ import annotations

import json

import pytest

from lib.evaluation.metrics.base import JUDGE_FAILED, NO_STATEMENTS, NOT_APPLICABLE, OK, Sample
from lib.evaluation.metrics.context_precision_recall import ContextPrecision, ContextRecall
from lib.evaluation.metrics.faithfulness import CitationPrecision, Faithfulness
from lib.qa.context_passage import ContextPassage
from tests.fake_llm_server import openai_loopback

ROAD = ("The new access road would be 21 miles long and would cross two perennial streams near the northern "
        "boundary of the installation.")
NOISE = ("Construction would employ about 300 workers at the peak of activity, most of them commuting from "
         "nearby towns.")
SOURCES = [ContextPassage(ROAD, 12, 12, n=1), ContextPassage(NOISE, 40, 40, n=2)]


def sample(answer: str, mode: str = "rag", sources=SOURCES, gold: str = "") -> Sample:
    return Sample("q", answer, "t", "recall", contexts=[c.text for c in sources], gold_context=gold, mode=mode,
                  sources=list(sources))


def test_faithfulness_is_the_share_of_supported_sentences():
    s = sample("The new access road would be 21 miles long and would cross two perennial streams [1]. "
               "A visitor center with a museum of regional history would open to the public in the spring [1].")
    r = Faithfulness().score(s)
    assert (r.metric, r.status, r.scorer) == ("faithfulness_offline", OK, "offline")
    assert r.value == 0.5  # one sentence of two is in its source
    assert r.details["counts"]["supported"] == 1 and r.details["counts"]["unsupported"] == 1
    assert r.details["marks"][0]["page"] == "p. 12" and r.details["marks"][1]["status"] == "unsupported"


def test_a_changed_number_is_not_supported():
    r = Faithfulness().score(sample("The new access road would be 12 miles long and would cross two perennial "
                                    "streams [1]."))
    assert r.value == 0.0
    assert r.details["marks"][0]["status"] == "unsupported"  # the source says 21 miles: contradicted, not partly
    assert any("12 miles" in d for d in r.details["marks"][0]["differs"])


def test_a_bare_yes_has_nothing_to_check_and_no_value():
    r = Faithfulness().score(sample("Yes.", mode="gold", sources=[ContextPassage(ROAD)]))
    assert (r.value, r.status) == (None, NO_STATEMENTS)


def test_faithfulness_applies_to_the_modes_with_numbered_sources_only():
    m = Faithfulness()
    assert m.applies(sample("x"), "rag") and m.applies(sample("x"), "gold")
    assert not m.applies(sample("x"), "none") and not m.applies(sample("x"), "pdf")


def test_citation_precision_counts_each_marker_and_a_marker_to_no_source():
    # [1] holds the first sentence; [2] (construction workers) does not hold the road; [7] is no source at all
    s = sample("The new access road would be 21 miles long and would cross two perennial streams [1]. "
               "The road would cross two perennial streams near the northern boundary [2]. "
               "Construction would employ about 300 workers at the peak [7].")
    r = CitationPrecision().score(s)
    assert r.metric == "citation_precision_offline" and r.status == OK
    assert (r.details["holding"], r.details["citations"]) == (1, 3)
    assert r.value == pytest.approx(1 / 3, abs=1e-4)
    assert r.details["invalid"] == [7]


def test_an_answer_without_citations_has_no_citation_precision():
    r = CitationPrecision().score(sample("The new access road would be 21 miles long."))
    assert (r.value, r.status) == (None, NOT_APPLICABLE)


GOLD = ("The new access road would be 21 miles long and would cross two perennial streams near the northern "
        "boundary of the installation. Culverts sized for a 100-year flood would be placed at both crossings.")


def test_context_recall_and_precision_against_the_gold_passage():
    got = sample("x", sources=[ContextPassage(NOISE, n=1), ContextPassage(ROAD, n=2)], gold=GOLD)
    recall, precision = ContextRecall().score(got), ContextPrecision().score(got)
    assert (recall.value, recall.details) == (0.5, {"gold_sentences": 2, "found": 1})  # the culverts are missing
    assert precision.value == 0.5 and precision.details["relevant"] == [2]  # relevant only at rank 2: 1/2
    first = sample("x", sources=[ContextPassage(ROAD, n=1), ContextPassage(NOISE, n=2)], gold=GOLD)
    assert ContextPrecision().score(first).value == 1.0  # the same passage ranked first
    none = sample("x", sources=[ContextPassage(NOISE, n=1)], gold=GOLD)
    assert ContextPrecision().score(none).value == 0.0 and ContextRecall().score(none).value == 0.0
    assert not ContextRecall().applies(sample("x"), "rag")  # no gold passage: nothing to measure against
    assert not ContextRecall().applies(got, "gold")


@pytest.fixture
def judge(monkeypatch):
    with openai_loopback(monkeypatch, "sk-test-judge-faith-0000", "gpt-judge") as srv:
        from lib.models import registry

        yield srv, registry.get("openai/gpt-judge")


def test_the_judge_faithfulness_is_its_own_metric_and_its_failures_are_counted(judge):
    srv, model = judge
    answer = ("The new access road would be 21 miles long [1]. A visitor center would open in the spring [1].")
    srv.script.append(("ok", json.dumps({"verdicts": [
        {"sentence": 1, "verdict": "supported", "source": 1, "reason": "p. 12 gives 21 miles"},
        {"sentence": 2, "verdict": "unsupported", "source": None, "reason": "no visitor center"}]})))
    s = sample(answer)
    faith, cites = Faithfulness(model), CitationPrecision(model)
    r = faith.score(s)
    assert (r.metric, r.scorer, r.value, r.status) == ("faithfulness_judge", "openai/gpt-judge", 0.5, OK)
    c = cites.score(s)  # the same verdicts, read once: no second call
    assert (c.metric, c.value) == ("citation_precision_judge", 0.5) and len(srv.requests) == 1
    srv.script.append(("ok", "I cannot help with that."))  # a reply with no verdicts: a failure, no value
    bad = faith.score(sample(answer))
    assert (bad.value, bad.status) == (None, JUDGE_FAILED)
    assert len(bad.details["failures"]) == 3  # no list, and each sentence without a verdict
    srv.script.append(("401",))  # the server echoes the key in its error: it must not reach the score
    down = faith.score(sample(answer))
    assert down.status == JUDGE_FAILED and "judge call failed" in down.details["error"]
    assert "sk-test-judge-faith-0000" not in json.dumps(down.details)


def test_a_claim_left_uncited_in_an_answer_that_cites_counts_against_faithfulness():
    # one cited true sentence and three invented uncited ones: not 1.0, but 1 of 4
    s = sample("The new access road would be 21 miles long and would cross two perennial streams [1]. "
               "A visitor center with a museum would open to the public in the spring. "
               "The project would create a new wildlife refuge of ten thousand acres. "
               "All construction traffic would use the southern gate after dark.")
    r = Faithfulness().score(s)
    assert r.value == 0.25 and r.details["counts"]["no source to check"] == 3


def test_a_marker_to_no_source_counts_once_per_sentence_that_uses_it():
    s = sample("The new access road would be 21 miles long and would cross two perennial streams [1]. "
               "Wetlands along the northern boundary would be avoided entirely [5]. "
               "Wetlands near the southern gate would be restored after construction [5].")
    r = CitationPrecision().score(s)
    assert (r.details["holding"], r.details["citations"]) == (1, 3) and r.details["invalid"] == [5]


def test_a_bracketed_year_is_no_citation():
    r = Faithfulness().score(sample("The new access road would be 21 miles long and would cross two perennial "
                                    "streams, as planned in [2013]."))
    assert r.status == OK and r.value == 1.0  # checked, not "no source to check" for want of a marker


def test_a_judge_that_leaves_a_sentence_unjudged_gives_no_value(judge):
    srv, model = judge
    answer = ("The new access road would be 21 miles long [1]. A visitor center would open in the spring [1].")
    srv.script.append(("ok", json.dumps({"verdicts": [
        {"sentence": 1, "verdict": "supported", "source": 1, "reason": "p. 12 gives 21 miles"}]})))
    s = sample(answer)
    r = Faithfulness(model).score(s)
    assert (r.value, r.status) == (None, JUDGE_FAILED)  # never 1.0 from the one sentence it judged
    assert r.details["verdict"] == "not judged" and r.details["failures"][0]["reason"] == "no verdict for this sentence"
    c = CitationPrecision(model).score(s)
    assert (c.value, c.status) == (None, JUDGE_FAILED)


def test_the_reference_free_frame_and_table_with_a_cell_that_has_no_value():
    import pandas as pd

    from lib.app import charts
    from lib.evaluation.benchmark import report

    def row(item, mode, metrics):
        return {"item_id": item, "model": "m", "mode": mode, "status": "ok", "metrics": metrics}

    df = pd.DataFrame([
        row("a", "rag", {"faithfulness_offline": {"value": 1.0, "status": "ok"},
                         "citation_precision_offline": {"value": None, "status": "not_applicable"},
                         "faithfulness_judge": {"value": None, "status": "judge_failed"}}),
        row("b", "rag", {"faithfulness_offline": {"value": 0.5, "status": "ok"},
                         "citation_precision_offline": {"value": None, "status": "not_applicable"},
                         "faithfulness_judge": {"value": 0.5, "status": "ok"}}),
        row("c", "rag", {"faithfulness_offline": {"value": 0.0, "status": "ok"}}),  # not a common item
    ])
    rf = report.reference_free_frame(df, ["a", "b"])
    faith = rf[rf["metric"] == "faithfulness_offline"].iloc[0]
    assert (faith["score"], faith["n"], faith["not_scored"]) == (0.75, 2, 0)
    cites = rf[rf["metric"] == "citation_precision_offline"].iloc[0]
    assert pd.isna(cites["score"]) and cites["n"] == 0 and cites["not_scored"] == 2 and pd.isna(cites["ci_low"])
    judged = rf[rf["metric"] == "faithfulness_judge"].iloc[0]
    assert (judged["score"], judged["n"], judged["judge_failed"], judged["not_scored"]) == (0.5, 1, 1, 0)
    judge_table = charts.reference_free_table(rf[rf["metric"] == "faithfulness_judge"], str)
    assert judge_table.iloc[0][["score", "n", "judge failed", "no value"]].tolist() == ["0.50", 1, 1, 0]
    cites_table = charts.reference_free_table(rf[rf["metric"] == "citation_precision_offline"], str)
    assert cites_table.iloc[0][["score", "95% interval", "n", "no value"]].tolist() == ["—", "—", 0, 2]
    assert "judge failed" not in cites_table.columns  # the offline checker has no judge
    assert all(isinstance(v, str) for v in cites_table["score"])  # one type a column: no mixed cells for Arrow

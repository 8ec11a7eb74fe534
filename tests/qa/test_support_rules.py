"""The support check's rules (issue 36, items 2 to 4): sentences that claim nothing get no mark, a refusal over a
passage that holds the answer is a missed answer, a claim of absence is not checked, a differing number is never
✓ and is named, a "not" counts only within the evidence sentence, a sentence summing up a list is read against
the list, and a closed answer's verdict is checked against its evidence; a model that cannot decide yes or no
gives no verdict, and the benchmark counts it apart."""
from __future__ import annotations

import pytest

from lib.core.verdict import QUOTES_ONLY
from lib.evaluation.metrics.base import NO_VERDICT, Sample
from lib.evaluation.metrics.closed_accuracy import ClosedAccuracy
from lib.models.base import Request
from lib.models.extractive import ExtractiveProvider
from lib.qa import claims
from lib.qa.support import (
    AGREES,
    CONTRADICTED,
    NO_CLAIM,
    NOT_CHECKED,
    SUPPORTED,
    UNSUPPORTED,
    Passage,
    check,
)

SITE = Passage(1, "The proposed site covers 865 acres of mixed forest and open fields north of the lake. "
                  "Construction would take about 18 months and would employ 120 workers at its peak.", "p. 12")


@pytest.mark.parametrize(("sentence", "kind"), [
    ("Surveys could not find any nesting sites on the parcel.", claims.CLAIM),  # claims, not refusals
    ("The Corps cannot determine jurisdiction until the delineation is done.", claims.CLAIM),
    ("Sure, the project would disturb 865 acres.", claims.CLAIM),
    ("There is insufficient information to determine the impacts on bats.", claims.CLAIM),
    ("The question asks how many workers the project would employ.", claims.LEAD_IN),
    ("Here is what the provided passage says about this question.", claims.LEAD_IN),
    ("Based on the information provided, I will answer the question.", claims.LEAD_IN),
    ("I cannot determine the answer from the given context.", claims.REFUSAL),
    ("The passage does not provide enough information to answer this question.", claims.REFUSAL),
    ("The passage discusses construction and workforce.", claims.REMARK),
    ("The provided context describes several aspects of the site.", claims.REMARK),
    ("The passage does not mention the cost of the project.", claims.ABSENCE),
    ("There is no mention of wetlands in the passage.", claims.ABSENCE),
    ("The passage states that the site covers 865 acres.", claims.CLAIM),
    ("The site covers 865 acres of forest.", claims.CLAIM),
    ("The project would not affect wetlands.", claims.CLAIM),
])
def test_what_kind_of_sentence(sentence, kind):
    assert claims.kind(sentence) == kind


def test_lead_ins_refusals_and_remarks_get_no_mark_and_are_counted_apart():
    r = check("The question asks how large the site is. The proposed site covers 865 acres of mixed forest and open "
              "fields north of the lake. The passage discusses the site.", [SITE])
    assert [s.status for s in r.sentences] == [NO_CLAIM, SUPPORTED, NO_CLAIM]
    assert [s.kind for s in r.sentences] == [claims.LEAD_IN, claims.CLAIM, claims.REMARK]
    assert r.verdict == SUPPORTED  # the lead-in and the remark neither help nor hurt
    assert r.summary() == ("1 of 1 claim supported · 1 lead-in set aside (no claim) · 1 remark set aside (no claim)")
    assert [m.status for m in r.marks()] == [NO_CLAIM, SUPPORTED, NO_CLAIM]


def test_a_refusal_when_the_sources_hold_the_answer_is_a_missed_answer_not_support():
    refusal = "The passage does not provide enough information to answer this question."
    gold = check(refusal, [SITE], question="How many workers would construction employ?", holds_answer=True)
    assert [s.status for s in gold.sentences] == [NO_CLAIM]
    assert gold.verdict != SUPPORTED and gold.missed == {"sentence": refusal, "why": "the sources given hold the answer"}
    assert "missed answer" in gold.summary()
    rag = check(refusal, [SITE])  # retrieved passages may not hold it: no missed answer claimed
    assert rag.missed is None and [s.status for s in rag.sentences] == [NO_CLAIM]


def test_a_claim_that_something_is_absent_is_not_checked():
    r = check("The passage does not mention the cost of the project.", [SITE])
    assert [(s.status, s.kind) for s in r.sentences] == [(NOT_CHECKED, claims.ABSENCE)]
    assert r.verdict == NOT_CHECKED


@pytest.mark.parametrize(("sentence", "differs"), [
    ("Construction would take about 18 months and would employ 210 workers at its peak.",
     "210 workers (the source says 120 workers)"),
    ("The proposed site covers 568 acres of mixed forest and open fields north of the lake.",
     "568 acres (the source says 865 acres)"),
])
def test_a_number_that_differs_is_never_supported_and_is_named(sentence, differs):
    s = check(sentence, [SITE]).sentences[0]
    assert s.status != SUPPORTED and differs in s.differs
    same = check(sentence.replace("210", "120").replace("568", "865"), [SITE]).sentences[0]
    assert same.status == SUPPORTED and same.differs == []


def test_a_number_in_another_unit_or_only_elsewhere_in_the_passage_is_not_supported():
    src = [Passage(1, "The road would be 21 miles long. The project would drill 12 wells. The loop trail covers 120 "
                      "miles of forest.")]
    unit = check("The loop trail covers 120 acres of forest.", src).sentences[0]
    assert unit.status != SUPPORTED and "120 acres (not in the source)" in unit.differs
    elsewhere = check("The road would be 12 miles long.", src).sentences[0]
    assert elsewhere.status != SUPPORTED and "12 miles (the source says 21 miles)" in elsewhere.differs


def test_a_correct_verdict_beside_an_unrelated_not_still_agrees():
    passage = Passage(1, "Noise would not exceed 65 dBA at the nearest home. The proposed site is located within the "
                         "100-year floodplain of the river.", "p. 4")
    got = check("Yes.", [passage], question="Is the proposed site located within the 100-year floodplain?",
                verdict="yes")
    assert got.verdict_check["status"] == AGREES, got.verdict_check


@pytest.mark.parametrize(("passage", "quote"), [
    ("Resources Not Affected\nThe survey recorded 14 bird species on the site during the spring of 2015.",
     "The survey recorded 14 bird species on the site during the spring of 2015."),
    ("Construction would not begin before 2020, and operations would employ 120 workers at the site.",
     "Operations would employ 120 workers at the site."),
])
def test_a_not_counts_only_within_the_evidence_sentence_itself(passage, quote):
    """A heading the PDF ran into the sentence, or a neighbouring clause, carries a "not" that the quote does not
    say: the quote is still supported (on main it was 'partly', "p. 3 says 'not' where it does not")."""
    s = check(quote, [Passage(1, passage, "p. 3")]).sentences[0]
    assert s.status == SUPPORTED and s.differs == []


def test_a_not_the_evidence_sentence_has_still_counts():
    s = check("Construction would begin before 2020.",
              [Passage(1, "Construction would not begin before 2020, and operations would employ 120 workers.")]
              ).sentences[0]
    assert s.status != SUPPORTED and any("'not'" in d for d in s.differs)


def test_a_sentence_summing_up_a_list_is_checked_against_its_items_together():
    passage = Passage(1, "Four alternatives were carried forward for detailed analysis:\n1. The No Action "
                         "Alternative.\n2. Alternative A, the northern route.\n3. Alternative B, the southern route."
                         "\n4. Alternative C, the rail option.\n", "p. 2-4")
    s = check("Four alternatives were carried forward for detailed analysis: the No Action Alternative, the northern "
              "route, the southern route and the rail option.", [passage]).sentences[0]
    assert s.status == SUPPORTED, (s.status, s.chances, s.evidence)
    assert all(item in s.evidence["text"] for item in ("northern route", "southern route", "rail option"))


FLOOD = Passage(1, "The proposed site is not located within the 100-year floodplain. Stormwater would be "
                   "managed on site through two detention basins.", "p. 7")


def test_a_verdict_the_evidence_contradicts_is_marked_so():
    q = "Is the proposed site located within the 100-year floodplain?"
    wrong = check("Yes.", [FLOOD], question=q, verdict="yes")
    assert wrong.verdict_check["status"] == CONTRADICTED and wrong.verdict_check["implied"] == "no"
    assert "is contradicted by p. 7" in wrong.summary()
    right = check("No.", [FLOOD], question=q, verdict="no")
    assert right.verdict_check["status"] == AGREES
    off_topic = check("Yes.", [FLOOD], question="Would the project require a Clean Water Act permit?", verdict="yes")
    assert off_topic.verdict_check["status"] == NOT_CHECKED  # nothing there says it: no guess


def test_the_extractive_baseline_gives_no_verdict_and_never_reads_one_from_a_quote():
    """On main it answered "No." because its best sentence held a "not", and both quotes were then marked ✓."""
    q = "Is the proposed site located within the 100-year floodplain?"
    ans = ExtractiveProvider().generate(Request(prompt=q, question=q, context=FLOOD.text, closed=True))
    assert ans.verdict == QUOTES_ONLY
    assert ans.text.startswith("Quotes only:") and not ans.text.lower().startswith(("no", "yes"))
    r = check(ans.text, [FLOOD], question=q, verdict=ans.verdict)
    assert r.verdict_check is None  # no verdict, nothing to check
    open_ans = ExtractiveProvider().generate(Request(prompt=q, question=q, context=FLOOD.text, closed=False))
    assert open_ans.verdict is None and not open_ans.text.startswith("Quotes only")


def test_quotes_only_is_counted_as_no_verdict_never_wrong():
    got = ClosedAccuracy().score(Sample(question="Is it?", answer="Quotes only:\nA quote.", truth="yes",
                                        question_type="closed", verdict=QUOTES_ONLY))
    assert got.value is None and got.status == NO_VERDICT


def test_an_unsupported_elaboration_is_not_supported():
    s = check("Such construction projects typically help the local economy and ensure long-term growth for the "
              "region.", [SITE]).sentences[0]
    assert s.status == UNSUPPORTED

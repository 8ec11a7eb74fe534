"""Claims held to the documents they speak of (lib/qa/support_documents.py): a claim about both EISs needs each
one's evidence, a claim naming one EIS needs that EIS's, and a figure of one EIS put on the other is caught."""
from lib.documents.mentions import DocRef
from lib.qa import support
from lib.qa.ask import AskResult
from lib.qa.context_passage import ContextPassage
from lib.qa.contexts import ComparedDocuments

GOLDRUSH = support.Passage(
    1, "Fifty-seven sites that are eligible for listing on the National Register of Historic Places have been "
       "identified within the Direct Area of Potential Effects. All of these sites would be physically altered, "
       "resulting in an adverse effect to these cultural sites.", "p. 3", "g", "Goldrush Mine Project")
CONUS = support.Passage(
    2, "No adverse effects on historic properties are expected at Fort Custer. The Missile Defense Agency "
       "consulted with the State Historic Preservation Officer about cultural resources at each alternative site.",
    "p. 24", "c", "Continental United States (CONUS) Interceptor Site")
BOTH = [GOLDRUSH, CONUS]


def one(answer, passages=BOTH, **kw):
    report = support.check(answer, passages, **kw)
    assert len(report.sentences) == 1
    return report, report.sentences[0]


def test_a_claim_naming_each_document_is_held_to_each_and_passes_when_each_backs_it():
    report, s = one("The Goldrush Mine EIS identifies fifty-seven sites that would be physically altered [1], while "
                    "the CONUS EIS expects no adverse effects on historic properties at Fort Custer [2].")
    assert s.status == support.SUPPORTED
    assert [(d["doc_id"], d["status"]) for d in s.documents] == [("g", support.SUPPORTED), ("c", support.SUPPORTED)]


def test_facts_of_one_document_put_on_the_other_are_caught():
    # the same two facts, each attributed to the wrong EIS: every citation's evidence must be in its own document
    report, s = one("The Goldrush Mine EIS expects no adverse effects on historic properties at Fort Custer, while "
                    "the CONUS EIS identifies fifty-seven sites that would be physically altered [1][2].")
    assert s.status == support.UNSUPPORTED
    assert {d["doc_id"]: d["why"] for d in s.documents} == {"g": "its sources do not say it",
                                                            "c": "its sources do not say it"}
    # without the names, the same words are backed: it is the attribution that fails
    assert one("Fifty-seven sites would be physically altered [1].")[1].status == support.SUPPORTED


def test_a_claim_naming_one_document_needs_that_documents_source():
    report, s = one("The CONUS EIS identifies fifty-seven sites that would be physically altered [1].")
    assert s.status == support.UNSUPPORTED  # the words are in [1], but [1] is the Goldrush Mine EIS
    assert support.document_notes(s.documents) == [
        "it names Continental United States (CONUS) Interceptor Site, but none of its sources is cited"]
    assert "without evidence from: Continental United States (CONUS) Interceptor Site" in report.summary()
    # named rightly, the same sentence is supported
    assert one("The Goldrush Mine EIS identifies fifty-seven sites that would be physically altered [1].")[1].status \
        == support.SUPPORTED


def test_a_claim_about_both_documents_with_one_documents_evidence_is_not_supported():
    report, s = one("Both EISs identify fifty-seven sites that would be physically altered [1].")
    assert s.status == support.PARTLY  # true of the Goldrush Mine EIS only
    assert support.document_notes(s.documents) == [
        "Continental United States (CONUS) Interceptor Site: none of its sources is cited"]
    assert "◐" in support.marks_line(report.marks()) and "none of its sources is cited" in support.marks_line(
        report.marks())


def test_the_two_eiss_over_sources_from_one_document_says_the_other_is_missing():
    """The browser walk's case: scope all, k = 3, every passage from one EIS, and an answer about "the two EISs"
    that the old check marked ✓."""
    report, s = one("The two EISs identify fifty-seven sites that would be physically altered [1].", [GOLDRUSH])
    assert s.status == support.PARTLY
    assert support.document_notes(s.documents) == [
        "it speaks of several documents, but its sources come from one"]
    # told which documents the question compares, the check names the one with no source
    docs = AskResult("m", "rag", None, False, None, comparison=ComparedDocuments("together", (
        DocRef("g", "Goldrush Mine Project"), DocRef("c", "CONUS Interceptor Site"))))
    from lib.qa.ask import compared_documents

    _, s = one("The two EISs identify fifty-seven sites that would be physically altered [1].", [GOLDRUSH],
               documents=compared_documents(docs.comparison))
    assert s.status == support.PARTLY
    assert support.document_notes(s.documents) == ["CONUS Interceptor Site: no source from it was given"]


def test_claims_that_name_no_document_and_single_document_answers_are_unchanged():
    plain = "Fifty-seven sites would be physically altered [1]."
    assert one(plain)[1].documents == []
    # one document in view: naming it holds the claim to nothing more (the check as measured on one passage)
    named = "The Goldrush Mine EIS identifies fifty-seven sites that would be physically altered [1]."
    _, s = one(named, [GOLDRUSH])
    assert s.documents == []
    assert s.status == support.check(named, [support.Passage(1, GOLDRUSH.text, "p. 3")]).sentences[0].status
    # passages that name no document (a pasted gold passage) hold no claim to one
    _, s = one("The Goldrush Mine EIS identifies fifty-seven sites that would be physically altered [1].",
               [support.Passage(1, GOLDRUSH.text, "the gold passage")])
    assert s.documents == []
    # "both alternatives" speaks of no document
    _, s = one("Both alternatives would physically alter fifty-seven sites [1].")
    assert s.documents == []


def test_a_claim_that_a_document_alone_says_something_is_never_verified():
    """"Only the Goldrush Mine EIS …" says the other EIS does not: no passage can show that (the browser walk's
    false ✓)."""
    report, s = one("Only the Goldrush Mine EIS identifies fifty-seven sites that would be physically altered [1].")
    assert s.status == support.PARTLY
    assert support.document_notes(s.documents) == [
        "Continental United States (CONUS) Interceptor Site: it says something of this document too (only, unlike, "
        "no other), which no passage can show"]
    # "only" before a figure is no claim about the other documents
    _, s = one("The Goldrush Mine EIS finds only fifty-seven sites that would be physically altered [1].")
    assert [d["doc_id"] for d in s.documents] == ["g"]


def test_with_several_documents_a_page_says_whose_page_it_is():
    contexts = [ContextPassage(GOLDRUSH.text, 3, 3, "g", "Goldrush Mine Project", n=1),
                ContextPassage(CONUS.text, 3, 4, "c", "CONUS Interceptor Site", n=2)]
    assert [p.page for p in support.passages_of(contexts, "rag")] == ["Goldrush Mine Project, p. 3",
                                                                      "CONUS Interceptor Site, pp. 3–4"]
    assert support.passages_of(contexts[:1], "rag")[0].page == "p. 3"


def test_a_clause_that_names_no_document_is_still_checked():
    """Review: a named clause checked alone let an invented clause beside it through as ✓."""
    _, s = one("The Goldrush Mine EIS identifies fifty-seven eligible sites that would be physically altered, and "
               "twelve of them lie within wetlands drained by the new pipeline [1].")
    assert s.status != support.SUPPORTED


def test_only_before_a_name_is_exclusive_but_only_before_anything_else_is_not():
    _, s = one("The Goldrush Mine EIS considers only Alternative B to physically alter fifty-seven sites [1].")
    assert [d["doc_id"] for d in s.documents] == ["g"]


def test_a_single_document_answer_about_studies_or_projects_is_not_held_to_documents():
    """Review: "both studies" or "each project" inside one EIS are not several documents."""
    for sentence in ("Both studies identified fifty-seven sites that would be physically altered [1].",
                     "Each project alternative would physically alter fifty-seven sites [1]."):
        _, s = one(sentence, [GOLDRUSH])
        assert s.documents == [], sentence

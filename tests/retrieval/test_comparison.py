"""Questions that compare documents: recognised by the names and words they use, and answered with each
document's own best passages (lib/retrieval/comparison.py, Retriever.search_question)."""
import json
from pathlib import Path

import pytest

from lib.documents.mentions import distinguish, doc_ref, without_mentions
from lib.retrieval.comparison import recognise

ROOT = Path(__file__).resolve().parents[2]
GOLDRUSH_PDF = ROOT / "data" / "eis" / "eis_Goldrush_Mine_Project_excerpts.pdf"
QUESTIONS = {q["id"]: q for q in map(json.loads, (ROOT / "data" / "comparison" / "questions.jsonl").read_text(
    encoding="utf-8").splitlines())}

CONUS = doc_ref("c", "Continental United States (CONUS) Interceptor Site",
                ["Continental United States (CONUS) Interceptor Site Final Environmental Impact Statement"])
GOLDRUSH = doc_ref("g", "Goldrush Mine Project Mount Lewis Field Office, Nevada", ["20230045"])
TONGASS = doc_ref("t", "Tongass Land and Resource Management Plan", [])
REFS = distinguish([CONUS, GOLDRUSH, TONGASS])


@pytest.mark.parametrize(("question", "why", "ids"), [
    ("What does the Goldrush Mine EIS say about noise?", "named", ["g"]),
    ("How does EIS 20230045 treat cultural resources?", "named", ["g"]),  # its EIS number
    ("Compare the CONUS and Goldrush EISs on noise.", "named", ["c", "g"]),  # an acronym its title spells out
    ("How does the Continental United States Interceptor Site EIS treat wetlands, and the Tongass plan?", "named",
     ["c", "t"]),
    ("How do the two EISs treat wetlands?", "together", ["c", "g", "t"]),
    ("What does each EIS say about noise?", "together", ["c", "g", "t"]),
    ("Which of these EISs has a preferred alternative?", "together", ["c", "g", "t"]),
    ("Do both address environmental justice?", "together", ["c", "g", "t"]),
    ("What does the Tongass plan say about roads?", "named", ["t"]),
    # one document named in a comparing question: it first, then the rest of the scope
    ("How does the Goldrush EIS compare with the other two?", "named", ["g", "c", "t"]),
])
def test_a_question_that_names_documents_or_speaks_of_them_together_compares_them(question, why, ids):
    comparison = recognise(question, REFS)
    assert comparison is not None and comparison.why == why and comparison.doc_ids == ids


@pytest.mark.parametrize("question", [
    "What are the noise impacts of construction?",
    "What would the mine's haul trucks carry?",  # "mine" is a word, not the Goldrush Mine EIS
    "Where is the interceptor site?",  # a word of a name counts only as written in it (capitalised)
    "Would the United States Army use the road?",  # words other names share, or generic ones, name nothing
    "Wildlife first. Tongass aside, where would the roads go?",  # a word of a name alone is no name
    "What does the Bureau of Land Management require for permits?",  # Tongass "Land … Management Plan"
    "How does the preferred alternative differ from the no action alternative?",
])
def test_a_question_that_does_neither_is_no_comparison(question):
    assert recognise(question, REFS) is None


def test_a_place_that_shares_a_word_with_a_documents_name_does_not_name_it():
    """A real NEPAQuAD question of the sample EIS: "Lewis" is in the Goldrush EIS's name (Mount Lewis Field Office).
    Its "both" still makes it a comparison of the documents in scope (the issue's rule), never a search of the
    Goldrush EIS alone."""
    q = "Is the potential CIS footprint for the FTD Site located in both Lewis and Jefferson Counties?"
    assert recognise(q, REFS).why == "together"


def test_a_generic_title_or_acronym_names_no_document():
    generic = distinguish([doc_ref("x", "Final Environmental Impact Statement (EIS)", ["Final EIS", "report"]),
                           *REFS])
    assert generic[0].phrases == () and generic[0].words == ()
    assert recognise("What does the final EIS say about birds?", generic) is None


def test_one_document_in_scope_is_never_compared():
    assert recognise("How do the two EISs treat wetlands?", [GOLDRUSH]) is None


def test_a_documents_name_is_put_as_it_before_its_sources_are_read():
    assert without_mentions("The Goldrush Mine EIS identifies 57 sites", REFS) == "it identifies 57 sites"
    assert without_mentions("Both EISs identify adverse effects", REFS) == "it identify adverse effects"
    # only the name and its own words go: "Alternative B" and "Fort Drum" stay
    assert without_mentions("Under the Goldrush Mine EIS's Alternative B, sites would be altered", REFS) \
        == "Under it Alternative B, sites would be altered"
    assert without_mentions("What does the CONUS EIS Fort Drum alternative say?", REFS) \
        == "What does it Fort Drum alternative say?"


@pytest.fixture(scope="module")
def goldrush(services, sample_doc):
    """A second EIS beside the sample, for this module only (the session's other tests see the sample alone)."""
    doc = services.docs.ingest_file(str(GOLDRUSH_PDF))
    yield doc
    services.docs.delete(doc.doc_id)


def _on_topic(hits, doc_id, pages):
    return any(h.doc_id == doc_id and set(pages) & set(range(h.chunk.page_start, h.chunk.page_end + 1))
               for h in hits)


# q10 ("Compare truck traffic…") left out since issue 38: searching int8 vectors without fp32 re-scoring, the sample's
# truck-traffic page falls to 4th (its p. 67 ranks 2nd); bench/comparison.py counts it among the misses.
@pytest.mark.parametrize("qid", ["q03", "q07", "q16", "q17", "q22", "q25"])
def test_a_comparison_question_gets_each_documents_topic_passage(services, sample_doc, goldrush, qid):
    """Questions from data/comparison/questions.jsonl whose topic passage, for one of the documents, the search
    over both documents or the old balanced search left out of the top 3 (bench/comparison.py)."""
    q = QUESTIONS[qid]
    ids = {"conus": sample_doc.doc_id, "goldrush": goldrush.doc_id}
    found = services.retriever.search_question(list(ids.values()), q["question"], 3, "hybrid")
    assert found.comparison is not None
    assert set(found.comparison.doc_ids) == {ids[key] for key in q["gold"]}
    for key, pages in q["gold"].items():
        if pages:
            assert _on_topic(found.hits, ids[key], pages), (qid, key, [(h.doc_file, h.chunk.page_start)
                                                                      for h in found.hits])


def test_a_question_naming_one_document_searches_that_document(services, sample_doc, goldrush):
    scope = [sample_doc.doc_id, goldrush.doc_id]
    found = services.retriever.search_question(scope, QUESTIONS["q26"]["question"], 3, "hybrid")
    assert {h.doc_id for h in found.hits} == {sample_doc.doc_id}
    assert found.comparison.why == "named"
    plain = services.retriever.search_question(scope, "What noise would construction make?", 3, "hybrid")
    assert plain.comparison is None  # no name, no word that compares: the collection's best passages


def test_balanced_search_takes_each_documents_best_passage(services, sample_doc, goldrush):
    """q03 compares the two No Action Alternatives: the old balanced search gave the Goldrush Mine EIS a passage
    from the shared ranking, not its No Action page; now each document is searched on its own."""
    q = QUESTIONS["q03"]
    hits = services.retriever.search_scope([sample_doc.doc_id, goldrush.doc_id], q["question"], 3, "hybrid",
                                           balanced=True)
    assert _on_topic(hits, goldrush.doc_id, q["gold"]["goldrush"])
    assert _on_topic(hits, sample_doc.doc_id, q["gold"]["conus"])


def test_ask_compares_and_keeps_the_comparison_with_the_answer(services, sample_doc, goldrush, session_home):
    """Ask over both documents: the answer's sources come from each, each names its document, the comparison is
    kept with the answer (history and reopened batch), and the support check holds its claims to each document."""
    from lib.qa import ask as ask_lib

    scope = [sample_doc.doc_id, goldrush.doc_id]
    r = ask_lib.ask(QUESTIONS["q04"]["question"], "extractive", "rag", services, scope, k=3)
    assert r.error is None and r.comparison.why == "together"
    assert {d.doc_id for d in r.comparison.documents} == set(scope)
    assert {c.doc_id for c in r.contexts} == set(scope)
    assert all(c.doc_name for c in r.contexts)  # each source names its document
    report = r.support()
    assert report is not None
    batch = ask_lib.save_history([r], scope, services=services, k=3)
    again = ask_lib.load_batch(batch)[0]
    assert again.comparison == r.comparison
    # the reopened answer is checked as the first was: a claim about both EISs, cited to one, is not ✓
    again.answer = "Both EISs identify cultural sites that would be physically altered [1]."
    first = next(c for c in again.contexts if c.n == 1)
    s = again.support().sentences[0]
    assert s.status != "supported" and len(s.documents) == 2
    other = next(d for d in s.documents if d["doc_id"] != first.doc_id)
    assert other["why"] == "none of its sources is cited"

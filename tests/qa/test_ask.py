import json
import os
import subprocess
import sys

import pytest

from lib.core.errors import UserError
from lib.models import registry
from lib.models.base import Answer, Provider, ProviderError, Request
from lib.qa import ask as ask_lib
from lib.qa.context_passage import ContextPassage
from tests.conftest import ROOT

GOLD = ("In addition to public participation, federal and state regulatory agencies took part. During these "
        "meetings, agencies in attendance included the U.S. Fish and Wildlife Service and the U.S. Army Corps of "
        "Engineers. The weather at the site is cold in winter.")


class Broken(Provider):
    family, model_name = "test", "broken"
    label = "Always fails"

    def _generate(self, req: Request) -> Answer:
        raise ProviderError("Always fails: server error 500 after retries")


@pytest.fixture
def broken():
    registry.all_providers()
    registry.register(Broken())
    yield
    registry.reset()


def test_extractive_gold_quotes_passage():
    r = ask_lib.ask("Which agencies attended the meetings?", "extractive", "gold", gold=GOLD)
    assert r.error is None and "Fish and Wildlife" in r.answer
    assert r.contexts[0].text == GOLD and r.verdict is None


def test_closed_question_gets_verdict_from_local_likelihood():
    r = ask_lib.ask("Did the U.S. Fish and Wildlife Service attend the meetings?", "smollm2", "gold", gold=GOLD)
    assert set(r.verdict_probs) == {"yes", "no"}
    assert r.closed and r.verdict == max(r.verdict_probs, key=r.verdict_probs.get) and r.answer.lower() == r.verdict
    assert r.model == "local/smollm2-135m" and r.verdict_source == "likelihood"


def test_rag_mode_cites_pages(services, sample_doc):
    r = ask_lib.ask("Which agencies attended the coordination meetings?", "extractive", "rag", services,
                    sample_doc.doc_id, k=3)
    # three chunks, grouped into numbered sources by document and page span (what the model and the page see)
    assert sum(c.chunks for c in r.contexts) == 3 and all(c.page_start >= 1 for c in r.contexts)
    assert [c.n for c in r.contexts] == list(range(1, len(r.contexts) + 1))


def test_pdf_mode_truncates_to_model_window(services, sample_doc):
    p = registry.get("smollm2")
    r = ask_lib.ask("What is the proposed action?", "smollm2", "pdf", services, sample_doc.doc_id)
    assert r.error is None, r.error
    assert r.truncated and 0 < r.kept_fraction < 1
    assert r.tokens_in <= p.context_window
    assert r.notice().startswith("truncated: kept ") and r.notice().endswith("(counted by the model's own tokenizer)")
    assert r.total_tokens > 10_000


def test_grid_isolates_a_failing_cell(broken):
    seen = []
    results = ask_lib.ask_grid("Which agencies attended?", ["test/broken", "extractive"], ["none", "gold"], gold=GOLD,
                               on_result=seen.append)
    assert len(results) == len(seen) == 4
    by = {(r.model, r.mode): r for r in results}
    assert by[("test/broken", "none")].error.startswith("Always fails")
    assert by[("local/extractive", "gold")].error is None and "Fish" in by[("local/extractive", "gold")].answer


def test_modes_needing_a_document_say_so():
    with pytest.raises(UserError, match="needs an indexed document"):
        ask_lib.ask("What?", "extractive", "rag")
    with pytest.raises(UserError, match="Unknown model"):
        ask_lib.ask("What?", "nope", "none")
    with pytest.raises(UserError, match="not available"):
        ask_lib.ask("What?", "openai/gpt-4o-mini", "none")


def test_history_round_trip(session_home):
    results = ask_lib.ask_grid("Which agencies attended?", ["extractive"], ["gold", "none"], gold=GOLD)
    batch = ask_lib.save_history(results, None)
    back = ask_lib.load_batch(batch)
    assert [(r.model, r.mode, r.answer) for r in back] == [(r.model, r.mode, r.answer) for r in results]
    assert any(h.batch_id == batch for h in ask_lib.load_history())
    from lib.qa import manifest

    man = manifest.load(batch)  # every Ask batch stores what it was made with
    assert man is not None and man.kind == "ask" and [m["id"] for m in man.models] == ["local/extractive"]
    assert man.settings["modes"] == ["gold", "none"] and set(man.prompts) >= {"open_with_context", "system"}


def test_cli_models_and_ask(tmp_path):
    env = {**os.environ, "NEPAQA_HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-m", "lib", "models"], cwd=ROOT, env=env, capture_output=True, text=True)
    models = {m["id"]: m for m in json.loads(out.stdout)}
    assert models["local/smollm2-135m"]["available"] and not models["openai/gpt-4o-mini"]["available"]
    assert set(models["openai/gpt-4o-mini"]) == {"id", "label", "available", "reason"}
    assert "smollm2" not in models and "extractive" not in models  # one row per concrete model, no aliases
    out = subprocess.run([sys.executable, "-m", "lib", "ask", "--mode", "gold", "--gold", GOLD, "--closed", "--model",
                          "smollm2", "Did USFWS attend?"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert set(res) == {"model", "mode", "answer", "closed", "verdict", "verdict_source", "contexts", "truncated",
                        "kept_fraction", "tokens_in", "tokens_out", "seconds", "support", "comparison", "cut_at"}
    if res["support"] is not None:  # a bare yes or no states no claim of its own: nothing to mark
        assert res["support"]["checker"] == "offline" and all(len(s["text"].split()) >= 3
                                                              for s in res["support"]["sentences"])
    assert res["model"] == "local/smollm2-135m" and res["closed"] is True
    assert res["verdict_source"] == "likelihood" and res["answer"].lower() == res["verdict"]
    bad = subprocess.run([sys.executable, "-m", "lib", "ask", "--doc", "nosuch", "--mode", "rag", "--model",
                          "extractive", "What?"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.startswith("error: ")


def test_extractive_quotes_whole_sentences_and_cites_their_sources():
    from lib.core.context_text import context_sentences
    from lib.qa.citations import cited_numbers

    ctx = ("[1] (FEIS A, p. 71)\nWetlands at the site total 12\nacres. Mitigation would replace them at a two to one "
           "ratio.\n\n[2] (FEIS B, p. 10)\nCaribou calve on the coastal plain each June.")
    assert [(s.source, s.text, s.page) for s in context_sentences(ctx)] == [
        (1, "Wetlands at the site total 12 acres.", "p. 71"),  # a PDF line break mends
        (1, "Mitigation would replace them at a two to one ratio.", "p. 71"),
        (2, "Caribou calve on the coastal plain each June.", "p. 10")]
    r = ask_lib.ask("Where do caribou calve?", "extractive", "gold", gold=ctx)
    assert "Caribou calve on the coastal plain each June. [2] (p. 10)" in r.answer
    assert cited_numbers(r.answer, max_n=2) <= {1, 2} and 2 in cited_numbers(r.answer, max_n=2)


def test_the_history_keeps_each_answers_support_check_and_exports_it(tmp_path):
    from sqlalchemy import select

    from lib.storage import tables
    from lib.storage.engine import get_engine

    eng = get_engine(f"sqlite:///{tmp_path / 'h.db'}")
    road = "The new access road would be 21 miles long and would cross two perennial streams."
    gold = ask_lib.AskResult(model="local/extractive", mode="gold", answer=road + " [1]", closed=False,
                             verdict=None, contexts=[ContextPassage(road, None, None)],
                             question="How long is the road?")
    wrong = ask_lib.AskResult(model="local/extractive", mode="gold", answer="The new access road would be 12 miles "
                              "long and would cross two perennial streams.", closed=False, verdict=None,
                              contexts=gold.contexts, question="How long is the road?")
    pdf = ask_lib.AskResult(model="local/extractive", mode="pdf", answer=road, closed=False, verdict=None,
                            contexts=[ContextPassage("3 page(s) of text", 1, 3)],
                            question="How long is the road?")
    assert pdf.support() is None  # no pages to read again, and the kept pages not recorded: not checked
    assert pdf.support(lambda doc_id: []) is None
    ask_lib.save_history([gold, wrong, pdf], None, engine=eng)
    hist = sorted(ask_lib.load_history(eng), key=lambda h: h.id)
    assert hist[0].support is not None and hist[0].support["verdict"] == "supported" and hist[2].support is None
    rows = ask_lib.export_rows(hist)
    assert [r["support_verdict"] for r in rows] == ["supported", "unsupported", "not checked"]
    assert rows[0]["support_marks"].startswith("✓ supported")
    assert "12 miles" in rows[1]["support_marks"] and "support" not in rows[0]
    with eng.connect() as c:  # the export gives the sources as stored: JSON, not a repr
        stored = c.execute(select(tables.ask_history.c.contexts).order_by(tables.ask_history.c.id)).scalars().all()
    assert [json.loads(r["contexts"]) for r in rows] == [json.loads(s) for s in stored]
    assert hist[0].contexts == [ContextPassage(road, None, None)]  # read back as it was given


def test_a_full_pdf_answer_is_checked_against_the_pages_its_window_kept():
    from lib.documents.pdf import Page

    pages = [Page(1, "Cover page of the statement for the interceptor site."),
             Page(2, "The new access road would be 21 miles long and would cross two perennial streams."),
             Page(3, "Construction would employ about 300 workers at the peak of activity.")]
    contexts = [ContextPassage("2 page(s) of text", 1, 3, doc_id="d1", kept_through=2)]
    r = ask_lib.AskResult(model="local/extractive", mode="pdf", closed=False, verdict=None, contexts=contexts,
                          answer="The new access road would be 21 miles long [page 2]. Construction would employ "
                                 "about 300 workers at the peak of activity.", question="q")
    rep = r.support(lambda doc_id: pages if doc_id == "d1" else [])
    first, second = rep.sentences
    assert first.status == "supported" and first.evidence["page"] == "p. 2"
    # page 3 was cut from the window: the model never saw it, so a sentence only page 3 holds is not supported
    assert second.status == "unsupported"

"""A real OpenAI-compatible server nobody here wrote: llama-cpp-python's own (``python -m llama_cpp.server``, through
``lib/models/llama_cpp_server.py``, which turns llama.cpp's extra buffer types off), serving the bundled SmolLM2
GGUF on 127.0.0.1 with a 2,048-token window. What it can do is asked, not assumed: its model list decides whether
the model shows as available; it refuses ``json_schema`` with a 500 and takes ``json_object`` with the schema,
which the studio finds once and remembers; a request longer than its window is rejected with the window in the
message, which the studio records and fits the next request to. Every feature that calls a connected model is run
against it: Ask in its four modes, a closed question, a judged benchmark, the support judge, the metadata fill,
and a benchmark whose server is killed and started again mid-run. The fake server (tests/fake_llm_server.py)
stays for hostile replies."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import func, insert, select

from lib.app import ask as ask_case
from lib.core import config
from lib.documents import metadata as M
from lib.evaluation.benchmark.dataset import load_items
from lib.evaluation.benchmark.runner import run_benchmark
from lib.evaluation.benchmark.runs import RunConfig, answers
from lib.models import registry, server_facts
from lib.models.base import Request
from lib.qa import ask as ask_lib
from lib.qa.support_judge import VERDICTS, judge_check
from lib.qa.support_report import Passage
from lib.qa.support_status import NOT_JUDGED
from lib.storage import tables
from lib.storage.engine import get_engine
from tests import model_servers

pytestmark = [pytest.mark.slow, pytest.mark.real_server]

WINDOW = 2048


@pytest.fixture(scope="module")
def llama_server():
    with model_servers.serving(model_servers.llama_cpp_python, "llama-cpp-python", WINDOW) as server:
        yield server


def _point_at(monkeypatch, server) -> None:
    monkeypatch.setenv("OPENAI_COMPAT_BASE_URL", server.url)
    monkeypatch.setenv("OPENAI_COMPAT_MODEL", server.model)
    monkeypatch.delenv("OPENAI_COMPAT_CONTEXT", raising=False)
    monkeypatch.setenv("NEPAQA_PROVIDER_TIMEOUT", "120")
    registry.reset()


@pytest.fixture
def compat(monkeypatch, llama_server):
    _point_at(monkeypatch, llama_server)
    yield registry.get("compat/smollm2")
    registry.reset()


def _status(model_id: str) -> tuple[bool, str]:
    """What `python -m lib models` and the sidebar show for one model: (available, why)."""
    return next((ok, why) for p, ok, why in registry.status_all(check=True) if p.id == model_id)


def test_available_only_when_it_answers_and_serves_the_name(compat, monkeypatch, llama_server):
    assert _status("compat/smollm2") == (True, "model smollm2")
    monkeypatch.setenv("OPENAI_COMPAT_MODEL", "llama3")  # a name the server does not serve
    registry.reset()
    ok, why = _status("compat/llama3")
    assert not ok and "does not list 'llama3'" in why and "(it lists: smollm2)" in why
    assert next(r[1:] for r in registry.status_all() if r[0].id == "compat/llama3") == (ok, why)  # pages: the last
    # answer, with no network
    monkeypatch.setenv("OPENAI_COMPAT_BASE_URL", f"http://127.0.0.1:{model_servers.free_port()}/v1")  # nothing there
    registry.reset()
    ok, why = _status("compat/llama3")
    assert not ok and "does not answer" in why and "start it" in why


def _refusals(server) -> int:
    """The 500s the server's chat endpoint has sent so far."""
    return server.calls()[("POST", "/v1/chat/completions", 500)]


def test_structured_output_falls_back_to_json_object_and_remembers_it(compat, monkeypatch, llama_server):
    monkeypatch.setenv("OPENAI_COMPAT_JSON_SCHEMA", "1")
    registry.reset()
    model = registry.get("compat/smollm2")
    before = _refusals(llama_server)
    ans = model.generate(Request(prompt="Is the sky blue? Answer yes or no.", closed=True, structured=True,
                                 max_tokens=200))  # room for the whole JSON object
    facts = server_facts.of(model._endpoint(), "smollm2")  # noqa: SLF001
    assert facts.refused == {"json_schema"} and facts.way == "json_object"
    assert ans.extra["structured_way"] == "json_object"
    assert ans.verdict in ("yes", "no") and ans.verdict_source == "structured"  # the server's JSON was read
    assert _refusals(llama_server) - before == 1  # the refusal (a 500) was not retried
    again = model.generate(Request(prompt="Is water wet? Answer yes or no.", closed=True, structured=True,
                                   max_tokens=200))
    assert again.extra["structured_way"] == "json_object" and facts.refused == {"json_schema"}
    assert _refusals(llama_server) - before == 1  # remembered: json_schema was not asked again


def test_a_request_longer_than_the_window_says_why_and_the_next_is_fitted(compat, services, sample_doc):
    assert compat.context_window == 8192  # the default, before the server has said anything
    res = ask_lib.ask("What does the EIS say about noise?", "compat/smollm2", "pdf", services=services,
                      doc_id=sample_doc.doc_id)
    # the first request (fitted to 8,192) was rejected for its length; the server's window was recorded and the
    # question asked again, fitted to it
    assert compat.context_window == WINDOW
    assert res.error is None and res.answer, res.error
    assert res.truncated and res.total_tokens > WINDOW
    # a request that cannot fit says so in the server's own words, with what to change
    with pytest.raises(Exception) as caught:
        compat.generate(Request(prompt="word " * 6000, max_tokens=10))
    msg = str(caught.value)
    assert "request rejected (400)" in msg and f"The server said: “This model's maximum context length is {WINDOW}" in msg
    assert f"longer than the server's window ({WINDOW} tokens), which is now recorded" in msg


def test_two_streams_at_once_both_finish(compat, monkeypatch):
    """Two at once (the setting raised from the loopback default of 1): this server ends a running stream when
    another request waits; the cut answer is asked again whole, so both finish."""
    monkeypatch.setenv("NEPAQA_MODEL_LIMITS", "compat/smollm2=2")

    pieces: dict[int, list[str]] = {0: [], 1: []}

    def one(i: int) -> str:
        return compat.generate(Request(prompt=f"Name a color. ({i})", max_tokens=16,
                                       on_token=pieces[i].append)).text

    with ThreadPoolExecutor(2) as pool:
        texts = list(pool.map(one, (0, 1)))
    assert all(texts), (texts, pieces)  # both finished: a cut stream was asked again whole, not failed


def test_an_answer_cut_by_its_cap_says_so(compat, monkeypatch, services):
    """The cap on an answer's length is the model's own option (600 tokens for a connected model), shown with the
    answer, and set per model; an answer the cap stopped says so (the server's finish reason "length")."""
    assert compat.answer_cap(200) == 600 and "answers up to 600 tokens" in ask_case.sent_options("compat/smollm2")
    assert "answers up to 48 tokens" in ask_case.sent_options("compat/smollm2", closed=True)  # a yes/no answer's cap
    monkeypatch.setenv("NEPAQA_ANSWER_TOKENS", "compat/smollm2=8,openai/gpt-4o-mini=400")
    res = ask_lib.ask("Describe the environmental effects of a new highway in detail.", "compat/smollm2", "none",
                      services=services, closed=False)
    assert res.error is None and res.answer and res.cut_at == 8
    assert res.cli_dict()["cut_at"] == 8
    monkeypatch.delenv("NEPAQA_ANSWER_TOKENS")  # back to 600: room for the model to end by itself
    short = ask_lib.ask("Reply with one word: yes.", "compat/smollm2", "none", services=services, closed=False)
    assert short.error is None and short.cut_at is None  # the model ended it: no notice


def test_ask_in_all_four_modes_and_a_closed_question(compat, monkeypatch, services, sample_doc):
    """Each of Ask's context modes against the real server: no context, the whole PDF (fitted to the 2,048-token
    window the server states), retrieved passages with their pages, and a gold passage given; then a closed
    question, whose verdict is read from the server's JSON."""
    monkeypatch.setenv("NEPAQA_ANSWER_TOKENS", "48")  # short answers: the model's quality is not under test here
    question = "What does the EIS say about noise?"
    got = {mode: ask_lib.ask(question, "compat/smollm2", mode, services=services, doc_id=sample_doc.doc_id,
                             closed=False, gold=None)
           for mode in ("none", "pdf", "rag")}
    gold = got["rag"].contexts[0].text
    got["gold"] = ask_lib.ask(question, "compat/smollm2", "gold", services=services, closed=False, gold=gold)
    for mode, res in got.items():
        assert res.error is None and res.answer and res.mode == mode and res.model == "compat/smollm2", (mode, res.error)
        assert res.seconds > 0 and res.tokens_out > 0
    assert got["none"].contexts == []
    assert got["pdf"].truncated and got["pdf"].total_tokens > WINDOW  # the whole PDF does not fit: fitted, and said
    assert got["rag"].contexts and all(c.page_start and c.n for c in got["rag"].contexts)  # numbered, with pages
    assert [c.text for c in got["gold"].contexts] == [gold]
    monkeypatch.setenv("OPENAI_COMPAT_JSON_SCHEMA", "1")
    registry.reset()
    closed = ask_lib.ask("Does the EIS discuss noise?", "compat/smollm2", "rag", services=services,
                         doc_id=sample_doc.doc_id, closed=True)
    assert closed.error is None and closed.closed and closed.verdict is not None  # None: nothing could be read
    # asked with the schema, in the way this server takes
    assert server_facts.of(compat._endpoint(), "smollm2").way == "json_object"  # noqa: SLF001


def _answered(server) -> int:
    """The chat requests the server answered (200) so far."""
    return server.calls()[("POST", "/v1/chat/completions", 200)]


def test_a_judged_benchmark_of_six_items(compat, monkeypatch, tmp_path, llama_server):
    """A benchmark answered and judged by the server's model (4 closed items, scored on the verdict read from its
    JSON; 2 open ones, judged for RAGAS answer correctness and faithfulness): every answer is stored once, and
    every judge call that gave no usable reply is counted, never dropped."""
    monkeypatch.setenv("NEPAQA_ANSWER_TOKENS", "48")
    monkeypatch.setenv("OPENAI_COMPAT_JSON_SCHEMA", "1")
    registry.reset()
    eng = get_engine(f"sqlite:///{tmp_path / 'judged.db'}")
    items, _ = load_items(config.SAMPLE_QUESTIONS)
    closed = [it for it in items if it.question_type == "closed"][:4]
    opened = [it for it in items if it.question_type != "closed"][:2]
    before = _answered(llama_server)
    s = run_benchmark(closed + opened, RunConfig(models=["compat/smollm2"], modes=["gold"], judge="compat/smollm2"),
                      None, run_id="judged", engine=eng)
    assert _answered(llama_server) - before >= 6 + 2  # the 6 answers, and the judge asked about each open one
    assert s.n_items == 6 and s.answers == 6 and s.failures == 0 and s.judge == "compat/smollm2"
    assert s.metric == "answer_correctness"
    cell = s.scores["compat/smollm2"]["gold"]
    assert cell.n_open + cell.judge_failures + cell.no_statements == 2  # every open answer judged or counted
    assert cell.n_closed + cell.no_verdict + cell.unclear == 4
    stored = answers("judged", eng)
    assert len(stored) == 6 and all(a.seconds and a.seconds > 0 for a in stored)
    # the closed answers were asked with the schema, in the way this server takes (SmolLM2 explains at length: a
    # JSON object cut by the closed answers' 48-token cap keeps the verdict it gave first)
    assert server_facts.of(compat._endpoint(), "smollm2").way == "json_object"  # noqa: SLF001
    scored = [a.metrics["answer_correctness"].value for a in stored if "answer_correctness" in a.metrics
              and a.metrics["answer_correctness"].value is not None]
    assert all(0.0 <= v <= 1.0 for v in scored) and len(scored) == cell.n_open


def test_the_support_judge(compat, monkeypatch, llama_server):
    """The support judge asks the server's model about each sentence: each gets a verdict, or is listed with why
    it got none (the judge's failures are counted, never shown as a verdict)."""
    monkeypatch.setenv("OPENAI_COMPAT_JSON_SCHEMA", "1")
    registry.reset()
    model = registry.get("compat/smollm2")
    passage = Passage(1, "The project would build a 12-mile transmission line near Boise, Idaho. Construction would "
                         "take two years.", page="p. 3")
    answer = "The project would build a 12-mile transmission line [1]. Construction would take two years [1]."
    before = _answered(llama_server)
    report = judge_check(answer, [passage], model)
    assert _answered(llama_server) - before == 1  # one call, for both sentences, answered
    assert report.checker == "judge" and len(report.sentences) == 2
    for i, s in enumerate(report.sentences, 1):
        if s.status == NOT_JUDGED:  # no valid verdict: listed, with why
            assert any(f["sentence"] in (i, None) and f["reason"] for f in report.failures), report.failures
        else:
            assert s.status in VERDICTS and s.evidence is not None
    assert report.citations["valid"] == 2 and report.citations["invalid"] == []


def test_the_metadata_fill(compat, monkeypatch, tmp_path):
    """The metadata fill asks the server's model, with the schema (json_object), for the field the rules and a
    person left empty; its JSON reply is read, and the value is checked like a person's input: stored as the
    model's, or refused with why. A person's values are never changed."""
    monkeypatch.setenv("OPENAI_COMPAT_JSON_SCHEMA", "1")
    registry.reset()
    model = registry.get("compat/smollm2")
    eng = get_engine(f"sqlite:///{tmp_path / 'meta.db'}")
    with eng.begin() as c:
        c.execute(insert(tables.documents).values(
            doc_id="doc_a", name="alpha", sha256="a" * 64, status="ready:1", n_bytes=1, n_pages=1, n_chars=1,
            chunk_size=200, chunk_overlap=40, embed_model="test"))
    known = {"title": "Alpha Pipeline Project Final EIS", "project_title": "Alpha Pipeline Project",
             "lead_agency": "Bureau of Land Management", "cooperating_agencies": [], "prepared_by": [],
             "process_type": "EIS", "document_type": "Final EIS", "location": "Owyhee County", "states": ["ID"],
             "eis_number": "20120150"}
    M.set_values("doc_a", known, eng)  # a person's values: only the date is left to ask (a short reply)
    res = M.fill_with_model("doc_a", model, ["Alpha Pipeline Project\nFinal Environmental Impact Statement\n"
                                             "Bureau of Land Management\nMay 4, 2012"], eng)
    assert res.asked == ["publish_date"]
    assert set(res.filled) ^ set(res.rejected) == {"publish_date"}  # its JSON was read: a value, or why not
    got = M.get("doc_a", eng)
    assert all(got[k].source == "person" for k in known)
    if "publish_date" in res.filled:
        assert (got["publish_date"].value, got["publish_date"].source) == (res.filled["publish_date"], "model")
    else:
        assert got["publish_date"].value is None and res.rejected["publish_date"]


def _stored(eng, run_id: str) -> tuple[int, int]:
    t = tables.bench_answers
    with eng.connect() as c:
        total = c.execute(select(func.count()).select_from(t).where(t.c.run_id == run_id)).scalar()
        distinct = c.execute(select(func.count()).select_from(
            select(t.c.item_id, t.c.model, t.c.mode).where(t.c.run_id == run_id).distinct().subquery())).scalar()
    return int(total or 0), int(distinct or 0)


def test_the_server_killed_mid_run_and_started_again(monkeypatch, tmp_path):
    """A benchmark whose server is killed after its second answer: the answers given are kept, each answer the
    dead server could not give is recorded as a failure, and the run, resumed once the server is back on the same
    port, gives every answer exactly once."""
    server = model_servers.llama_cpp_python(tmp_path, WINDOW)
    try:
        _point_at(monkeypatch, server)
        monkeypatch.setenv("NEPAQA_ANSWER_TOKENS", "32")
        monkeypatch.setenv("NEPAQA_PROVIDER_RETRIES", "1")
        eng = get_engine(f"sqlite:///{tmp_path / 'killed.db'}")
        items, _ = load_items(config.SAMPLE20)

        def kill_after_two(done: int, total: int, msg: str) -> None:
            if done >= 2 and server.proc.poll() is None:
                server.kill()

        first = run_benchmark(items[:8], RunConfig(models=["compat/smollm2"], modes=["none"]), None,
                              run_id="killed", engine=eng, progress=kill_after_two, max_workers=1)
        assert server.proc.poll() is not None  # it was killed mid-run
        assert first.answers + first.failures == 8 and 2 <= first.answers < 8
        assert _stored(eng, "killed") == (8, 8)  # failures are stored as such, nothing twice
        server.restart()
        again = run_benchmark(None, None, None, run_id="killed", engine=eng, max_workers=1)
        assert again.answers == 8 and again.failures == 0
        assert _stored(eng, "killed") == (8, 8)
        kept = {a.item_id: a.answer for a in answers("killed", eng)}
        assert len(kept) == 8 and all(kept.values())
    finally:
        server.stop()

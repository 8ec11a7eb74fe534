"""A second, different real server: transformers' own OpenAI-compatible server (``transformers serve``: FastAPI over
PyTorch, where llama-cpp-python's is llama.cpp), loading the same SmolLM2 GGUF with a 2,048-token window on
127.0.0.1. It behaves differently, and the studio takes it as it behaves: it names its model by folder and file;
it answers a request for ``json_schema`` in plain text, ignoring the format, so the reply is read as text and that
way is not asked again; it rejects an over-long request in words of its own ("The prompt has 3031 tokens, but the
model takes at most 2048"), which the studio reads."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from lib.models import registry, server_facts
from lib.models.base import Request
from lib.qa import ask as ask_lib
from tests import model_servers

pytestmark = [pytest.mark.slow, pytest.mark.real_server]

WINDOW = 2048


@pytest.fixture(scope="module")
def hf_server():
    with model_servers.serving(model_servers.transformers_serve, "transformers serve", WINDOW) as server:
        yield server


@pytest.fixture
def compat(monkeypatch, hf_server):
    monkeypatch.setenv("OPENAI_COMPAT_BASE_URL", hf_server.url)
    monkeypatch.setenv("OPENAI_COMPAT_MODEL", hf_server.model)
    monkeypatch.delenv("OPENAI_COMPAT_CONTEXT", raising=False)
    monkeypatch.setenv("OPENAI_COMPAT_JSON_SCHEMA", "1")
    monkeypatch.setenv("NEPAQA_PROVIDER_TIMEOUT", "120")
    monkeypatch.setenv("NEPAQA_ANSWER_TOKENS", "48")
    registry.reset()
    yield registry.get(f"compat/{hf_server.model}")
    registry.reset()


def test_its_model_list_and_a_name_it_does_not_serve(compat, monkeypatch, hf_server):
    ok, why = compat.check()
    assert ok and why == f"model {hf_server.model}"
    monkeypatch.setenv("OPENAI_COMPAT_MODEL", "smollm2")  # what the other server calls it: not this one's name
    registry.reset()
    ok, why = registry.get("compat/smollm2").check()
    assert not ok and "does not list 'smollm2'" in why


def test_a_format_it_ignores_is_read_as_text_and_not_asked_again(compat, hf_server):
    """Asked for json_schema, then json_object, this server answers in plain text each time (status 200). Each
    reply is read as text (the verdict from its words), each ignored way is remembered, and the third question is
    asked in text from the start."""
    facts = server_facts.of(compat._endpoint(), hf_server.model)  # noqa: SLF001
    sent = []
    for question in ("Is the sky blue? Answer yes or no.", "Is water wet? Answer yes or no.",
                     "Is fire cold? Answer yes or no."):
        ans = compat.generate(Request(prompt=question, closed=True, structured=True, max_tokens=60))
        sent.append(ans.extra["structured_way"])
        assert ans.text and ans.verdict_source != "structured"
    assert sent == ["text", "text", "text"]
    assert facts.refused == {"json_schema", "json_object"} and facts.way is None
    assert hf_server.calls()[("POST", "/v1/chat/completions", 200)] >= 3


def test_its_own_words_for_a_request_too_long_are_read(compat, services, sample_doc):
    assert compat.context_window == 8192  # the default: this server reports no window before it rejects
    res = ask_lib.ask("What does the EIS say about noise?", compat.id, "pdf", services=services,
                      doc_id=sample_doc.doc_id)
    assert compat.context_window == WINDOW  # read from "… but the model takes at most 2048, prompt and answer"
    assert res.error is None and res.answer and res.truncated, res.error


def test_rag_with_citations_and_two_streams_at_once(compat, monkeypatch, services, sample_doc):
    res = ask_lib.ask("What does the EIS say about noise?", compat.id, "rag", services=services,
                      doc_id=sample_doc.doc_id, closed=False)
    assert res.error is None and res.answer and res.contexts and all(c.page_start for c in res.contexts)
    monkeypatch.setenv("NEPAQA_MODEL_LIMITS", f"{compat.id}=2")
    pieces: dict[int, list[str]] = {0: [], 1: []}

    def one(i: int) -> str:
        return compat.generate(Request(prompt=f"Name a color. ({i})", max_tokens=16, on_token=pieces[i].append)).text

    with ThreadPoolExecutor(2) as pool:
        texts = list(pool.map(one, (0, 1)))
    assert all(texts) and all(pieces.values()), (texts, pieces)  # both streamed, and both finished

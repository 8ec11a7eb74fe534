"""A real OpenAI-compatible server nobody here wrote: llama-cpp-python's own (``python -m llama_cpp.server``, through
``lib/models/llama_cpp_server.py``, which turns llama.cpp's extra buffer types off), serving the bundled SmolLM2
GGUF on 127.0.0.1 with a 2,048-token window. What it can do is asked, not assumed: its model list decides whether
the model shows as available; it refuses ``json_schema`` with a 500 and takes ``json_object`` with the schema,
which the studio finds once and remembers; a request longer than its window is rejected with the window in the
message, which the studio records and fits the next request to. The fake server (tests/fake_llm_server.py) stays
for hostile replies."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from lib.models import registry, server_facts
from lib.models.base import Request
from lib.qa import ask as ask_lib
from tests.conftest import ROOT

WINDOW = 2048
SERVER_LOG = [""]  # the running server's log file


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server():
    port = _free_port()
    log = open(os.path.join(os.environ["NEPAQA_HOME"], f"llama_server_{port}.log"), "w")  # noqa: SIM115
    proc = subprocess.Popen([sys.executable, "-m", "lib.models.llama_cpp_server", "--model", "smollm2",
                             "--model_alias", "smollm2", "--host", "127.0.0.1", "--port", str(port),
                             "--n_ctx", str(WINDOW)], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    SERVER_LOG[0] = log.name  # the server's access log: its requests and their statuses
    try:
        for _ in range(240):
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=1) as r:
                    if json.loads(r.read())["data"]:
                        break
            except OSError:
                time.sleep(0.25)
        else:
            pytest.fail("llama-cpp-python's server did not start in 60 s")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        log.close()


@pytest.fixture
def compat(monkeypatch, llama_server):
    monkeypatch.setenv("OPENAI_COMPAT_BASE_URL", llama_server)
    monkeypatch.setenv("OPENAI_COMPAT_MODEL", "smollm2")
    monkeypatch.delenv("OPENAI_COMPAT_CONTEXT", raising=False)
    monkeypatch.setenv("NEPAQA_PROVIDER_TIMEOUT", "120")
    registry.reset()
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
    monkeypatch.setenv("OPENAI_COMPAT_BASE_URL", f"http://127.0.0.1:{_free_port()}/v1")  # nothing listens there
    registry.reset()
    ok, why = _status("compat/llama3")
    assert not ok and "does not answer" in why and "start it" in why


def _refusals() -> int:
    """The 500s in the server's access log so far."""
    with open(SERVER_LOG[0]) as f:
        return sum(1 for line in f if "POST /v1/chat/completions" in line and " 500" in line)


def test_structured_output_falls_back_to_json_object_and_remembers_it(compat, monkeypatch):
    monkeypatch.setenv("OPENAI_COMPAT_JSON_SCHEMA", "1")
    registry.reset()
    model = registry.get("compat/smollm2")
    before = _refusals()
    ans = model.generate(Request(prompt="Is the sky blue? Answer yes or no.", closed=True, structured=True,
                                 max_tokens=200))  # room for the whole JSON object: a cut one is read as text
    facts = server_facts.of(model._endpoint(), "smollm2")  # noqa: SLF001
    assert facts.refused == {"json_schema"} and facts.way == "json_object"
    assert ans.extra["structured_way"] == "json_object"
    assert ans.verdict in ("yes", "no") and ans.verdict_source == "structured"  # the server's JSON was read
    assert _refusals() - before == 1  # the refusal (a 500) was not retried
    again = model.generate(Request(prompt="Is water wet? Answer yes or no.", closed=True, structured=True,
                                   max_tokens=200))
    assert again.extra["structured_way"] == "json_object" and facts.refused == {"json_schema"}
    assert _refusals() - before == 1  # remembered: json_schema was not asked again


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
    from concurrent.futures import ThreadPoolExecutor

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
    from lib.app import ask as ask_case

    assert compat.answer_cap(200) == 600 and "answers up to 600 tokens" in ask_case.sent_options("compat/smollm2")
    monkeypatch.setenv("NEPAQA_ANSWER_TOKENS", "compat/smollm2=8,openai/gpt-4o-mini=400")
    res = ask_lib.ask("Describe the environmental effects of a new highway in detail.", "compat/smollm2", "none",
                      services=services, closed=False)
    assert res.error is None and res.answer and res.cut_at == 8
    assert res.cli_dict()["cut_at"] == 8
    monkeypatch.delenv("NEPAQA_ANSWER_TOKENS")  # back to 600: room for the model to end by itself
    short = ask_lib.ask("Reply with one word: yes.", "compat/smollm2", "none", services=services, closed=False)
    assert short.error is None and short.cut_at is None  # the model ended it: no notice

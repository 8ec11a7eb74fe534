"""What a server's rejection says about its window, in the forms the servers write it (lib/models/server_facts.py)."""
from __future__ import annotations

import pytest

from lib.models import server_facts
from lib.models.server_facts import stated_window
from tests.fake_llm_server import FakeLLMServer

SAID = [
    ("This model's maximum context length is 4096 tokens. However, you requested 6381 tokens (6371 in the "
     "messages, 10 in the completion). Please reduce the length of the messages or completion.", (4096, 6381)),
    ("This model's maximum context length is 2048 tokens. However, you requested 2100 tokens", (2048, 2100)),
    ("The decoder prompt (5000 tokens) is longer than the maximum model length of 4096. Make sure that", (4096, 5000)),
    ("request (5000 tokens) exceeds the available context size (4096 tokens), try increasing it", (4096, 5000)),
    ("The prompt has 3031 tokens, but the model takes at most 2048, prompt and answer (`--max-model-len`).",
     (2048, 3031)),
    ("the request exceeds the available context size, try increasing it", None),  # its body's n_ctx says it
    ("requested 5000 tokens exceeds the context window; batch size 512", None),  # 512 is no window
    ("Input should be 'text' or 'json_object'", None),
    (None, None),
]


@pytest.mark.parametrize(("message", "window"), SAID)
def test_the_window_a_rejection_states(message, window):
    assert stated_window(message) == window


# ----- the window a server reports, read from a real HTTP server on loopback ------------------------------------
OLLAMA_SHOW = {"modelfile": "FROM llama3", "parameters": "stop \"<|eot_id|>\"", "template": "{{ .Prompt }}",
               "details": {"family": "llama", "parameter_size": "8.0B"},
               "model_info": {"general.architecture": "llama", "llama.context_length": 8192}}


def _window(srv, model: str = "llama3") -> tuple[int | None, str]:
    server_facts.forget()
    ok, why = server_facts.served(srv.url + "/v1", model)
    assert ok, why
    f = server_facts.of(server_facts.endpoint_key(srv.url + "/v1"), model)
    return f.window, f.window_from


def test_vllm_reports_its_window_in_the_model_list():
    with FakeLLMServer() as srv:
        assert _window(srv) == (None, "")  # a server that reports nothing: no window recorded (the setting stands)
        srv.model_fields = {"max_model_len": 32768}
        assert _window(srv) == (32768, "the server's model list")
        assert server_facts.served(srv.url + "/v1", "llama3") == (True, "model llama3, a window of 32,768 tokens")


def test_ollama_window_from_the_running_model_its_parameters_or_its_default():
    """Ollama cuts a longer prompt silently rather than rejecting it, so its window must be read before asking:
    the running model's (/api/ps), else the num_ctx of its parameters, else Ollama's default, never above the
    model's trained length."""
    with FakeLLMServer() as srv:
        srv.served = ["llama3:latest"]
        srv.ollama = {"show": OLLAMA_SHOW, "ps": {"models": []}}
        window, said = _window(srv)
        assert window == server_facts.OLLAMA_DEFAULT_WINDOW == 2048 and "OPENAI_COMPAT_CONTEXT" in said
        srv.ollama["show"] = {**OLLAMA_SHOW, "parameters": "num_ctx 16384\nstop \"<|eot_id|>\""}
        assert _window(srv) == (8192, "the model's num_ctx (/api/show)")  # above the trained 8,192: cut to it
        srv.ollama["show"] = {**OLLAMA_SHOW, "parameters": "num_ctx 6000"}
        assert _window(srv) == (6000, "the model's num_ctx (/api/show)")
        srv.ollama["ps"] = {"models": [{"name": "llama3:latest", "context_length": 2048}]}
        assert _window(srv) == (2048, "Ollama's running model (/api/ps)")
        srv.ollama["ps"] = None  # an older Ollama without /api/ps
        assert _window(srv) == (6000, "the model's num_ctx (/api/show)")


def test_a_window_the_server_stated_in_a_rejection_is_kept_over_a_reported_one():
    with FakeLLMServer() as srv:
        srv.model_fields = {"max_model_len": 32768}
        server_facts.forget()
        endpoint = server_facts.endpoint_key(srv.url + "/v1")
        exc = Exception()
        assert server_facts.learn_window(endpoint, "llama3", exc, "maximum context length is 4096 tokens", None) == 4096
        assert server_facts.served(srv.url + "/v1", "llama3")[0]
        assert server_facts.of(endpoint, "llama3").window == 4096


@pytest.mark.parametrize(("url", "shown"), [
    ("http://user:secret@LocalHost:8000/v1?key=abc", "http://localhost:8000/v1"),
    ("http://[::1]:8080/v1/", "http://[::1]:8080/v1"),
    ("http://127.0.0.1:notaport/v1", None),  # no crash: no URL
    ("", None),
])
def test_a_url_as_kept_and_shown(url, shown):
    assert server_facts.public_url(url) == shown
    assert server_facts.endpoint_key(url) == (shown or "default")

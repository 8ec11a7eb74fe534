"""The real openai and anthropic clients against a local server that speaks their APIs."""
import logging

import pytest

from lib.providers import registry
from lib.providers.base import ProviderError, Request
from tests.fake_llm_server import FakeLLMServer

KEY = "sk-test-SUPERSECRETKEY1234567890"


@pytest.fixture
def server(monkeypatch):
    with FakeLLMServer() as srv:
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", srv.url + "/v1")
        monkeypatch.setenv("OPENAI_MODEL", "gpt-test")
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY.replace("sk-", "sk-ant-"))
        monkeypatch.setenv("ANTHROPIC_BASE_URL", srv.url)
        monkeypatch.setenv("OPENAI_COMPAT_BASE_URL", srv.url + "/v1")
        monkeypatch.setenv("OPENAI_COMPAT_MODEL", "llama3")
        monkeypatch.setenv("NEPAQA_PROVIDER_TIMEOUT", "1")
        monkeypatch.setenv("NEPAQA_PROVIDER_RETRIES", "2")
        registry.reset()
        yield srv
    registry.reset()


REQ = Request(prompt="Did USFWS participate?", system="Be brief.", max_tokens=20)


@pytest.mark.parametrize("pid", ["openai", "anthropic", "openai-compatible"])
def test_normal_answer(server, pid):
    ans = registry.get(pid).generate(REQ)
    assert ans.text == "Yes, the agency consulted USFWS."
    assert (ans.tokens_in, ans.tokens_out) == (42, 7)
    req = server.requests[-1]
    if pid == "anthropic":
        assert req["path"].endswith("/v1/messages") and req["body"]["system"] == "Be brief."
        sent = req["headers"].get("x-api-key") or req["headers"]["authorization"].removeprefix("Bearer ")
        assert sent.startswith("sk-ant-test")
    else:
        assert req["path"].endswith("/chat/completions")
        assert req["body"]["messages"][0] == {"role": "system", "content": "Be brief."}


@pytest.mark.parametrize("pid", ["openai", "anthropic"])
def test_429_then_success_is_retried(server, pid):
    server.script.extend([("429",), ("ok", "Recovered.")])
    assert registry.get(pid).generate(REQ).text == "Recovered."
    assert len(server.requests) == 2


@pytest.mark.parametrize("pid", ["openai", "anthropic"])
def test_timeout(server, pid):
    server.script.extend([("sleep", 2.5)] * 3)
    with pytest.raises(ProviderError, match="timed out"):
        registry.get(pid).generate(REQ)


@pytest.mark.parametrize("pid", ["openai", "anthropic"])
def test_500_after_retries(server, pid):
    server.script.extend([("500",)] * 3)
    with pytest.raises(ProviderError, match="server error 500"):
        registry.get(pid).generate(REQ)
    assert len(server.requests) == 3  # first try + 2 retries


@pytest.mark.parametrize("pid", ["openai", "anthropic"])
def test_malformed_body(server, pid):
    server.script.append(("malformed",))
    with pytest.raises(ProviderError, match="unexpected response"):
        registry.get(pid).generate(REQ)


@pytest.mark.parametrize("pid", ["openai", "anthropic"])
def test_key_never_leaks(server, pid, caplog):
    caplog.set_level(logging.DEBUG)
    for name in ("openai", "anthropic", "httpx", "httpcore"):
        logging.getLogger(name).setLevel(logging.DEBUG)
    server.script.append(("401",))
    with pytest.raises(ProviderError) as err:
        registry.get(pid).generate(REQ)
    secret_core = "SUPERSECRETKEY1234567890"
    assert "refused the key" in str(err.value)
    assert secret_core not in str(err.value) and secret_core not in repr(err.value)
    assert err.value.__cause__ is None  # the SDK error (which may quote the key) is not chained
    assert secret_core not in caplog.text
    logging.getLogger("lib.test").warning("leaked %s", KEY)
    assert secret_core not in caplog.text


def test_unconfigured_providers_are_unavailable_with_reason(monkeypatch):
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_COMPAT_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    registry.reset()
    status = {p.id: (ok, why) for p, ok, why in registry.status_all()}
    assert status["openai"] == (False, "set OPENAI_API_KEY in the environment or .streamlit/secrets.toml")
    assert not status["anthropic"][0] and "ANTHROPIC_API_KEY" in status["anthropic"][1]
    assert not status["openai-compatible"][0] and "OPENAI_COMPAT_BASE_URL" in status["openai-compatible"][1]
    assert status["extractive"][0]
    assert not status["gguf"][0]
    registry.reset()

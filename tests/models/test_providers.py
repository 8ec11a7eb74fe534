"""The real openai and anthropic clients against a local server that speaks their APIs."""
import json
import logging
import time

import pytest

from lib.models import registry, server_facts
from lib.models.base import ProviderError, Request
from lib.qa import ask as ask_lib
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


@pytest.mark.parametrize("pid", ["openai", "anthropic", "compat"])
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


def test_unconfigured_models_are_unavailable_with_reason(monkeypatch):
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_COMPAT_BASE_URL", "OPENAI_MODEL", "ANTHROPIC_MODEL"):
        monkeypatch.delenv(var, raising=False)
    registry.reset()
    status = {p.id: (ok, why) for p, ok, why in registry.status_all()}
    assert status["openai/gpt-4o-mini"] == (False, "set OPENAI_API_KEY in the environment or .streamlit/secrets.toml")
    assert not status["anthropic/claude-3-5-haiku-latest"][0]
    assert "ANTHROPIC_API_KEY" in status["anthropic/claude-3-5-haiku-latest"][1]
    assert status["local/extractive"][0] and status["local/smollm2-135m"][0]
    assert not any(i.startswith(("compat/", "gguf/")) for i in status)  # listed once a URL / file is set
    registry.reset()


def test_ids_are_concrete_and_aliases_resolve(server, monkeypatch):
    from lib.core.errors import UserError

    monkeypatch.setenv("OPENAI_MODEL", "gpt-4o-mini, gpt-4o")
    monkeypatch.setenv("ANTHROPIC_MODEL", "claude-3-5-haiku-latest,claude-sonnet-4-5")
    registry.reset()
    ids = [p.id for p in registry.all_models()]
    assert ids[:2] == ["local/smollm2-135m", "local/extractive"]
    assert {"openai/gpt-4o-mini", "openai/gpt-4o", "anthropic/claude-3-5-haiku-latest",
            "anthropic/claude-sonnet-4-5", "compat/llama3"} <= set(ids)
    assert registry.resolve("smollm2") == "local/smollm2-135m" and registry.resolve("extractive") == "local/extractive"
    assert registry.resolve("openai") == "openai/gpt-4o-mini" and registry.resolve("openai-compatible") == "compat/llama3"
    with pytest.raises(UserError, match="not configured.*OPENAI_MODEL"):
        registry.get("openai/gpt-5")
    with pytest.raises(UserError, match="Unknown model 'nope'"):
        registry.get("nope")


CLOSED = Request(prompt="Did USFWS participate?", max_tokens=40, closed=True, structured=True)


def test_openai_asks_for_a_json_schema_verdict(server):
    server.script.append(("ok", '{"verdict": "no", "explanation": "The EIS lists no USFWS comments."}'))
    ans = registry.get("openai").generate(CLOSED)
    body = server.requests[-1]["body"]
    assert body["response_format"]["type"] == "json_schema" and body["temperature"] == 0
    assert body["response_format"]["json_schema"]["schema"]["properties"]["verdict"]["enum"] == ["yes", "no", "unclear"]
    assert (ans.verdict, ans.verdict_source) == ("no", "structured")
    assert ans.text == "No. The EIS lists no USFWS comments."


def _cut_reply(content: str) -> tuple:
    return ("json", {"id": "c1", "object": "chat.completion", "created": 0, "model": "gpt-test",
                     "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                  "finish_reason": "length"}],
                     "usage": {"prompt_tokens": 42, "completion_tokens": 40, "total_tokens": 82}})


def test_a_verdict_object_cut_by_the_cap_after_its_verdict_keeps_the_verdict(server):
    """A verbose model's JSON cut by the closed answers' cap (finish reason "length") after its first field: the
    verdict it gave stands, and the answer says it was cut. Cut before the verdict was complete, nothing is read."""
    server.script.append(_cut_reply('{\n  "verdict": "no",\n  "explanation": "The sky is not necessarily blue. It can'))
    ans = registry.get("openai").generate(CLOSED)
    assert (ans.verdict, ans.verdict_source, ans.cut) == ("no", "structured", True)
    assert ans.text == "No. The sky is not necessarily blue. It can…"  # as much of the explanation as came
    server.script.append(_cut_reply('{\n  "verdict": "ye'))
    ans = registry.get("openai").generate(CLOSED)
    assert (ans.verdict, ans.verdict_source, ans.cut) == (None, "text", True)
    server.script.append(_cut_reply('{"explanation": "Yes, it is clear that", "verdict": "yes"'))  # not its first field
    ans = registry.get("openai").generate(CLOSED)
    assert ans.verdict is None and ans.verdict_source == "text"


def test_a_server_that_ignores_the_schema_is_read_as_text_not_failed(server):
    server.script.append(("ok", "Yes, the U.S. Fish and Wildlife Service took part."))
    ans = registry.get("openai").generate(CLOSED)
    assert ans.verdict is None and ans.verdict_source == "text"
    server.script.append(("ok", "Yes, the U.S. Fish and Wildlife Service took part."))
    r = ask_lib.ask("Did USFWS participate?", "openai", "none", closed=True)
    assert r.error is None and (r.verdict, r.verdict_source) == ("yes", "text")
    # a compatible server declares no schema support by default: plain text, parsed
    server.script.append(("ok", "No."))
    r = ask_lib.ask("Did USFWS participate?", "compat", "none", closed=True)
    assert "response_format" not in server.requests[-1]["body"] and (r.verdict, r.verdict_source) == ("no", "text")


def test_anthropic_forces_a_tool_call_and_sends_temperature_zero(server):
    from tests.fake_llm_server import FakeLLMServer

    def tool_reply(path, text):
        return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
                "content": [{"type": "tool_use", "id": "tu_1", "name": "record_verdict",
                             "input": {"verdict": "yes", "explanation": "Table 5-1 lists USFWS."}}],
                "stop_reason": "tool_use", "stop_sequence": None, "usage": {"input_tokens": 50, "output_tokens": 9}}

    original = FakeLLMServer._ok
    FakeLLMServer._ok = staticmethod(tool_reply)
    try:
        ans = registry.get("anthropic").generate(CLOSED)
    finally:
        FakeLLMServer._ok = staticmethod(original)
    body = server.requests[-1]["body"]
    assert body["temperature"] == 0 and body["tool_choice"] == {"type": "tool", "name": "record_verdict"}
    assert body["tools"][0]["input_schema"]["required"] == ["verdict", "explanation"]
    assert (ans.verdict, ans.verdict_source, ans.tokens_in) == ("yes", "structured", 50)
    # an open question: plain text, temperature still 0
    registry.get("anthropic").generate(REQ)
    assert server.requests[-1]["body"]["temperature"] == 0 and "tools" not in server.requests[-1]["body"]


def test_plugins_register_models_the_way_built_ins_do(monkeypatch):
    """An installed package adds a model family through the nepaqa.models entry point with the same hook."""
    import importlib.metadata as md

    from lib.models.base import Answer, Provider

    class Echo(Provider):
        family, model_name, label = "plugin", "echo", "Echo (plugin)"

        def _generate(self, req):
            return Answer(req.prompt)

    class EP:
        name = "echo"

        @staticmethod
        def load():
            return lambda register: register(Echo())

    class Broken:
        name = "broken"

        @staticmethod
        def load():
            raise ImportError("missing dependency")

    real = md.entry_points
    monkeypatch.setattr(md, "entry_points", lambda **kw: [EP, Broken] if kw.get("group") == "nepaqa.models" else real(**kw))
    registry.reset()
    ids = [p.id for p in registry.all_models()]
    assert "plugin/echo" in ids and "local/smollm2-135m" in ids  # a broken plugin does not take others down
    assert registry.get("plugin/echo").generate(Request(prompt="hi")).text == "hi"
    registry.reset()


@pytest.mark.parametrize("pid", ["openai", "anthropic", "compat"])
def test_streamed_answer_arrives_in_pieces_and_equals_the_whole(server, pid):
    pieces: list[str] = []
    req = Request(prompt="Did USFWS participate?", system="Be brief.", max_tokens=20, on_token=pieces.append)
    ans = registry.get(pid).generate(req)
    assert ans.text == "Yes, the agency consulted USFWS."
    assert len(pieces) > 3 and "".join(pieces) == "Yes, the agency consulted USFWS."
    assert server.requests[-1]["body"]["stream"] is True
    if pid != "compat":
        assert (ans.tokens_in, ans.tokens_out) == (42, 7)  # the usage the stream reported


def test_a_closed_question_asked_for_structure_is_not_streamed(server):
    server.default = ("ok", '{"verdict": "yes", "explanation": "USFWS was consulted."}')
    pieces: list[str] = []
    req = Request(prompt="Did USFWS participate?", closed=True, structured=True, on_token=pieces.append)
    ans = registry.get("openai").generate(req)
    assert ans.verdict == "yes" and pieces == [] and "stream" not in server.requests[-1]["body"]


@pytest.mark.parametrize("how", ["stream_broken", "stream_cut"])
@pytest.mark.parametrize("pid", ["openai", "anthropic"])
def test_a_broken_stream_is_one_clear_failure(server, pid, how):
    server.script.extend([(how,)] * 3)
    with pytest.raises(ProviderError) as err:
        registry.get(pid).generate(Request(prompt="q", on_token=lambda _p: None))
    assert KEY not in str(err.value) and "Traceback" not in str(err.value)


def test_a_cut_stream_is_asked_again_whole_and_says_so_if_that_fails(server):
    """A stream that stops without a finish reason is asked again once, whole (not streamed); it answers, or the
    failure says first that the server ended the answer early."""
    server.script.extend([("stream_cut",), ("ok", "The whole answer.")])
    assert registry.get("openai").generate(Request(prompt="q", on_token=lambda _p: None)).text == "The whole answer."
    assert "stream" not in server.requests[-1]["body"]  # the second time, not streamed
    server.script.extend([("stream_cut",), ("500",), ("500",), ("500",)])
    with pytest.raises(ProviderError) as err:
        registry.get("openai").generate(Request(prompt="q", on_token=lambda _p: None))
    assert str(err.value).startswith("OpenAI gpt-test: the server ended the answer early, and asked again whole: "
                                     "server error 500"), str(err.value)


def test_a_streamed_key_is_never_shown_even_in_part(server):
    """A hostile server streams the caller's key back a few characters at a time: what the page would draw at
    every step (ask_grid's partial text) never holds any part of the key longer than the pattern's prefix."""
    from lib.qa import ask as ask_lib

    server.default = ("echo_key",)
    server.stream_delay = 0.15  # slow enough for the page to draw several partial answers
    shown: list[str] = []
    [res] = ask_lib.ask_grid("What did USFWS say about the site?", ["openai"], ["none"],
                             on_partial=lambda _m, _mode, text: shown.append(text))
    assert shown, "the answer should have streamed"
    assert all(KEY[3:12] not in s for s in shown)
    assert KEY not in (res.answer or "") and "***" in (res.answer or "")


def test_a_local_models_time_is_its_own_not_the_queue(request):
    """Four threads share a local (serialised) model: each answer's time is its own 0.2 s, not the up to 0.8 s it
    waited, so estimates made from stored times add up to what a run takes (a benchmark estimate once jumped from
    53 s to 6 min after a run because queued time was stored)."""
    import threading
    import time as _time

    from lib.models.base import Answer, ModelOptions, Provider
    from lib.qa.ask import ask

    class Slow(Provider):
        family, model_name, label, concurrent, local = "test", "slow-local", "Slow local", False, True
        options = ModelOptions()

        def _generate(self, req):  # noqa: ANN001, ANN202
            _time.sleep(0.2)
            return Answer(text="An answer.")

    model = registry.register(Slow())
    request.addfinalizer(lambda: registry._REGISTRY.pop(model.id, None))  # noqa: SLF001 - this test's model only
    got: list[float] = []
    started = _time.perf_counter()
    threads = [threading.Thread(target=lambda: got.append(ask("What is proposed?", model.id, "none").seconds))
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = _time.perf_counter() - started
    assert wall >= 0.8 and len(got) == 4  # they did queue
    assert all(0.19 <= s < 0.35 for s in got), got


@pytest.mark.parametrize("pid", ["openai", "anthropic"])
def test_an_answers_time_leaves_out_a_rate_limits_pause_and_the_retry_backoff(server, pid):
    """A 429 asking for 1.5 s, then a 500 (the SDK's own backoff before its retry), then the answer: the call
    takes over 1.5 s, but the answer's seconds are the three tries' own (a few ms each), so an estimate built from
    stored times is not inflated by the waiting (issue 43: estimates came out 2.7× too long)."""
    registry.get(pid).generate(REQ)  # the SDK loaded and its client made (once per process), before the timing
    server.script.extend([("429", 1.5), ("500",), ("ok", "Recovered.")])
    started = time.perf_counter()
    res = ask_lib.ask("Did USFWS participate?", pid, "none")
    wall = time.perf_counter() - started
    assert res.error is None and res.answer == "Recovered." and len(server.requests) == 4
    assert wall >= 1.5
    assert res.seconds < 0.5, (res.seconds, wall)
    # the clock is per call: a following call's time is its own, not the earlier backoff
    server.script.append(("ok", "Again."))
    assert registry.get(pid).generate(REQ).seconds < 0.5


@pytest.mark.parametrize("pid", ["openai", "anthropic"])
def test_a_timed_out_try_counts_and_the_backoff_after_it_does_not(server, pid):
    """A try that times out (1 s) has no response; the SDK waits (about 0.4–0.5 s) and asks again, and the answer
    comes: the timed-out try is the call's time, the backoff after it is not."""
    registry.get(pid).generate(REQ)  # the SDK loaded and its client made (once per process), before the timing
    server.script.extend([("sleep", 2.5), ("ok", "Recovered.")])
    started = time.perf_counter()
    ans = registry.get(pid).generate(REQ)
    wall = time.perf_counter() - started
    assert ans.text == "Recovered." and len(server.requests) == 3
    assert 0.9 <= ans.seconds <= wall - 0.3, (ans.seconds, wall)


def test_threads_that_ask_the_registry_first_all_see_every_model(monkeypatch):
    import threading

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_MODEL", "gpt-first")
    for _ in range(5):  # a worker's first cells ask at once; none may see a half-made registry
        registry.reset()
        seen: list[bool] = []
        start = threading.Barrier(4)

        def ask() -> None:
            start.wait()
            seen.append("openai/gpt-first" in {p.id for p in registry.all_providers()})

        threads = [threading.Thread(target=ask) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert seen == [True] * 4
    registry.reset()


def test_whether_a_model_may_judge_is_its_own_declaration(server):
    """One rule, asked of the model: the extractive baseline cannot judge, the bundled SmolLM2 can but only with a
    warning, a connected model judges without one. Every caller (arena, review judge, support judge, metadata fill,
    translation, the pickers) asks these properties."""
    extractive, smol = registry.get(registry.EXTRACTIVE), registry.get(registry.SMOLLM2)
    connected = registry.get("openai/gpt-test")
    assert (extractive.can_judge, extractive.judges_reliably, extractive.judge_warning()) == (False, False, None)
    assert (smol.can_judge, smol.judges_reliably) == (True, False)
    assert "far too small to judge" in smol.judge_warning()
    assert (connected.can_judge, connected.judges_reliably, connected.judge_warning()) == (True, True, None)


def test_a_server_failure_on_the_command_line_is_exit_1_with_the_servers_words(server, tmp_path):
    """Exit 2 is for a user's mistake; a server that fails is exit 1, and its own explanation reaches the user
    with the key redacted."""
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    (tmp_path / "ctx.txt").write_text("[1] The agency consulted the U.S. Fish and Wildlife Service.\n")
    (tmp_path / "ans.txt").write_text("The agency consulted USFWS [1].\n")
    server.default = ("500",)  # every call: 500 {"error": {"message": "boom"}}
    got = subprocess.run([sys.executable, "-m", "lib", "support", "--context-file", str(tmp_path / "ctx.txt"),
                          "--answer-file", str(tmp_path / "ans.txt"), "--checker", "judge", "--model",
                          "compat/llama3"], cwd=ROOT, env=dict(os.environ), capture_output=True, text=True,
                         timeout=120)
    assert got.returncode == 1, got.stderr
    assert got.stderr.startswith("error: ") and "server error 500" in got.stderr
    assert "The server said: “boom”" in got.stderr and KEY not in got.stderr + got.stdout


def test_a_server_on_this_machine_takes_one_call_at_a_time_unless_set(server, monkeypatch):
    """The per-model limit binds threads within one process; a loopback server's default is 1 (such servers
    cut a running stream when another request arrives); the setting overrides it."""
    import threading

    def two_at_once(model_id: str) -> int:
        server.most_in_flight = 0
        server.script.extend([("sleep", 0.4), ("sleep", 0.4)])
        model = registry.get(model_id)
        threads = [threading.Thread(target=model.generate, args=(REQ,)) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return server.most_in_flight

    assert registry.get("compat/llama3").call_limit() == 1
    assert two_at_once("compat/llama3") == 1
    monkeypatch.setenv("NEPAQA_MODEL_LIMITS", "compat/llama3=2")
    registry.reset()
    assert two_at_once("compat/llama3") == 2


def test_a_server_gone_mid_session_says_where_and_pages_show_it_down(monkeypatch):
    """The server answered its model list, then went away: the next call says which server could not be reached
    and what to set, and pages (which never wait on the network) show the model as not answering until the next
    check, not as available."""
    monkeypatch.setenv("NEPAQA_PROVIDER_RETRIES", "0")
    with FakeLLMServer() as srv:
        monkeypatch.setenv("OPENAI_COMPAT_BASE_URL", srv.url + "/v1")
        monkeypatch.setenv("OPENAI_COMPAT_MODEL", "llama3")
        registry.reset()
        server_facts.forget()
        model = registry.get("compat/llama3")
        assert model.generate(REQ).text == "Yes, the agency consulted USFWS."
        url = srv.url
    with pytest.raises(ProviderError) as caught:  # the server has stopped
        model.generate(REQ)
    assert str(caught.value) == (f"llama3 (OpenAI-compatible server): could not connect to the server at {url}/v1; "
                                 "start it, or check OPENAI_COMPAT_BASE_URL")
    ok, why = next((ok, why) for p, ok, why in registry.status_all() if p.id == "compat/llama3")
    assert not ok and why == f"could not connect to the server at {url}/v1; start it, or check OPENAI_COMPAT_BASE_URL"
    ok, why = next((ok, why) for p, ok, why in registry.recheck_servers() if p.id == "compat/llama3")  # asked now:
    # still nothing there, in words (no exception's name)
    assert not ok and why == (f"the server at {url}/v1 does not answer (nothing answers at that address); start it, "
                              "or check OPENAI_COMPAT_BASE_URL")
    registry.reset()
    server_facts.forget()


def test_structured_output_ways_on_a_compatible_server(server, monkeypatch):
    """json_schema, then json_object with the schema, then text: a refusal naming the format (a 500, as
    llama-cpp-python sends) is not retried and the next way is asked at once; what worked is remembered; a way the
    server takes and ignores (plain text back) is read as text and not asked again; JSON back keeps the way."""
    monkeypatch.setenv("OPENAI_COMPAT_JSON_SCHEMA", "1")
    registry.reset()
    server_facts.forget()
    model = registry.get("compat/llama3")
    refusal = json.dumps({"error": {"message": "1 validation error: response_format.type Input should be 'text' or "
                                               "'json_object'", "type": "internal_server_error"}}).encode()
    server.script.extend([("raw", 500, refusal, "application/json"), ("ok", '{"verdict": "yes", "explanation": "It did."}')])
    ans = model.generate(CLOSED)
    kinds = [r["body"].get("response_format", {}).get("type") for r in server.requests if "messages" in r["body"]]
    assert kinds == ["json_schema", "json_object"]  # the refusal was not retried
    assert (ans.verdict, ans.verdict_source, ans.extra["structured_way"]) == ("yes", "structured", "json_object")
    facts = server_facts.of(model._endpoint(), "llama3")  # noqa: SLF001
    assert facts.way == "json_object" and facts.refused == {"json_schema"}
    server.script.append(("ok", '{"verdict": "no", "explanation": "It did not."}'))
    assert model.generate(CLOSED).verdict == "no"
    assert server.requests[-1]["body"]["response_format"]["type"] == "json_object"  # remembered

    server_facts.forget()  # another server, which takes the format and ignores it
    server.script.append(("ok", "Yes, the agency took part."))
    ans = model.generate(CLOSED)
    assert ans.extra["structured_way"] == "text" and ans.verdict_source == "text"
    assert server_facts.of(model._endpoint(), "llama3").refused == {"json_schema"}  # noqa: SLF001
    server.script.append(("ok", '{"verdict": "yes", "explanation": "Table 5-1."}'))
    ans = model.generate(CLOSED)
    assert server.requests[-1]["body"]["response_format"]["type"] == "json_object"  # json_schema not asked again
    assert ans.extra["structured_way"] == "json_object" and ans.verdict == "yes"
    server.script.append(("ok", ""))  # an empty reply tells nothing: the way is kept
    model.generate(CLOSED)
    assert server_facts.of(model._endpoint(), "llama3").way == "json_object"  # noqa: SLF001
    server_facts.forget()

"""OpenAI, any OpenAI-compatible server (Ollama, vLLM, llama.cpp server, LM Studio) and Anthropic, through
their official SDKs. Timeouts and retries with backoff on 429/5xx are the SDKs' own (max_retries); a 429's
Retry-After also pauses that model for every other process and worker (lib/storage/model_gates.py), and every
request waits out such a pause first.

One model class per family; each configured model name (``OPENAI_MODEL=gpt-4o-mini,gpt-4o``) is one concrete
model. Models of one family and endpoint share one SDK client.
"""
from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlsplit

from lib.core import config
from lib.core.json_types import JSONObject
from lib.core.redaction import install_log_redaction, redact
from lib.models import server_facts, wait_clock
from lib.models.base import (
    DEFAULT_CALL_LIMIT,
    JSON_SCHEMA,
    TOOL_USE,
    VERDICT_SCHEMA,
    Answer,
    ModelOptions,
    Provider,
    ProviderError,
    Request,
    call_limit,
    structured_verdict,
)
from lib.storage import model_gates

if TYPE_CHECKING:  # the SDKs are heavy: imported when the first client is made (see _Clients.get)
    import anthropic
    import openai

# Known context windows (tokens); anything else gets the family's default or the *_CONTEXT setting.
KNOWN_WINDOWS = {
    "gpt-4o": 128_000, "gpt-4o-mini": 128_000, "gpt-4.1": 1_047_576, "gpt-4.1-mini": 1_047_576,
    "gpt-4.1-nano": 1_047_576, "gpt-4-turbo": 128_000, "gpt-3.5-turbo": 16_385,
}


CONNECTED_ANSWER_TOKENS = 600  # a connected model's open answers: room to finish (SmolLM2's stay brief)


def timeout_s() -> float:
    return float(config.get("NEPAQA_PROVIDER_TIMEOUT") or 60)


def max_retries() -> int:
    """Retries on 408/409/429/5xx and timeouts, with exponential backoff (the SDKs' own)."""
    return int(config.get("NEPAQA_PROVIDER_RETRIES") or 3)


def model_names(setting: str, default: str) -> list[str]:
    """The comma-separated model names of a setting (``OPENAI_MODEL=gpt-4o-mini,gpt-4o``), in order, once each."""
    raw = config.get(setting) or default
    return list(dict.fromkeys(n.strip() for n in raw.split(",") if n.strip())) or [default]


class _CutStreamError(Exception):
    """A streamed answer that stopped before the model finished (no finish reason)."""


_FORMAT_WORDS = re.compile(r"response_format", re.I)  # the field a server names when it refuses the way asked


def _refuses_format(exc: BaseException, said: str | None) -> bool:
    """Whether a failed call is the server refusing the way of structured output asked (a 400 or 422, or the 500
    llama-cpp-python sends for a request it cannot validate), by its words."""
    return getattr(exc, "status_code", None) in (400, 422, 500) and bool(said and _FORMAT_WORDS.search(said))


def _describe(label: str, exc: BaseException, said: str | None = None, learned: int | None = None,
              where: tuple[str, str] | None = None) -> ProviderError:
    """A short, key-free message for a failed call: what happened, the server's own words where it gave any, and
    one line on what to change. ``learned``: the window a length rejection stated, now recorded."""
    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    fix = ""
    if "Timeout" in name:
        why = "the request timed out; the server may be overloaded, try again or raise the timeout"
    elif status == 429 or "RateLimit" in name:
        why = "rate limited (429) after retries; wait a minute or lower the concurrency"
    elif status in (401, 403) or "Authentication" in name or "PermissionDenied" in name:
        why = f"the server refused the key ({status}); check the key in .streamlit/secrets.toml or the environment"
    elif status is not None and status >= 500:
        why = f"server error {status}"
        fix = "the server failed on this request; see its log, or try again"
    elif "Connection" in name and where:
        why = f"could not connect to the server at {where[0]}; start it, or check {where[1]}"
    elif "Connection" in name:
        why = "could not connect to the server; check the URL and that it is running"
    elif status is not None:
        why = f"request rejected ({status})"
        if learned:
            fix = (f"the request was longer than the server's window ({learned} tokens), which is now recorded: later "
                   "requests are fitted to it")
        elif server_facts.stated_window(said):
            fix = "the request was longer than the server's window: use RAG mode, or fewer pages"
        elif status == 404:
            fix = "check the model name (OPENAI_COMPAT_MODEL) against the server's model list"
        else:
            fix = "check this model's settings for this server"
    else:
        why = f"unexpected response ({name})"
    if getattr(exc, "ended_early", False):
        why = f"the server ended the answer early, and asked again whole: {why}"
    text = f"{label}: {why}" + (f". The server said: “{said}”" if said else "") + (f". {fix[:1].upper()}{fix[1:]}." if fix else "")
    return ProviderError(redact(text))


def reasoning_model(name: str) -> bool:
    """OpenAI's reasoning models take no temperature and count output as max_completion_tokens."""
    return bool(re.match(r"^(o\d|gpt-5)", name))


def _int(value: object) -> int | None:
    """A token count from a usage field, or None when the server sent something that is not a count."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _gate_key(request: object) -> str:
    """The endpoint and model a request calls ("api.openai.com gpt-4o-mini", "127.0.0.1:8080 llama3"): what a 429
    pauses."""
    url = request.url  # type: ignore[attr-defined]
    try:
        body = json.loads(request.content or b"{}")  # type: ignore[attr-defined]
    except (ValueError, AttributeError, RuntimeError):  # no JSON body, or a stream not read: the endpoint alone
        body = {}
    model = body.get("model") if isinstance(body, dict) and isinstance(body.get("model"), str) else ""
    return f"{url.host}{f':{url.port}' if url.port else ''} {model}".strip()


def _wait_if_paused(request: object) -> None:
    """Before every request (the SDKs' own retries too): wait while another process's 429 pauses this model. The
    pause, and the backoff since the failed try this request retries, are waiting, not the model's time."""
    wait_clock.request()
    wait_clock.add(model_gates.wait_if_paused(_gate_key(request)))


def _pause_on_429(response: object) -> None:
    """A 429 pauses this endpoint and model for every process, as long as its Retry-After says (1 s if none). A
    response the SDK will retry starts the backoff clock."""
    wait_clock.response(getattr(response, "status_code", None))
    if getattr(response, "status_code", None) == 429:
        wait = model_gates.retry_after_s(response.headers)  # type: ignore[attr-defined]
        model_gates.pause(_gate_key(response.request), 1.0 if wait is None else wait, "rate limited (429)")  # type: ignore[attr-defined]


class _Clients:
    """One SDK client per (family, key, base URL, timeout, retries), shared by that family's models."""

    _lock = threading.Lock()
    _cache: dict[tuple[str, str | None, str | None, float, int], openai.OpenAI | anthropic.Anthropic] = {}

    @classmethod
    def get(cls, sdk: str, key: str | None, base: str | None) -> openai.OpenAI | anthropic.Anthropic:
        ident = (sdk, key, base, timeout_s(), max_retries())
        with cls._lock:
            if ident not in cls._cache:
                install_log_redaction()
                hooks: dict[str, list[Callable[..., object]]] = {"request": [_wait_if_paused],
                                                                 "response": [_pause_on_429]}
                if sdk == "openai":
                    import openai  # heavy SDK: imported when the first client is made, off start-up

                    cls._cache[ident] = openai.OpenAI(
                        api_key=key, base_url=base or None, timeout=timeout_s(), max_retries=max_retries(),
                        http_client=wait_clock.mark_failed_tries(openai.DefaultHttpxClient(event_hooks=hooks)))
                else:
                    import anthropic  # heavy SDK: imported when the first client is made, off start-up

                    cls._cache[ident] = anthropic.Anthropic(
                        api_key=key, base_url=base or None, timeout=timeout_s(), max_retries=max_retries(),
                        http_client=wait_clock.mark_failed_tries(anthropic.DefaultHttpxClient(event_hooks=hooks)))
            return cls._cache[ident]


class OpenAIModel(Provider):
    """A chat-completions model through the official ``openai`` SDK (OpenAI itself, or an OpenAI-compatible
    server when ``family`` is ``compat``)."""

    def __init__(self, family: str, model_name: str, label: str, key_name: str | None, base_url_name: str,
                 model_setting: str, context_window: int, url_required: bool = False,
                 capabilities: frozenset[str] = frozenset({JSON_SCHEMA})) -> None:
        super().__init__()
        self.family, self.model_name, self.label = family, model_name, label
        self.key_name, self.base_url_name, self.model_setting = key_name, base_url_name, model_setting
        temperature = None if family == "openai" and reasoning_model(model_name) else 0.0
        self.options = ModelOptions(temperature=temperature, context_window=context_window,
                                    answer_tokens=CONNECTED_ANSWER_TOKENS)
        self.capabilities = capabilities
        self.needs = (base_url_name,) if url_required else ((key_name,) if key_name else ())

    def manifest_entry(self) -> JSONObject:
        entry = super().manifest_entry() | {"endpoint": server_facts.public_url(config.get(self.base_url_name)) or "default"}
        if self.family == "compat":
            f = server_facts.of(self._endpoint(), self.model_name)
            entry["options"] = {**self.options.as_dict(), "context_window": self.context_window}
            entry["server"] = {"window_from": f.window_from or "setting or default", "structured_output": f.way}
        return entry

    @property
    def model(self) -> str:
        return self.model_name

    def _endpoint(self) -> str:
        """The server's root as facts about it are remembered (no user, password or query)."""
        return server_facts.endpoint_key(config.get(self.base_url_name) or "")

    def available(self) -> tuple[bool, str]:
        """Configured; for a compatible server, and not found down or without this model when last asked (no
        network here: pages draw this often)."""
        ok, why = super().available()
        if not ok or self.family != "compat":
            return (ok, f"model {self.model_name}" if ok else why)
        last = server_facts.last_listing(str(config.get(self.base_url_name)), self.model_name)
        return last if last is not None else (True, f"model {self.model_name} (the server not asked yet)")

    def check(self) -> tuple[bool, str]:
        """For a compatible server: its model list asked (at most every 15 s) — it answers and lists this model."""
        ok, why = super().available()
        if not ok or self.family != "compat":
            return self.available()
        key = config.get(self.key_name) if self.key_name else None
        return server_facts.served(str(config.get(self.base_url_name)), self.model_name, key)

    def recheck(self) -> tuple[bool, str]:
        if self.family == "compat" and config.get(self.base_url_name):
            server_facts.forget_listing(str(config.get(self.base_url_name)), self.model_name)
        return self.check()

    @property
    def context_window(self) -> int:
        """A compatible server's own window (reported, or stated when it rejected a longer request) unless
        OPENAI_COMPAT_CONTEXT sets one; else the setting or the default."""
        if self.family == "compat" and not config.get("OPENAI_COMPAT_CONTEXT"):
            window = server_facts.of(self._endpoint(), self.model_name).window
            if window:
                return window
        return self.options.context_window

    def count_tokens(self, text: str) -> int:
        """The estimate (about 4 characters a token), scaled where a compatible server's own count of a rejected
        request showed the estimate low."""
        est = super().count_tokens(text)
        if self.family != "compat":
            return est
        return int(est * server_facts.of(self._endpoint(), self.model_name).ratio + 0.999)

    def call_limit(self) -> int:
        """A server on this machine (a loopback address) takes one call at a time unless a setting says more:
        such servers (llama.cpp's, Ollama's) usually serve one request at a time, and cut a running stream when
        another arrives."""
        host = urlsplit(config.get(self.base_url_name) or "").hostname or ""
        loopback = host == "localhost" or host == "::1" or host.startswith("127.")
        return call_limit(self.id, 1 if loopback else DEFAULT_CALL_LIMIT)

    def client(self) -> openai.OpenAI:
        key = (config.get(self.key_name) if self.key_name else None) or "not-needed"
        return cast("openai.OpenAI", _Clients.get("openai", key, config.get(self.base_url_name)))

    def _ways(self, wanted: bool) -> list[str]:
        """The ways of structured output to try, in order: none where none is wanted or the model takes no JSON
        schema; for a compatible server, the one that worked before, else each it has not refused."""
        if not wanted or JSON_SCHEMA not in self.capabilities:
            return ["text"]
        if self.family != "compat":
            return ["json_schema"]
        f = server_facts.of(self._endpoint(), self.model_name)
        return [f.way] if f.way else [w for w in server_facts.WAYS if w not in f.refused]

    def _generate(self, req: Request) -> Answer:
        msgs = ([{"role": "system", "content": req.system}] if req.system else []) + [
            {"role": "user", "content": req.prompt}
        ]
        budget_key = "max_completion_tokens" if self.family == "openai" and reasoning_model(self.model_name) else "max_tokens"
        base: dict[str, Any] = {"model": self.model_name, "messages": msgs, budget_key: req.max_tokens}
        if self.options.temperature is not None:
            base["temperature"] = self.options.temperature
        verdict = req.closed and req.structured
        schema = VERDICT_SCHEMA if verdict else req.schema
        name = "verdict" if verdict else req.schema_name
        if self.family == "compat" and server_facts.last_listing(str(config.get(self.base_url_name)),
                                                                 self.model_name) is None:
            asked = time.perf_counter()
            ok, why = self.check()  # first use: the server asked what it serves (and its window)
            wait_clock.add(time.perf_counter() - asked)  # the asking is not the answer's time
            if not ok:
                raise ProviderError(redact(f"{self.label}: {why}"))
        ways = self._ways(schema is not None and (verdict or req.schema is not None))
        facts = server_facts.of(self._endpoint(), self.model_name)
        for way in list(ways):
            kwargs = dict(base)
            if way == "json_schema":
                kwargs["response_format"] = {"type": "json_schema",
                                             "json_schema": {"name": name, "strict": True, "schema": schema}}
            elif way == "json_object":
                kwargs["response_format"] = {"type": "json_object", "schema": schema}
            probing = self.family == "compat" and way != "text" and facts.way is None
            try:
                try:
                    text, usage, finish = self._call(kwargs, req.on_token if way == "text" else None, probing)
                except Exception as exc:  # noqa: BLE001 - sorted below
                    if not probing or _refuses_format(exc, server_facts.words(exc)):
                        raise
                    text, usage, finish = self._call(kwargs, None, False)  # not a refusal: again, with retries
            except Exception as exc:  # noqa: BLE001 - whatever a server sends ends as one key-free failure
                said = server_facts.words(exc)
                if self.family == "compat" and way != "text" and _refuses_format(exc, said):
                    facts.refused.add(way)  # this way is not retried: the next is tried at once
                    if facts.way == way:
                        facts.way = None  # what worked before is refused now (the server changed)
                    continue
                learned = None
                if self.family == "compat" and getattr(exc, "status_code", None) == 400:
                    estimate = Provider.count_tokens(self, req.system + req.prompt) + req.max_tokens  # unscaled
                    learned = server_facts.learn_window(self._endpoint(), self.model_name, exc, said, estimate)
                    learned = learned if learned and not config.get("OPENAI_COMPAT_CONTEXT") else None
                url = config.get(self.base_url_name)
                err = _describe(self.label, exc, said, learned,
                                (server_facts.redact_url(url), self.base_url_name) if url else None)
                if self.family == "compat" and "Connection" in type(exc).__name__ and url:
                    server_facts.note_unanswered(url, self.model_name, str(err).partition(": ")[2])
                err.window = learned
                raise err from None
            if self.family == "compat" and way != "text":
                honoured = _is_json(text, finish)
                if honoured:
                    facts.way = way
                elif honoured is False and facts.way != way:  # never seen to work, and ignored (transformers'
                    facts.refused.add(way)  # server does): not asked again; this reply is read as the text it is
                    way = "text"
            break
        else:  # every way refused: cannot happen (text takes no format), kept for the type checker
            raise ProviderError(f"{self.label}: the server refused every way of asking")
        tin = _int(getattr(usage, "prompt_tokens", None))
        tout = _int(getattr(usage, "completion_tokens", None))
        ans = Answer(text=text.strip(), tokens_in=tin if tin is not None else self.count_tokens(req.system + req.prompt),
                     tokens_out=tout if tout is not None else (  # no usage (a stream from most servers): stopped by the
                         req.max_tokens if finish == "length" else self.count_tokens(text)))  # cap, it is the cap
        ans.extra["structured_way"] = way
        ans.cut = finish == "length"
        if verdict and way != "text":
            _read_structured(ans, text)
        elif verdict and ways != ["text"]:  # asked structured, answered in text: the text parser reads it
            ans.verdict_source = "text"
        elif req.schema is not None and way != "text":
            ans.extra["structured"] = _json_object(text)
        return ans

    def _call(self, kwargs: dict[str, Any], on_token: Callable[[str], None] | None,
              probing: bool) -> tuple[str, object, str | None]:
        """One completion (streamed where ``on_token``): (text, usage). ``probing``: a way of structured output
        not known to work, so a refusal is not retried (a server's validation error can come as a 500). A stream
        cut before the model finished is asked once more, whole."""
        client = self.client().with_options(max_retries=0) if probing else self.client()
        cut = False
        if on_token is not None:
            try:
                return self._stream(kwargs, on_token)
            except _CutStreamError:
                cut = True  # asked again below, not streamed: a server that serves one request at a time cut it
        try:
            resp = client.chat.completions.create(**kwargs)
        except Exception as exc:
            if cut:
                exc.ended_early = True  # type: ignore[attr-defined]  # said first in the message (_describe)
            raise
        text = resp.choices[0].message.content
        if not isinstance(text, str):
            raise TypeError("message content is not text")
        reason = getattr(resp.choices[0], "finish_reason", None)
        return text, getattr(resp, "usage", None), reason if isinstance(reason, str) else None

    def _stream(self, kwargs: dict[str, Any], on_token: Callable[[str], None]) -> tuple[str, object, str | None]:
        """Chat completion as server-sent events: each delta goes to ``on_token``; returns (text, usage, the
        finish reason)."""
        # Token usage in a stream is an OpenAI option; other servers (a custom base URL) may refuse it.
        official = self.family == "openai" and not config.get(self.base_url_name)
        extra: dict[str, Any] = {"stream_options": {"include_usage": True}} if official else {}
        parts: list[str] = []
        usage = None
        finished = False
        finish: str | None = None
        for chunk in self.client().chat.completions.create(**kwargs, stream=True, **extra):
            usage = getattr(chunk, "usage", None) or usage
            choices = getattr(chunk, "choices", None) or []
            if not choices:
                continue
            reason = getattr(choices[0], "finish_reason", None)
            finished = finished or bool(reason)
            finish = reason if isinstance(reason, str) else finish
            delta = getattr(choices[0].delta, "content", None)
            if delta is None:
                continue
            if not isinstance(delta, str):
                raise TypeError("a streamed piece is not text")
            parts.append(delta)
            on_token(delta)
        if not finished:  # a cut-off stream is a failed call, never a short answer
            raise _CutStreamError("the server ended the answer early")
        return "".join(parts), usage, finish


def _is_json(text: str, finish: str | None) -> bool | None:
    """Whether a reply asked for in a structured format is JSON (a reply cut by its cap that starts as one counts);
    None where an empty reply cannot tell."""
    body = text.strip()
    if not body:
        return None
    if finish == "length" and body.startswith(("{", "[")):
        return True
    try:
        json.loads(body)
    except (json.JSONDecodeError, TypeError):
        return False
    return True


def _json_object(text: str) -> dict[str, Any] | None:
    """A reply's JSON object, or None where the server sent something else (it is then read as text)."""
    try:
        obj = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return None
    return obj if isinstance(obj, dict) else None


_CUT_VERDICT = re.compile(r'\s*\{\s*"verdict"\s*:\s*"(yes|no|unclear)"\s*,', re.I)  # a reply cut after its verdict


def _read_structured(ans: Answer, text: str) -> None:
    """Fill the verdict from a JSON reply; a reply that ignored the requested structure is left for the text
    parser and recorded as such."""
    try:
        parsed = structured_verdict(json.loads(text))
    except (json.JSONDecodeError, TypeError):
        parsed = None
    if parsed is None and ans.cut and (m := _CUT_VERDICT.match(text)):  # the object cut by the token cap after the
        said = re.search(r'"explanation"\s*:\s*"(.*)', text, re.S)  # verdict, its first field: the verdict given
        part = said.group(1).replace('\\"', '"').replace("\\n", " ").strip() if said else ""  # stands, with as much
        parsed = (m.group(1).lower(), part + "…" if part else "")  # of the explanation as came
    if parsed is None:
        ans.verdict_source = "text"
        return
    verdict, explanation = parsed
    ans.verdict, ans.verdict_source = verdict, "structured"
    ans.text = f"{verdict.capitalize()}. {explanation}".strip()


class AnthropicModel(Provider):
    """A Claude model through the official ``anthropic`` SDK. Temperature goes in the request body (SDK 2.x
    has no argument for it); closed questions use a forced tool call for the verdict."""

    family = "anthropic"
    needs = ("ANTHROPIC_API_KEY",)

    def __init__(self, model_name: str) -> None:
        super().__init__()
        self.model_name = model_name
        self.label = f"Anthropic {model_name}"
        self.options = ModelOptions(temperature=0.0, context_window=200_000, answer_tokens=CONNECTED_ANSWER_TOKENS)
        self.capabilities = frozenset({TOOL_USE})

    @property
    def model(self) -> str:
        return self.model_name

    def available(self) -> tuple[bool, str]:
        ok, why = super().available()
        return (ok, f"model {self.model_name}" if ok else why)

    def manifest_entry(self) -> JSONObject:
        return super().manifest_entry() | {"endpoint": server_facts.public_url(config.get("ANTHROPIC_BASE_URL")) or "default"}

    def client(self) -> anthropic.Anthropic:
        return cast("anthropic.Anthropic",
                    _Clients.get("anthropic", config.get("ANTHROPIC_API_KEY"), config.get("ANTHROPIC_BASE_URL")))

    def _generate(self, req: Request) -> Answer:
        kwargs: dict[str, Any] = {"system": req.system} if req.system else {}
        if self.options.temperature is not None:
            kwargs["extra_body"] = {"temperature": self.options.temperature}
        structured = req.closed and req.structured and TOOL_USE in self.capabilities
        schema = req.schema is not None and TOOL_USE in self.capabilities and not structured
        if structured:
            kwargs["tools"] = [{"name": "record_verdict", "description": "Record the yes/no verdict and why.",
                                "input_schema": VERDICT_SCHEMA}]
            kwargs["tool_choice"] = {"type": "tool", "name": "record_verdict"}
        elif schema:
            kwargs["tools"] = [{"name": f"record_{req.schema_name}", "description": "Record what was asked for.",
                                "input_schema": req.schema}]
            kwargs["tool_choice"] = {"type": "tool", "name": f"record_{req.schema_name}"}
        try:
            call = {"model": self.model_name, "max_tokens": req.max_tokens,
                    "messages": [{"role": "user", "content": req.prompt}], **kwargs}
            if req.on_token is not None and not (structured or schema):
                with self.client().messages.stream(**call) as events:
                    for piece in events.text_stream:
                        req.on_token(piece)
                    resp = events.get_final_message()
                if getattr(resp, "stop_reason", None) is None:  # a cut-off stream is a failed call
                    raise TypeError("the answer stream ended before the model finished")
            else:
                resp = self.client().messages.create(**call)
            blocks = resp.content
            if not isinstance(blocks, list):
                raise TypeError("the reply has no content list")
            got = [getattr(b, "text", None) for b in blocks if getattr(b, "type", "") == "text"]
            tool_input = next((getattr(b, "input", None) for b in blocks if getattr(b, "type", "") == "tool_use"), None)
            texts = [t for t in got if isinstance(t, str)]
            if len(texts) < len(got) or (not texts and tool_input is None):
                raise TypeError("the reply holds no text")
            text = "".join(texts)
            usage = getattr(resp, "usage", None)
            tin, tout = _int(getattr(usage, "input_tokens", None)), _int(getattr(usage, "output_tokens", None))
        except Exception as exc:  # noqa: BLE001 - whatever a server sends ends as one key-free failure
            raise _describe(self.label, exc) from None
        ans = Answer(text=text.strip(), tokens_in=tin if tin is not None else self.count_tokens(req.system + req.prompt),
                     tokens_out=tout if tout is not None else self.count_tokens(text),
                     cut=getattr(resp, "stop_reason", None) == "max_tokens")
        if schema:
            ans.extra["structured"] = tool_input if isinstance(tool_input, dict) else None
        if structured:
            parsed = structured_verdict(tool_input)
            if parsed is None:
                ans.verdict_source = "text"
            else:
                ans.verdict, ans.verdict_source = parsed[0], "structured"
                ans.text = f"{parsed[0].capitalize()}. {parsed[1]}".strip()
        return ans


def openai_models() -> list[Provider]:
    out: list[Provider] = []
    for name in model_names("OPENAI_MODEL", "gpt-4o-mini"):
        window = int(config.get("OPENAI_CONTEXT") or KNOWN_WINDOWS.get(name, 128_000))
        out.append(OpenAIModel("openai", name, f"OpenAI {name}", "OPENAI_API_KEY", "OPENAI_BASE_URL",
                               "OPENAI_MODEL", window))
    return out


def compat_models() -> list[Provider]:
    """Models of an OpenAI-compatible server; listed only once its URL is set. Such servers differ in what
    they honour, so verdicts are asked in text unless OPENAI_COMPAT_JSON_SCHEMA=1 says it supports the schema."""
    if not config.get("OPENAI_COMPAT_BASE_URL"):
        return []
    caps = frozenset({JSON_SCHEMA}) if (config.get("OPENAI_COMPAT_JSON_SCHEMA") or "0") in ("1", "true") else frozenset()
    window = int(config.get("OPENAI_COMPAT_CONTEXT") or 8192)
    return [OpenAIModel("compat", name, f"{name} (OpenAI-compatible server)", "OPENAI_COMPAT_API_KEY",
                        "OPENAI_COMPAT_BASE_URL", "OPENAI_COMPAT_MODEL", window, url_required=True, capabilities=caps)
            for name in model_names("OPENAI_COMPAT_MODEL", "default")]


def anthropic_models() -> list[Provider]:
    return [AnthropicModel(name) for name in model_names("ANTHROPIC_MODEL", "claude-3-5-haiku-latest")]


def register_models(register: Callable[[Provider], Provider]) -> None:
    for model in (*openai_models(), *anthropic_models(), *compat_models()):
        register(model)

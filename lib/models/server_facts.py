"""What an OpenAI-compatible model server says about itself, asked rather than assumed: the models it serves and
the window it reports (``/v1/models``; vLLM's ``max_model_len``; the llama.cpp C++ server's ``/props``; Ollama's
``/api/ps`` and ``/api/show``), the window it states when it rejects a request for its length ("maximum context
length is 4096 tokens … you requested 6381"), the way of structured output it took, and its own words when it fails, redacted. Facts are
remembered per endpoint and model for the life of the process."""
from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from lib.core.redaction import install_log_redaction, redact

PROBE_TIMEOUT_S = 3.0  # a server that does not answer its model list in this long is shown as not answering
PROBE_FRESH_S = 15.0  # a listing this recent is not asked again (asking cuts a one-request server's stream)
WAYS = ("json_schema", "json_object", "text")  # structured output, most exact first


@dataclass
class Facts:
    """One endpoint and model's facts: its window (reported or stated), how its token counts compare with the
    studio's estimate, the way of structured output that worked (or the ways it refused)."""

    window: int | None = None
    window_from: str = ""  # "the server's model list", "/props", "its rejection of a longer request"
    ratio: float = 1.0  # the server's token count / the studio's estimate, from a rejection that gave both
    way: str | None = None
    refused: set[str] = field(default_factory=set)
    listing: tuple[float, bool, str] | None = None  # (when, served?, why) of the last model list asked
    listing_from_call: bool = False  # the listing is a failed call's, not the model list's: asked again at once


_lock = threading.Lock()
_facts: dict[tuple[str, str], Facts] = {}


def of(endpoint: str, model: str) -> Facts:
    with _lock:
        return _facts.setdefault((endpoint, model), Facts())


def forget() -> None:
    """Every fact dropped (tests; a server replaced at the same address)."""
    with _lock:
        _facts.clear()


def forget_listings() -> None:
    """What the servers' model lists said dropped, so the next check asks them now (a person's "check")."""
    with _lock:
        for f in _facts.values():
            f.listing = None


# ----- the server's words ---------------------------------------------------------------------------------------
_TRACE = re.compile(r"\n\s*File \".*", re.S)  # a Python traceback a server appends to its message


def words(exc: BaseException) -> str | None:
    """The server's own explanation of a failed call (its error message, else the body's text), on one line,
    without a traceback, redacted and at most 300 characters; None where it gave none."""
    body = getattr(exc, "body", None)
    text: object = None
    if isinstance(body, dict):
        err = body.get("error", body)
        text = err.get("message") if isinstance(err, dict) else err
        text = text or body.get("detail") or body.get("message")
    if not text:
        response = getattr(exc, "response", None)
        try:
            text = response.text if response is not None else None
        except Exception:  # noqa: BLE001 - a streamed body not read: no words
            text = None
    if not isinstance(text, str) or not text.strip():
        return None
    one = " ".join(_TRACE.sub("", text).split())
    return redact(one if len(one) <= 300 else one[:299] + "…")


# ----- the window ------------------------------------------------------------------------------------------------
# (pattern, group of the window, group of the tokens counted in the request, or None)
_STATED = [
    # OpenAI, vLLM, llama-cpp-python: "maximum context length is 4096 tokens. However, you requested 6381 tokens"
    (re.compile(r"maximum context length is (\d+) tokens.*?requested (\d+) tokens", re.I | re.S), 1, 2),
    (re.compile(r"maximum context length is (\d+) tokens", re.I), 1, None),
    # vLLM: "… (5000 tokens) is longer than the maximum model length of 4096"
    (re.compile(r"\((\d+) tokens\)[^.]*?maximum model length of (\d+)", re.I), 2, 1),
    (re.compile(r"maximum model length of (\d+)", re.I), 1, None),
    # llama.cpp's server: "request (5000 tokens) exceeds the available context size (4096 tokens)"
    (re.compile(r"\((\d+) tokens\) exceeds the available context size \((\d+) tokens\)", re.I), 2, 1),
    # transformers' server: "The prompt has 3031 tokens, but the model takes at most 2048, prompt and answer"
    (re.compile(r"prompt has (\d+) tokens, but the model takes at most (\d+)", re.I), 2, 1),
]


def stated_window(message: str | None) -> tuple[int, int | None] | None:
    """The window a server states when it rejects a request for its length, and the tokens it counted in that
    request where it says so; None where the message states no window in a form known here."""
    if not message:
        return None
    for pattern, w, r in _STATED:
        if (m := pattern.search(message)) and 256 <= int(m.group(w)) <= 10_000_000:
            return int(m.group(w)), int(m.group(r)) if r is not None else None
    return None


def stated_in_body(exc: BaseException) -> tuple[int, int | None] | None:
    """The window and the request's tokens as fields of the error body (llama.cpp's server: ``n_ctx`` and
    ``n_prompt_tokens`` with "exceeds the available context size")."""
    body = getattr(exc, "body", None)
    err = body.get("error", body) if isinstance(body, dict) else None
    if not isinstance(err, dict) or not isinstance(err.get("n_ctx"), int):
        return None
    n_ctx, asked = err["n_ctx"], err.get("n_prompt_tokens")
    return (n_ctx, asked if isinstance(asked, int) else None) if n_ctx >= 256 else None


def learn_window(endpoint: str, model: str, exc: BaseException, said: str | None, estimated: int | None) -> int | None:
    """Record the window a rejection states (the smaller, where one was reported too), and, where the server
    counted the request, how its counts compare with the studio's unscaled ``estimated`` tokens for it. The window
    recorded, or None where the rejection states none."""
    found = stated_window(said) or stated_in_body(exc)
    if found is None:
        return None
    window, requested = found
    f = of(endpoint, model)
    with _lock:
        f.window = min(window, f.window) if f.window else window
        f.window_from = "its rejection of a longer request"
        if requested and estimated:
            f.ratio = max(f.ratio, min(4.0, requested / estimated))  # the estimate unscaled: only ever more cautious
    return f.window


# ----- what it serves --------------------------------------------------------------------------------------------
_probing = threading.Lock()  # one model list asked at a time: a one-request server cuts a stream for each


def _get_json(url: str, key: str | None, body: dict[str, object] | None = None) -> object:
    """The JSON a server answers to a GET, or to a POST of ``body``; raises on a failed status."""
    import httpx2  # the HTTP client the OpenAI and Anthropic SDKs send with: loaded with them, off start-up

    headers = {"Authorization": f"Bearer {key}"} if key else {}
    resp = (httpx2.post(url, json=body, headers=headers, timeout=PROBE_TIMEOUT_S) if body is not None
            else httpx2.get(url, headers=headers, timeout=PROBE_TIMEOUT_S))
    resp.raise_for_status()
    return resp.json()


def _names_match(model: str, listed: str) -> bool:
    """A listed id serves ``model``: the same, or Ollama's ``:latest`` tag left off ("llama3" for "llama3:latest")."""
    return listed == model or listed == f"{model}:latest"


def served(base_url: str, model: str, key: str | None = None) -> tuple[bool, str]:
    """Whether the server at ``base_url`` (its OpenAI-compatible root, ".../v1") answers and lists ``model``, with
    a reason in words; its reported window is recorded on the way. Asked at most every PROBE_FRESH_S, one at a
    time; the answer is kept (``last_listing``) for pages that must not wait on the network."""
    install_log_redaction()  # the client's own log lines name the URL: no key or password in them
    endpoint = endpoint_key(base_url)
    f = of(endpoint, model)
    with _probing:
        if f.listing and not f.listing_from_call and time.monotonic() - f.listing[0] < PROBE_FRESH_S:
            return f.listing[1], f.listing[2]
        result = _ask_listing(base_url.rstrip("/"), endpoint, model, key)
        with _lock:
            f.listing, f.listing_from_call = (time.monotonic(), *result), False
    return result


def forget_listing(base_url: str, model: str) -> None:
    """What one model list said dropped: the next check asks the server now."""
    f = of(endpoint_key(base_url), model)
    with _lock:
        f.listing = None


def note_unanswered(base_url: str, model: str, why: str) -> None:
    """A call found the server not answering: pages show it so until the next check."""
    f = of(endpoint_key(base_url), model)
    with _lock:
        f.listing, f.listing_from_call = (time.monotonic(), False, why), True


def last_listing(base_url: str, model: str) -> tuple[bool, str] | None:
    """What the last model list asked said (served?, why), or None where none was asked yet: no network."""
    f = of(endpoint_key(base_url), model)
    return (f.listing[1], f.listing[2]) if f.listing else None


def public_url(url: str | None) -> str | None:
    """A URL as it may be kept or shown: scheme, host (lower-case), port and path, without user, password or
    query; None where it has no host."""
    try:
        parts = urlsplit(url or "")
        host, port = parts.hostname, parts.port  # a port that is no number raises here
    except ValueError:
        return None
    if not host:
        return None
    host = f"[{host.lower()}]" if ":" in host else host.lower()  # an IPv6 address keeps its brackets
    return redact(f"{parts.scheme}://{host}{f':{port}' if port else ''}{parts.path}".rstrip("/"))


def endpoint_key(base_url: str) -> str:
    """An endpoint as facts are remembered: its public URL, or "default" where it has none."""
    return public_url(base_url) or "default"


def _ask_listing(url: str, endpoint: str, model: str, key: str | None) -> tuple[bool, str]:
    shown = redact_url(url)
    try:
        listing = _get_json(f"{url}/models", key)
        entries = listing.get("data") if isinstance(listing, dict) else None
        if not isinstance(entries, list):
            return False, f"the server at {shown} answers, but not with a model list; check OPENAI_COMPAT_BASE_URL"
        ids = [str(e.get("id")) for e in entries if isinstance(e, dict) and e.get("id")]
        entry = next((e for e in entries if isinstance(e, dict) and _names_match(model, str(e.get("id")))), None)
        if entry is None:
            listed = ", ".join(ids[:3]) + (" …" if len(ids) > 3 else "")
            return False, (f"the server does not list '{model}' (it lists: {listed or 'nothing'}); set "
                           "OPENAI_COMPAT_MODEL to one of them")
        _read_window(url, endpoint, model, entry, key)
        window = of(endpoint, model).window
        return True, f"model {model}" + (f", a window of {window:,} tokens" if window else "")
    except Exception as exc:  # noqa: BLE001 - whatever the probe meets (a bad URL, a port that is not HTTP) is a reason
        status = getattr(getattr(exc, "response", None), "status_code", None)
        if status in (401, 403):
            return False, f"the server at {shown} refused the key ({status}); check OPENAI_COMPAT_API_KEY"
        if status is not None:
            return False, f"the server at {shown} answered its model list with {status}; check OPENAI_COMPAT_BASE_URL"
        name = type(exc).__name__
        how = ("nothing answers at that address" if "Connect" in name else
               f"no answer in {PROBE_TIMEOUT_S:.0f} s" if "Timeout" in name else "no answer a model list can be read from")
        return False, redact(f"the server at {shown} does not answer ({how}); start it, or check "
                             "OPENAI_COMPAT_BASE_URL")


def redact_url(url: str) -> str:
    """A URL as shown: no user, password or query, and nothing that looks like a key."""
    return redact(public_url(url) or "(no URL)")


def _read_window(url: str, endpoint: str, model: str, entry: dict[str, object], key: str | None) -> None:
    """The window the server reports: vLLM's ``max_model_len`` in its model list, else the llama.cpp C++
    server's ``/props`` (``default_generation_settings.n_ctx``), else Ollama's (``/api/ps``, ``/api/show``). A
    window a rejection stated is kept."""
    f = of(endpoint, model)
    if f.window_from == "its rejection of a longer request":
        return
    root = url.removesuffix("/v1")
    window, source = entry.get("max_model_len"), "the server's model list"
    if not isinstance(window, int):
        try:
            props = _get_json(f"{root}/props", key)
            settings = props.get("default_generation_settings") if isinstance(props, dict) else None
            window = settings.get("n_ctx") if isinstance(settings, dict) else None
            source = "/props"
        except Exception:  # noqa: BLE001 - no /props (not llama.cpp's server): no window reported there
            window = None
    if not isinstance(window, int):
        window, source = _ollama_window(root, model, key) or (None, "")
    if isinstance(window, int) and window >= 256:
        with _lock:
            f.window, f.window_from = window, source


# Ollama's window when nothing sets one: 2,048 in older versions, 4,096 or more (by GPU memory) in newer ones. The
# smallest is assumed until the server reports one: a request cut to fit is said on screen, while one longer than
# Ollama's window would be cut by Ollama silently.
OLLAMA_DEFAULT_WINDOW = 2048


def _ollama_window(root: str, model: str, key: str | None) -> tuple[int, str] | None:
    """Ollama's window for ``model``, which it does not state in a rejection: it cuts a longer prompt silently.
    The window of the model as loaded (``/api/ps``), else the ``num_ctx`` of its parameters (``/api/show``), else
    Ollama's default, never more than the model's own trained length (``model_info``). None where the server is
    not Ollama (no ``/api/show``)."""
    try:
        version = _get_json(f"{root}/api/version", key)  # Ollama's own route: other servers are not asked more
        if not isinstance(version, dict) or "version" not in version:
            return None
        show = _get_json(f"{root}/api/show", key, {"model": model})
    except Exception:  # noqa: BLE001 - no /api/version or /api/show: not Ollama
        return None
    if not isinstance(show, dict) or not isinstance(show.get("model_info"), dict):
        return None
    trained = next((v for k, v in show["model_info"].items() if k.endswith(".context_length") and isinstance(v, int)),
                   None)
    found: tuple[int, str] | None = None
    try:
        running = _get_json(f"{root}/api/ps", key)
        loaded = running.get("models") if isinstance(running, dict) else None
        for m in loaded if isinstance(loaded, list) else []:
            if isinstance(m, dict) and _names_match(model, str(m.get("name"))) and isinstance(m.get("context_length"), int):
                found = (m["context_length"], "Ollama's running model (/api/ps)")
    except Exception:  # noqa: BLE001 - an older Ollama without /api/ps: read the parameters
        found = None
    if found is None and (m := re.search(r"^num_ctx\s+(\d+)", str(show.get("parameters") or ""), re.M)):
        found = (int(m.group(1)), "the model's num_ctx (/api/show)")
    if found is None:
        found = (OLLAMA_DEFAULT_WINDOW, "the smallest of Ollama's defaults, as the model is not loaded yet: set "
                 "OPENAI_COMPAT_CONTEXT to the window Ollama gives it")
    return (min(found[0], trained), found[1]) if trained and trained >= 256 else found

"""What an OpenAI-compatible model server says about itself, asked rather than assumed: the models it serves and
the window it reports (``/v1/models``; vLLM's ``max_model_len``; the llama.cpp C++ server's ``/props``), the
window it states when it rejects a request for its length ("maximum context length is 4096 tokens … you
requested 6381"), the way of structured output it took, and its own words when it fails, redacted. Facts are
remembered per endpoint and model for the life of the process."""
from __future__ import annotations

import json
import re
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field

from lib.core.redaction import redact

PROBE_TIMEOUT_S = 3.0  # a server that does not answer its model list in this long is shown as not answering
PROBE_FRESH_S = 15.0  # a listing this recent is not asked again
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


_lock = threading.Lock()
_facts: dict[tuple[str, str], Facts] = {}


def of(endpoint: str, model: str) -> Facts:
    with _lock:
        return _facts.setdefault((endpoint, model), Facts())


def forget() -> None:
    """Every fact dropped (tests; a server replaced at the same address)."""
    with _lock:
        _facts.clear()


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
_STATED = [  # (pattern, group of the window, group of the tokens requested or None)
    (re.compile(r"maximum context length is (\d+) tokens.*?requested (\d+) tokens", re.I | re.S), 1, 2),
    (re.compile(r"requested (\d+) tokens.*?(?:context|window)[^\d]{0,40}?(\d+)", re.I | re.S), 2, 1),
    (re.compile(r"\(n_ctx(?:_slot)?\s*[:=]\s*(\d+)\)|context (?:size|window|length)(?: is| of)? (\d+)", re.I), 1, None),
]


def stated_window(message: str | None) -> tuple[int, int | None] | None:
    """The window a server states when it rejects a request for its length, and the tokens it counted in that
    request where it says so; None where the message states no window."""
    if not message:
        return None
    for pattern, w, r in _STATED:
        if m := pattern.search(message):
            window = m.group(w) or (m.group(2) if m.lastindex and m.lastindex >= 2 else None)
            if window and 256 <= int(window) <= 10_000_000:
                return int(window), int(m.group(r)) if r is not None and m.group(r) else None
    return None


def learn_window(endpoint: str, model: str, message: str | None, estimated: int | None) -> int | None:
    """Record the window a rejection states (and, where it counted the request, how its counts compare with the
    studio's ``estimated`` tokens for it); the window, or None where none was stated."""
    said = stated_window(message)
    if said is None:
        return None
    window, requested = said
    f = of(endpoint, model)
    with _lock:
        f.window, f.window_from = window, "its rejection of a longer request"
        if requested and estimated:
            f.ratio = max(f.ratio, min(4.0, requested / estimated))  # only ever more cautious
    return window


# ----- what it serves --------------------------------------------------------------------------------------------
def _get_json(url: str, key: str | None) -> object:
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}"} if key else {})
    with urllib.request.urlopen(req, timeout=PROBE_TIMEOUT_S) as resp:  # noqa: S310 - the configured server's URL
        return json.loads(resp.read(2_000_000).decode("utf-8", "replace"))


def served(base_url: str, model: str, key: str | None = None) -> tuple[bool, str]:
    """Whether the server at ``base_url`` (its OpenAI-compatible root, ".../v1") answers and serves ``model``,
    with a reason in words; its reported window is recorded on the way. Asked at most every PROBE_FRESH_S."""
    endpoint = base_url.rstrip("/")
    f = of(endpoint, model)
    if f.listing and time.monotonic() - f.listing[0] < PROBE_FRESH_S:
        return f.listing[1], f.listing[2]
    try:
        listing = _get_json(f"{endpoint}/models", key)
        entries = listing.get("data") if isinstance(listing, dict) else None
        if not isinstance(entries, list):
            raise ValueError("no model list")
        ids = [str(e.get("id")) for e in entries if isinstance(e, dict) and e.get("id")]
        entry = next((e for e in entries if isinstance(e, dict) and e.get("id") == model), None)
        if entry is None:
            shown = ", ".join(ids[:3]) + (" …" if len(ids) > 3 else "")
            result = (False, f"the server does not serve '{model}' (it serves: {shown or 'nothing'}); set "
                             "OPENAI_COMPAT_MODEL to one of them")
        else:
            result = (True, f"model {model}")
            _read_window(endpoint, model, entry, key)
    except (urllib.error.URLError, OSError, ValueError, json.JSONDecodeError) as exc:
        reason = getattr(exc, "reason", None) or type(exc).__name__
        result = (False, redact(f"the server at {endpoint} does not answer ({reason}); start it, or check "
                                "OPENAI_COMPAT_BASE_URL"))
    with _lock:
        f.listing = (time.monotonic(), *result)
    return result


def _read_window(endpoint: str, model: str, entry: dict[str, object], key: str | None) -> None:
    """The window the server reports: vLLM's ``max_model_len`` in its model list, else the llama.cpp C++
    server's ``/props`` (``default_generation_settings.n_ctx``). A window a rejection stated is kept."""
    f = of(endpoint, model)
    if f.window_from == "its rejection of a longer request":
        return
    window, source = entry.get("max_model_len"), "the server's model list"
    if not isinstance(window, int):
        try:
            props = _get_json(f"{endpoint.removesuffix('/v1')}/props", key)
            settings = props.get("default_generation_settings") if isinstance(props, dict) else None
            window = settings.get("n_ctx") if isinstance(settings, dict) else None
            source = "/props"
        except (urllib.error.URLError, OSError, ValueError, json.JSONDecodeError):
            window = None
    if isinstance(window, int) and window >= 256:
        with _lock:
            f.window, f.window_from = window, source

"""The one small interface every answering model implements.

A model is concrete: its id is ``family/model`` (``openai/gpt-4o-mini``, ``local/smollm2-135m``). Its options
(temperature, context window) are typed and declared, and so are its capabilities; nothing is discovered by
calling the model. The shape follows simonw/llm: one small class per model family, every model registered the
same way (see registry.py).
"""
from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import asdict, dataclass, field
from typing import Any

from lib.core import access, config
from lib.core.access import Action
from lib.core.json_types import JSONObject
from lib.models import wait_clock
from lib.storage import model_gates

# Capabilities a model can declare.
LIKELIHOOD = "likelihood"  # next-token probabilities: yes/no and A–D chosen by likelihood
JSON_SCHEMA = "json_schema"  # OpenAI structured output (response_format json_schema)
TOOL_USE = "tool_use"  # Anthropic forced tool call
STREAMING = "streaming"
CAPABILITIES = (LIKELIHOOD, JSON_SCHEMA, TOOL_USE, STREAMING)

# What the extractive baseline says when it has nothing to quote: no answer, so nothing to compare or check.
NO_CONTEXT = "(no context: the extractive baseline only quotes a given passage)"
NO_SENTENCE = "(the context has no whole sentence to quote: it is headings, tables or fragments)"
NON_ANSWERS = (NO_CONTEXT, NO_SENTENCE)


class ProviderError(Exception):
    """A model call failed (timeout, rate limit, server error, bad response). The message holds no key.
    ``window``: set where the server rejected the request for its length and stated its window, now recorded
    (a caller may fit the request to it and ask again)."""

    window: int | None = None


@dataclass(frozen=True)
class ModelOptions:
    """What is sent with every call. ``temperature`` None means the model's default is used (not sent)."""

    temperature: float | None = 0.0
    context_window: int = 4096
    seed: int | None = None
    answer_tokens: int | None = None  # the cap on an open answer's length; None: the studio's default

    def as_dict(self) -> JSONObject:
        return asdict(self)


@dataclass
class Request:
    """What a model is asked. ``prompt`` is the rendered user message; ``question``/``context`` are kept
    separately for models that work on them directly (the extractive baseline). ``structured`` asks for the
    yes/no verdict in structured form where the model declares a way to give it."""

    prompt: str
    system: str = ""
    question: str = ""
    context: str = ""
    closed: bool = False
    max_tokens: int = 256
    structured: bool = False
    # A JSON schema the reply must follow (metadata, judges): sent as OpenAI's response_format or Anthropic's
    # forced tool call where the model declares one; the parsed object lands in Answer.extra["structured"].
    schema: dict[str, Any] | None = field(default=None, compare=False)
    schema_name: str = "reply"
    # Called with each piece of text as it arrives, where the model can stream (remote APIs, GGUF). Models that
    # do not stream ignore it; a structured (JSON or tool) reply is never streamed.
    on_token: Callable[[str], None] | None = field(default=None, repr=False, compare=False)
    # Where the context's numbered sources come from several documents: source number → the document's short
    # title, so an answer that quotes them (the extractive baseline) can say which document each page is in.
    source_docs: dict[int, str] | None = field(default=None, compare=False)


@dataclass
class Answer:
    text: str
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0
    verdict: str | None = None  # set by models that decide yes/no themselves (structured output, likelihood)
    verdict_source: str | None = None  # structured | likelihood | heuristic | text
    extra: dict[str, Any] = field(default_factory=dict)
    cut: bool = False  # stopped by the cap on its length, not by the model


VERDICT_SCHEMA = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["yes", "no", "unclear"]},
        "explanation": {"type": "string"},
    },
    "required": ["verdict", "explanation"],
    "additionalProperties": False,
}


def structured_verdict(obj: object) -> tuple[str, str] | None:
    """(verdict, explanation) from a structured reply, or None when it is not the asked-for shape."""
    if not isinstance(obj, dict):
        return None
    verdict = obj.get("verdict")
    if not isinstance(verdict, str) or verdict.strip().lower() not in ("yes", "no", "unclear"):
        return None
    expl = obj.get("explanation")
    return verdict.strip().lower(), expl.strip() if isinstance(expl, str) else ""


DEFAULT_ANSWER_TOKENS = 200  # an open answer's cap where neither the model nor a setting says otherwise
DEFAULT_CALL_LIMIT = 4  # calls at once to one model on a server, over all workers (as one run's 4 threads)


def call_limit(model_id: str, default: int = DEFAULT_CALL_LIMIT) -> int:
    """How many calls to a model on a server may run at once, over every process and worker (with workers; one
    process alone is bound by its own threads):
    ``NEPAQA_MODEL_LIMITS="openai/gpt-4o-mini=8,anthropic/claude-3-5-haiku-latest=2"`` per model, else
    ``NEPAQA_MODEL_LIMIT``, else ``default`` (4; 1 for a server on this machine). A value that is no whole number
    above 0 is ignored."""
    for part in (config.get("NEPAQA_MODEL_LIMITS") or "").split(","):
        name, _, value = part.partition("=")
        if name.strip() == model_id and value.strip().isdigit() and int(value) > 0:
            return int(value)
    value = (config.get("NEPAQA_MODEL_LIMIT") or "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else default


class Provider(ABC):
    """A concrete model: id (``family/model``), label, settings it needs, options, capabilities, a token
    counter, and generate/choose."""

    family: str = ""
    model_name: str = ""
    label: str = ""
    needs: tuple[str, ...] = ()  # names of the settings (env var or secret) it needs
    options: ModelOptions = ModelOptions()
    capabilities: frozenset[str] = frozenset()
    aliases: tuple[str, ...] = ()  # short names accepted on the command line
    concurrent: bool = True  # False: calls are serialised (local models on this machine)
    local: bool = False
    language_model: bool = True  # writes its own text; False for the extractive baseline, which copies sentences
    weak: bool = False  # too small to write items or judge answers; pages warn before using it so
    note: str = ""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._busy = threading.local()

    @contextmanager
    def serial(self) -> Iterator[None]:
        """One call to the model: serialised for a local model (one at a time on this machine); a model on a
        server takes one of its ``call_limit`` places, shared by every worker (lib/storage/model_gates.py). Timed
        from the moment it has the model, so the time a call spent queued behind other calls (a benchmark's
        workers) is not counted as the model's, nor the time it waited out a rate limit or a retry's backoff
        (lib/models/wait_clock.py). ``take_busy`` returns this thread's total since it last asked."""
        gate = self._lock if not self.concurrent else (
            nullcontext() if self.local else model_gates.slot(self.id, self.call_limit()))
        with gate:
            started, waited = time.perf_counter(), wait_clock.total()
            wait_clock.call_started()
            try:
                yield
            finally:
                self._add_busy(max(0.0, time.perf_counter() - started - (wait_clock.total() - waited)))

    def _add_busy(self, seconds: float) -> None:
        busy = self.__dict__.setdefault("_busy", threading.local())
        busy.seconds = getattr(busy, "seconds", 0.0) + seconds

    def take_busy(self) -> float:
        """Seconds this thread's calls have had the model since the last take (and reset it)."""
        busy = self.__dict__.setdefault("_busy", threading.local())
        seconds, busy.seconds = getattr(busy, "seconds", 0.0), 0.0
        return seconds

    def call_limit(self) -> int:
        """How many calls to this model may run at once (see ``call_limit``)."""
        return call_limit(self.id)

    def answer_cap(self, default: int = DEFAULT_ANSWER_TOKENS) -> int:
        """The most tokens an open answer of this model may have: ``NEPAQA_ANSWER_TOKENS`` (one number, or
        ``"compat/llama3=800,openai/gpt-4o-mini=400"`` per model), else the model's option, else ``default``."""
        raw = (config.get("NEPAQA_ANSWER_TOKENS") or "").strip()
        for part in raw.split(","):
            name, _, value = part.partition("=")
            if value and name.strip() == self.id and value.strip().isdigit() and int(value) > 0:
                return int(value)
        if raw.isdigit() and int(raw) > 0:
            return int(raw)
        return self.options.answer_tokens or default

    @property
    def id(self) -> str:
        return f"{self.family}/{self.model_name}"

    @property
    def context_window(self) -> int:
        return self.options.context_window

    # Whether a model may judge (answers, review items, arena votes, support, metadata, translations) is decided
    # here and nowhere else: callers ask these two properties.
    @property
    def can_judge(self) -> bool:
        """It can be asked for a verdict at all: a language model (the extractive baseline cannot)."""
        return self.language_model

    @property
    def judges_reliably(self) -> bool:
        """Its verdicts can stand without a person checking each: a language model that is not too small."""
        return self.language_model and not self.weak

    def judge_warning(self) -> str | None:
        """A plain warning when the model can judge but is too weak to stand in for experts or a RAGAS judge."""
        if self.can_judge and not self.judges_reliably:
            return (f"{self.label} is far too small to judge answers or label items: its verdicts would be close to "
                    "noise. Configure a connected model (OpenAI, Anthropic or a larger local GGUF) for this.")
        return None

    def check(self) -> tuple[bool, str]:
        """``available``, asking the server where the model has one to ask (a model list): for `models` and
        Home, not for every page draw."""
        return self.available()

    def configured(self) -> bool:
        """Every setting it needs is set (a key, a server's URL); whether its server answers is ``available``'s."""
        return not [n for n in self.needs if not config.get(n)]

    def recheck(self) -> tuple[bool, str]:
        """``check``, with nothing remembered: for a run about to start with a model last found unavailable."""
        return self.check()

    def available(self) -> tuple[bool, str]:
        missing = [n for n in self.needs if not config.get(n)]
        if missing:
            return False, f"set {' and '.join(missing)} in the environment or .streamlit/secrets.toml"
        return True, self.note or "ready"

    def manifest_entry(self) -> JSONObject:
        """What a run records about this model: its id and the options actually sent."""
        return {"id": self.id, "label": self.label,
                "options": {**self.options.as_dict(), "answer_tokens": self.answer_cap()},  # the cap used, setting or not
                "capabilities": sorted(self.capabilities)}

    # how count_tokens counts, in words for the page ("48K tokens, estimated at about 4 characters a token")
    count_unit: str = "estimated at about 4 characters a token"

    def count_tokens(self, text: str) -> int:
        """A fair estimate when no tokenizer ships offline: about 4 characters per token."""
        return max(1, (len(text) + 3) // 4) if text else 0

    @abstractmethod
    def _generate(self, req: Request) -> Answer: ...

    def generate(self, req: Request) -> Answer:
        if not self.local:  # a connected model spends a key or a server's time: an analyst's (lib/core/access.py)
            access.authorize(Action.CONNECTED_MODEL, self.id)
        with self.serial():
            started, waited = time.perf_counter(), wait_clock.total()
            ans = self._generate(req)
            # the model's time: not the queue's, nor a rate limit's pause or a retry's backoff
            ans.seconds = round(max(0.0, time.perf_counter() - started - (wait_clock.total() - waited)), 3)
        return ans

    def choose(self, req: Request, options: list[str]) -> tuple[str, dict[str, float]] | None:
        """Pick one of ``options`` by the likelihood of its first token after the prompt; None where the
        model declares no likelihoods (the caller then asks in text or structured form)."""
        return None

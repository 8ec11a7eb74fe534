"""The one small interface every answering model implements."""
from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field


class ProviderError(Exception):
    """A model call failed (timeout, rate limit, server error, bad response). The message holds no key."""


@dataclass
class Request:
    """What a model is asked. ``prompt`` is the rendered user message; ``question``/``context`` are kept
    separately for providers that work on them directly (the extractive baseline)."""

    prompt: str
    system: str = ""
    question: str = ""
    context: str = ""
    closed: bool = False
    max_tokens: int = 256


@dataclass
class Answer:
    text: str
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0
    verdict: str | None = None  # set by providers that decide yes/no themselves (likelihood)
    extra: dict = field(default_factory=dict)


class Provider(ABC):
    """id, label, what it needs, its context window and token counter, and generate/choose."""

    id: str = ""
    label: str = ""
    needs: tuple[str, ...] = ()  # names of the settings (env var or secret) it needs
    context_window: int = 4096
    concurrent: bool = True  # False: calls are serialised (local models on this machine)
    local: bool = False
    note: str = ""

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def available(self) -> tuple[bool, str]:
        from .. import config

        missing = [n for n in self.needs if not config.get(n)]
        if missing:
            return False, f"set {' and '.join(missing)} in the environment or .streamlit/secrets.toml"
        return True, self.note or "ready"

    def count_tokens(self, text: str) -> int:
        """A fair estimate when no tokenizer ships offline: about 4 characters per token."""
        return max(1, (len(text) + 3) // 4) if text else 0

    @abstractmethod
    def _generate(self, req: Request) -> Answer: ...

    def generate(self, req: Request) -> Answer:
        started = time.perf_counter()
        if self.concurrent:
            ans = self._generate(req)
        else:
            with self._lock:
                ans = self._generate(req)
        ans.seconds = round(time.perf_counter() - started, 3)
        return ans

    def choose(self, req: Request, options: list[str]) -> tuple[str, dict[str, float]] | None:
        """Pick one of ``options`` by the likelihood of its first token after the prompt; None where the
        backend gives no likelihoods (the caller then parses free text)."""
        return None

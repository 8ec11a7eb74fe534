"""OpenAI, any OpenAI-compatible server (Ollama, vLLM, llama.cpp server, LM Studio) and Anthropic, through
their official SDKs. Timeouts and retries with backoff on 429/5xx are the SDKs' own (max_retries)."""
from __future__ import annotations

from .. import config
from ..redact import install_log_redaction, redact
from .base import Answer, Provider, ProviderError, Request


def timeout_s() -> float:
    return float(config.get("NEPAQA_PROVIDER_TIMEOUT") or 60)


def max_retries() -> int:
    """Retries on 408/409/429/5xx and timeouts, with exponential backoff (the SDKs' own)."""
    return int(config.get("NEPAQA_PROVIDER_RETRIES") or 3)


def _describe(label: str, exc: Exception) -> ProviderError:
    """A short, key-free message for a failed call."""
    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    if "Timeout" in name:
        why = "the request timed out; the server may be overloaded, try again or raise the timeout"
    elif status == 429 or "RateLimit" in name:
        why = "rate limited (429) after retries; wait a minute or lower the concurrency"
    elif status in (401, 403) or "Authentication" in name or "PermissionDenied" in name:
        why = f"the server refused the key ({status}); check the key in .streamlit/secrets.toml or the environment"
    elif status is not None and status >= 500:
        why = f"server error {status} after retries"
    elif "Connection" in name:
        why = "could not connect to the server; check the URL and that it is running"
    elif status is not None:
        why = f"request rejected ({status})"
    else:
        why = f"unexpected response ({name})"
    return ProviderError(redact(f"{label}: {why}"))


def _sdk_errors(sdk: str) -> tuple[type[BaseException], ...]:
    """What a call can raise for reasons outside our code: the SDK's errors and an unparseable body."""
    import importlib

    mod = importlib.import_module(sdk)
    return (mod.APIError, ValueError, AttributeError, IndexError, KeyError)


class OpenAIProvider(Provider):
    """Chat completions through the official ``openai`` SDK."""

    def __init__(
        self, provider_id: str, label: str, key_name: str | None, model_name: str, base_url_name: str | None,
        default_model: str, context_window: int, url_required: bool = False,
    ) -> None:
        super().__init__()
        self.id, self.label = provider_id, label
        self.key_name, self.model_name, self.base_url_name = key_name, model_name, base_url_name
        self.default_model = default_model
        self.context_window = context_window
        self.needs = tuple(n for n in ((key_name if not url_required else None), base_url_name if url_required else None) if n)
        self._client = None
        self._client_key: tuple | None = None

    @property
    def model(self) -> str:
        return config.get(self.model_name) or self.default_model

    def available(self) -> tuple[bool, str]:
        ok, why = super().available()
        return (ok, f"model {self.model}" if ok else why)

    def client(self):  # noqa: ANN201 - openai.OpenAI
        import openai

        key = (config.get(self.key_name) if self.key_name else None) or "not-needed"
        base = config.get(self.base_url_name) if self.base_url_name else None
        if self._client is None or self._client_key != (key, base, timeout_s(), max_retries()):
            install_log_redaction()
            self._client = openai.OpenAI(api_key=key, base_url=base or None, timeout=timeout_s(), max_retries=max_retries())
            self._client_key = (key, base, timeout_s(), max_retries())
        return self._client

    def _generate(self, req: Request) -> Answer:
        msgs = ([{"role": "system", "content": req.system}] if req.system else []) + [
            {"role": "user", "content": req.prompt}
        ]
        try:
            resp = self.client().chat.completions.create(
                model=self.model, messages=msgs, max_tokens=req.max_tokens, temperature=0.0
            )
            text = resp.choices[0].message.content or ""
            usage = resp.usage
        except _sdk_errors("openai") as exc:
            raise _describe(self.label, exc) from None
        return Answer(
            text=text.strip(),
            tokens_in=int(getattr(usage, "prompt_tokens", 0) or self.count_tokens(req.system + req.prompt)),
            tokens_out=int(getattr(usage, "completion_tokens", 0) or self.count_tokens(text)),
        )


class AnthropicProvider(Provider):
    id = "anthropic"
    label = "Anthropic"
    needs = ("ANTHROPIC_API_KEY",)
    context_window = 200_000

    def __init__(self) -> None:
        super().__init__()
        self._client = None
        self._client_key: tuple | None = None

    @property
    def model(self) -> str:
        return config.get("ANTHROPIC_MODEL") or "claude-3-5-haiku-latest"

    def available(self) -> tuple[bool, str]:
        ok, why = super().available()
        return (ok, f"model {self.model}" if ok else why)

    def client(self):  # noqa: ANN201 - anthropic.Anthropic
        import anthropic

        key, base = config.get("ANTHROPIC_API_KEY"), config.get("ANTHROPIC_BASE_URL")
        if self._client is None or self._client_key != (key, base, timeout_s(), max_retries()):
            install_log_redaction()
            self._client = anthropic.Anthropic(api_key=key, base_url=base or None, timeout=timeout_s(),
                                               max_retries=max_retries())
            self._client_key = (key, base, timeout_s(), max_retries())
        return self._client

    def _generate(self, req: Request) -> Answer:
        kwargs = {"system": req.system} if req.system else {}
        try:
            resp = self.client().messages.create(
                model=self.model, max_tokens=req.max_tokens,
                messages=[{"role": "user", "content": req.prompt}], **kwargs,
            )
            text = "".join(getattr(b, "text", "") for b in resp.content)
            usage = resp.usage
        except _sdk_errors("anthropic") as exc:
            raise _describe(self.label, exc) from None
        return Answer(text=text.strip(), tokens_in=int(usage.input_tokens), tokens_out=int(usage.output_tokens))

"""The registry of answering models. Adding a provider: one file, one ``register`` line below."""
from __future__ import annotations

from pathlib import Path

from .. import config
from ..errors import UserError
from .base import Provider

_REGISTRY: dict[str, Provider] = {}


def register(provider: Provider) -> Provider:
    _REGISTRY[provider.id] = provider
    return provider


def _builtins() -> None:
    from .extractive import ExtractiveProvider
    from .local_gguf import LlamaCppProvider, smollm2_path
    from .remote import AnthropicProvider, OpenAIProvider

    register(LlamaCppProvider(
        "smollm2", "SmolLM2-135M (tiny local model)", smollm2_path(),
        n_ctx=int(config.get("NEPAQA_SMOLLM_CONTEXT") or 2048),
        note="135M parameters, bundled and offline; fast but weak: expect many wrong answers",
    ))
    register(ExtractiveProvider())
    gguf = config.get("NEPAQA_GGUF_PATH")
    register(LlamaCppProvider(
        "gguf", f"Local GGUF ({Path(gguf).name})" if gguf else "Local GGUF file",
        Path(gguf) if gguf else None, n_ctx=int(config.get("NEPAQA_GGUF_CONTEXT") or 8192),
        note="your on-premises model, run by llama.cpp",
    ))
    register(OpenAIProvider("openai", "OpenAI", "OPENAI_API_KEY", "OPENAI_MODEL", "OPENAI_BASE_URL",
                            "gpt-4o-mini", 128_000))
    register(AnthropicProvider())
    register(OpenAIProvider("openai-compatible", "OpenAI-compatible server", "OPENAI_COMPAT_API_KEY",
                            "OPENAI_COMPAT_MODEL", "OPENAI_COMPAT_BASE_URL", "default",
                            int(config.get("OPENAI_COMPAT_CONTEXT") or 8192), url_required=True))


def all_providers() -> list[Provider]:
    if not _REGISTRY:
        _builtins()
    return list(_REGISTRY.values())


def status_all() -> list[tuple[Provider, bool, str]]:
    return [(p, *p.available()) for p in all_providers()]


def available_ids() -> list[str]:
    return [p.id for p, ok, _ in status_all() if ok]


def get(provider_id: str) -> Provider:
    providers = {p.id: p for p in all_providers()}
    if provider_id not in providers:
        raise UserError(f"Unknown model '{provider_id}'. Known: {', '.join(providers)}.")
    p = providers[provider_id]
    ok, why = p.available()
    if not ok:
        raise UserError(f"Model '{provider_id}' is not available: {why}.")
    return p


def reset() -> None:
    """Forget the registry so the next call re-reads configuration (tests, changed secrets)."""
    _REGISTRY.clear()

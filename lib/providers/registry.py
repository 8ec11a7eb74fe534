"""The registry of concrete answering models. Adding a model family: one file, one line in ``_builtins``.

Ids are ``family/model`` (``openai/gpt-4o-mini``, ``local/smollm2-135m``). Short aliases (``smollm2``,
``extractive``, ``openai``) are accepted where a user types a model, and resolve to one concrete id; results are
always keyed by the concrete id.
"""
from __future__ import annotations

from pathlib import Path

from .. import config
from ..errors import UserError
from .base import Provider

_REGISTRY: dict[str, Provider] = {}
_ALIASES: dict[str, str] = {}
_LOADED = [False]


def register(model: Provider) -> Provider:
    _REGISTRY[model.id] = model
    for alias in model.aliases:
        _ALIASES.setdefault(alias, model.id)
    return model


def _builtins() -> None:
    from .extractive import ExtractiveProvider
    from .local_gguf import LlamaCppProvider, smollm2_path
    from .remote import anthropic_models, compat_models, openai_models

    register(LlamaCppProvider(
        "local", "smollm2-135m", "SmolLM2-135M (tiny local model)", smollm2_path(),
        n_ctx=int(config.get("NEPAQA_SMOLLM_CONTEXT") or 2048),
        note="135M parameters, bundled and offline; fast but weak: expect many wrong answers",
        aliases=("smollm2",),
    ))
    register(ExtractiveProvider())
    gguf = config.get("NEPAQA_GGUF_PATH")
    if gguf:
        register(LlamaCppProvider(
            "gguf", Path(gguf).stem, f"Local GGUF ({Path(gguf).name})", Path(gguf),
            n_ctx=int(config.get("NEPAQA_GGUF_CONTEXT") or 8192), note="your on-premises model, run by llama.cpp",
            aliases=("gguf",),
        ))
    for family_alias, models in (("openai", openai_models()), ("anthropic", anthropic_models()),
                                 ("compat", compat_models())):
        for m in models:
            register(m)
        if models:
            _ALIASES.setdefault(family_alias, models[0].id)
            if family_alias == "compat":
                _ALIASES.setdefault("openai-compatible", models[0].id)


def all_providers() -> list[Provider]:
    if not _LOADED[0]:
        _LOADED[0] = True
        _builtins()
    return list(_REGISTRY.values())


all_models = all_providers


def status_all() -> list[tuple[Provider, bool, str]]:
    return [(p, *p.available()) for p in all_providers()]


def available_ids() -> list[str]:
    return [p.id for p, ok, _ in status_all() if ok]


def resolve(model_id: str) -> str:
    """The concrete id for an id or alias; raises a UserError naming what is known."""
    all_providers()
    name = (model_id or "").strip()
    if name in _REGISTRY:
        return name
    if name in _ALIASES:
        return _ALIASES[name]
    family = name.split("/", 1)[0] if "/" in name else ""
    setting = {"openai": "OPENAI_MODEL", "anthropic": "ANTHROPIC_MODEL", "compat": "OPENAI_COMPAT_MODEL",
               "gguf": "NEPAQA_GGUF_PATH"}.get(family)
    if setting:
        listed = ", ".join(p.id for p in _REGISTRY.values() if p.family == family) or "none"
        raise UserError(f"Model '{name}' is not configured (configured {family} models: {listed}). "
                        f"Add it to {setting} (comma-separated) in the environment or .streamlit/secrets.toml.")
    known = ", ".join([*_REGISTRY, *sorted(_ALIASES)])
    raise UserError(f"Unknown model '{name}'. Known: {known}.")


def get(model_id: str) -> Provider:
    p = _REGISTRY[resolve(model_id)]
    ok, why = p.available()
    if not ok:
        raise UserError(f"Model '{p.id}' is not available: {why}.")
    return p


def resolve_all(model_ids: list[str]) -> list[str]:
    """Concrete ids for a list of ids or aliases, once each, in order."""
    return list(dict.fromkeys(resolve(m) for m in model_ids))


def reset() -> None:
    """Forget the registry so the next call re-reads configuration (tests, changed secrets)."""
    _REGISTRY.clear()
    _ALIASES.clear()
    _LOADED[0] = False


SMOLLM2, EXTRACTIVE = "local/smollm2-135m", "local/extractive"
OFFLINE_DEFAULTS = (SMOLLM2, EXTRACTIVE)


def is_llm(model: Provider) -> bool:
    """A language model (can write, judge, translate); the extractive baseline is not one."""
    return model.id != EXTRACTIVE

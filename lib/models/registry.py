"""The registry of concrete answering models. Adding a model family: one file, one line in ``BUILTIN_FAMILIES``.

Ids are ``family/model`` (``openai/gpt-4o-mini``, ``local/smollm2-135m``). Short aliases (``smollm2``,
``extractive``, ``openai``) are accepted where a user types a model, and resolve to one concrete id; results are
always keyed by the concrete id.
"""
from __future__ import annotations

import importlib.metadata
import logging
import threading

from lib.core.errors import UserError
from lib.models import extractive, local_gguf, remote, server_facts
from lib.models.base import Provider

_REGISTRY: dict[str, Provider] = {}
_ALIASES: dict[str, str] = {}
_LOADED = [False]
_LOADING = [False]
_LOAD_LOCK = threading.RLock()  # reentrant: a plugin that registers may ask the registry


def register(model: Provider) -> Provider:
    _REGISTRY[model.id] = model
    for alias in model.aliases:
        _ALIASES.setdefault(alias, model.id)
    return model


BUILTIN_FAMILIES = (local_gguf, extractive, remote)  # each has register_models(register), as a plugin would


def _builtins() -> None:
    """Built-in model families register exactly as plugins do: a ``register_models(register)`` hook per module.
    Installed packages add families through the ``nepaqa.models`` entry-point group with the same hook."""
    for family in BUILTIN_FAMILIES:
        family.register_models(register)
    for ep in importlib.metadata.entry_points(group="nepaqa.models"):
        try:
            ep.load()(register)
        except Exception as exc:  # noqa: BLE001 - a broken plugin must not take the built-in models down
            logging.getLogger(__name__).warning("model plugin %s failed to load: %s", ep.name, type(exc).__name__)
    for family_name in ("openai", "anthropic", "compat"):
        first = next((p.id for p in _REGISTRY.values() if p.family == family_name), None)
        if first:
            _ALIASES.setdefault(family_name, first)
            if family_name == "compat":
                _ALIASES.setdefault("openai-compatible", first)


def all_providers() -> list[Provider]:
    if not _LOADED[0]:
        with _LOAD_LOCK:  # two threads asking first (a worker's first two cells) both see the whole registry
            if not _LOADED[0] and not _LOADING[0]:  # _LOADING: a model being registered asks (same thread)
                _LOADING[0] = True
                try:
                    _builtins()
                    _LOADED[0] = True
                finally:
                    _LOADING[0] = False
    return list(_REGISTRY.values())


all_models = all_providers


def status_all(check: bool = False) -> list[tuple[Provider, bool, str]]:
    """Every model with whether it is available and why. ``check``: servers are asked (their model lists; a few
    seconds at most, and not more than every 15 s), for `models` and Home; else what was last found, no network."""
    return [(p, *(p.check() if check else p.available())) for p in all_providers()]


def recheck_servers() -> list[tuple[Provider, bool, str]]:
    """``status_all(check=True)`` with every server asked now, not from the last 15 s (a person's "check")."""
    server_facts.forget_listings()
    return status_all(check=True)


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


def find(model_id: str) -> Provider:
    """The model an id or alias names, available or not (for what a page shows of a stored answer: no network)."""
    return _REGISTRY[resolve(model_id)]


def get(model_id: str) -> Provider:
    p = _REGISTRY[resolve(model_id)]
    ok, why = p.available()
    if not ok:
        ok, why = p.recheck()  # asked now where there is a server to ask: one found down may be back
    if not ok:
        raise UserError(f"Model '{p.id}' is not available: {why}.")
    return p


def get_judge(model_id: str, what: str = "answers") -> Provider:
    """A model asked to judge ``what`` (answers, items, votes): as ``get``, and refused in plain words when it
    cannot judge (``Provider.can_judge``: the extractive baseline quotes and gives no verdict)."""
    return checked_judge(get(model_id), what)


def checked_judge(p: Provider, what: str = "answers") -> Provider:
    if not p.can_judge:
        raise UserError(f"'{p.label}' is not a language model and cannot judge {what}: it quotes passages and gives "
                        "no verdict. Pick a language model (a connected one for verdicts that can stand).")
    return p


def judge_choices() -> dict[str, str]:
    """The models that can judge now (available, and ``can_judge``): id → label, for a page's picker."""
    return {p.id: p.label for p, ok, _ in status_all() if ok and p.can_judge}


def resolve_all(model_ids: list[str]) -> list[str]:
    """Concrete ids for a list of ids or aliases, once each, in order."""
    return list(dict.fromkeys(resolve(m) for m in model_ids))


def reset() -> None:
    """Forget the registry so the next call re-reads configuration (tests, changed secrets), and what servers
    said about themselves."""
    server_facts.forget()
    with _LOAD_LOCK:
        _REGISTRY.clear()
        _ALIASES.clear()
        _LOADED[0] = False


SMOLLM2, EXTRACTIVE = "local/smollm2-135m", "local/extractive"
OFFLINE_DEFAULTS = (SMOLLM2, EXTRACTIVE)


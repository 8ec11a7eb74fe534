"""On-demand machine translation of exam questions into English, for readers who do not read Chinese.

A connected language model translates a question and its options once; the result is cached in the store (by
model and text) and always shown as a machine translation beside the original. Translations are never sent to
a model under test and never enter a score: the exam is asked and scored in Chinese, as published."""
from __future__ import annotations

import hashlib

from sqlalchemy import insert, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from lib.core.access import Action, authorize
from lib.core.errors import UserError
from lib.core.redaction import redact
from lib.models import registry
from lib.models.base import ProviderError, Request
from lib.storage import tables
from lib.storage.engine import get_engine

SYSTEM = "You translate Chinese exam questions about environmental science into clear English."
PROMPT = """Translate this multiple-choice question and its options from Chinese into English.
Keep the option letters. Reply with the translation only, nothing else.

{text}"""


def translators() -> dict[str, str]:
    """Models that can translate: connected language models (not the tiny local one, not the extractive
    baseline), by id with their label."""
    return {p.id: p.label for p, ok, _ in registry.status_all() if ok and p.judges_reliably}


def _key(model_id: str, text: str) -> str:
    return hashlib.sha256(f"{model_id}\x1f{text}".encode()).hexdigest()


def cached(model_id: str, text: str, engine: Engine | None = None) -> str | None:
    t = tables.translations
    with (engine or get_engine()).connect() as c:
        row = c.execute(select(t.c.translation).where(t.c.key == _key(model_id, text))).first()
    return row[0] if row else None


def translate(model_id: str, text: str, engine: Engine | None = None) -> str:
    """The English translation of ``text`` by ``model_id``: from the cache, or asked once and cached."""
    authorize(Action.ASK, "a translation")
    engine = engine or get_engine()
    hit = cached(model_id, text, engine)
    if hit is not None:
        return hit
    model = registry.get(model_id)
    if not model.judges_reliably:
        raise UserError(f"{model.label} cannot translate; connect a language model (OpenAI, Anthropic or your own "
                        "server) to translate questions.")
    try:
        ans = model.generate(Request(prompt=PROMPT.format(text=text), system=SYSTEM, max_tokens=600))
    except ProviderError as exc:
        raise UserError(f"The translation failed: {redact(str(exc))}") from exc
    out = redact(ans.text or "").strip()
    if not out:
        raise UserError(f"{model.label} returned an empty translation; try again or pick another model.")
    try:
        with engine.begin() as c:
            c.execute(insert(tables.translations).values(key=_key(model_id, text), model=model_id, source=text,
                                                        translation=out))
    except IntegrityError:  # translated meanwhile by another session: keep the first
        return cached(model_id, text, engine) or out
    return out

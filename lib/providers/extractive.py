"""Extractive baseline: answers with the context sentences most similar to the question. No LLM."""
from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from ..retrieval import tokenize
from ..verdict import NO, YES, is_negated
from .base import Answer, ModelOptions, Provider, Request

_SENT = re.compile(r"(?<=[.!?;])\s+(?=[A-Z0-9\"(\[])|\n+")
_ABBREV = re.compile(r"(\b(?:[A-Z]\.){1,4}|\b(?:e\.g|i\.e|etc|Dr|Mr|Ms|Mrs|No|Nos|Fig|Figs|Sec|approx|vs|Inc|Co|St)\.)$")
MAX_CANDIDATES = 64


def split_sentences(text: str) -> list[str]:
    """Sentences, without breaking after abbreviations such as "U.S." or "e.g."."""
    out: list[str] = []
    for piece in _SENT.split(text):
        piece = piece.strip()
        if not piece:
            continue
        if out and _ABBREV.search(out[-1]):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


class ExtractiveProvider(Provider):
    family, model_name = "local", "extractive"
    aliases = ("extractive",)
    label = "Extractive baseline (no LLM)"
    options = ModelOptions(temperature=None, context_window=100_000)
    note = "copies the 2 context sentences closest to the question; instant, deterministic, a floor to beat"

    def __init__(self, n_sentences: int = 2) -> None:
        super().__init__()
        self.n = n_sentences

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def _generate(self, req: Request) -> Answer:
        from ..embedding import get_embedder

        sentences = [s for s in split_sentences(req.context or "") if len(s.split()) >= 4]
        if not sentences:
            return Answer(
                text="(no context: the extractive baseline only quotes a given passage)",
                tokens_in=self.count_tokens(req.question), verdict="unclear" if req.closed else None,
            )
        if len(sentences) > MAX_CANDIDATES:
            # A whole document has thousands of sentences: embed only those sharing the most words with the question.
            q_words = set(tokenize(req.question))
            ranked = sorted(range(len(sentences)), key=lambda i: -len(q_words & set(tokenize(sentences[i]))))
            sentences = [sentences[i] for i in sorted(ranked[:MAX_CANDIDATES])]
        emb = get_embedder()
        vecs = emb.embed([req.question, *sentences])
        sims = vecs[1:] @ vecs[0]
        top = sorted(np.argsort(-sims)[: self.n].tolist())
        text = " ".join(sentences[i] for i in top)
        verdict = None
        if req.closed:
            # A heuristic, stated honestly: the best-matching sentence negated means "no", else "yes".
            # is_negated reads didn't/isn't/cannot/never/none but not "Order No. 11990" or "no action alternative".
            best = sentences[int(np.argmax(sims))]
            verdict = NO if is_negated(best) else YES
            text = f"{verdict.capitalize()}. {text}"
        return Answer(text=text, tokens_in=self.count_tokens(req.question + " " + req.context),
                      tokens_out=self.count_tokens(text), verdict=verdict)


def register_models(register: Callable[[Provider], Provider]) -> None:
    register(ExtractiveProvider())

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


_SOURCE_HEADER = re.compile(r"^\[(\d{1,3})\] \(.*\)$")  # "[2] (FEIS › 4.3 Wetlands, p. 71)", as rag_context writes
_PAGE_HEADER = re.compile(r"^\[page \d+\]$")  # full-PDF mode's page markers


def numbered_sentences(context: str) -> list[tuple[int | None, str]]:
    """The context's sentences, each with the number of the source it comes from (None outside numbered sources).
    The lines of a passage are joined first: PDF text breaks lines mid-sentence, and a sentence must stay whole."""
    out: list[tuple[int | None, str]] = []
    number: int | None = None
    lines: list[str] = []

    def flush() -> None:
        text = " ".join(" ".join(lines).split())
        out.extend((number, s) for s in split_sentences(text) if len(s.split()) >= 4)
        lines.clear()

    for line in context.splitlines():
        stripped = line.strip()
        head = _SOURCE_HEADER.match(stripped)
        if head or _PAGE_HEADER.match(stripped) or (not stripped and len(lines) > 0 and number is None):
            flush()
            if head:
                number = int(head.group(1))
            continue
        lines.append(stripped)
    flush()
    return out


class ExtractiveProvider(Provider):
    family, model_name = "local", "extractive"
    aliases = ("extractive",)
    label = "Extractive baseline (no LLM)"
    options = ModelOptions(temperature=None, context_window=100_000)
    note = ("copies the 2 context sentences closest to the question, citing their sources; instant, deterministic, "
            "a floor to beat")

    def __init__(self, n_sentences: int = 2) -> None:
        super().__init__()
        self.n = n_sentences

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def _generate(self, req: Request) -> Answer:
        from ..embedding import get_embedder

        tagged = numbered_sentences(req.context or "")
        sentences = [s for _, s in tagged]
        if not sentences:
            return Answer(
                text="(no context: the extractive baseline only quotes a given passage)",
                tokens_in=self.count_tokens(req.question), verdict="unclear" if req.closed else None,
            )
        if len(sentences) > MAX_CANDIDATES:
            # A whole document has thousands of sentences: embed only those sharing the most words with the question.
            q_words = set(tokenize(req.question))
            ranked = sorted(range(len(sentences)), key=lambda i: -len(q_words & set(tokenize(sentences[i]))))
            keep = sorted(ranked[:MAX_CANDIDATES])
            tagged = [tagged[i] for i in keep]
            sentences = [sentences[i] for i in keep]
        emb = get_embedder()
        vecs = emb.embed([req.question, *sentences])
        sims = vecs[1:] @ vecs[0]
        top = sorted(np.argsort(-sims)[: self.n].tolist())
        # each quoted sentence carries the number of its source, so the answer cites like a model's would
        text = " ".join(sentences[i] + (f" [{tagged[i][0]}]" if tagged[i][0] else "") for i in top)
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

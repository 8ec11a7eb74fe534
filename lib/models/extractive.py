"""Extractive baseline: answers with the whole context sentences most similar to the question. No LLM.

Sentences come from lib/core/context_text.py (pysbd's sentences, read out of the context's sources and pages).
Only whole sentences are quoted: a piece that starts mid-sentence (a chunk's first words), ends without a full stop (a chunk's
last words, a table cell), or is a heading or a dot-leader line is never a candidate. A list item is one where it ends
(the next item or a break follows it), with or without a full stop; such quotes go one to a line. Quoted
sentences appear in document order, each with its source number and page where the context gives one."""
from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import numpy as np

from lib.core.context_text import Sentence, context_sentences
from lib.core.json_types import JSONObject
from lib.core.sentences import is_whole
from lib.core.text import short_titles, tokenize
from lib.core.verdict import QUOTES_ONLY
from lib.models.base import NO_CONTEXT, NO_SENTENCE, Answer, ModelOptions, Provider, Request
from lib.models.embedding import get_exact_embedder

MAX_CANDIDATES = 64


@functools.lru_cache(maxsize=8)
def _sentences_of(context: str, source_docs: tuple[tuple[int, str], ...]) -> tuple[Sentence, ...]:
    """``context_sentences``, kept for the last few contexts: full-PDF mode gives every question of a benchmark
    the same whole document, and splitting it into sentences costs far more than answering."""
    return tuple(context_sentences(context, dict(source_docs)))


def _dedupe(sentences: Sequence[Sentence]) -> list[Sentence]:
    """Overlapping chunks repeat sentences: keep the first copy of each."""
    seen: set[str] = set()
    out = []
    for s in sentences:
        key = " ".join(tokenize(s.text))
        if key and key not in seen:
            seen.add(key)
            out.append(s)
    return out


def _cite(s: Sentence, doc: str = "") -> str:
    """The sentence with its marker and place: "… [2] (p. 8)", or with several documents "… [2] (CONUS
    Interceptor Site, p. 8)"."""
    where = ", ".join(x for x in (doc, s.page) if x)
    ref = " ".join(x for x in (f"[{s.source}]" if s.source else "", f"({where})" if where else "") if x)
    return f"{s.text} {ref}" if ref else s.text


def quote(sentences: list[Sentence], several: bool = False) -> str:
    """The quoted sentences as the answer, in document order. With ``several`` documents in the context, each
    citation names its document (short title) and each document's sentences are a paragraph of their own, so no
    sentence of one EIS runs on into one of another."""
    def joined(group: list[Sentence], short: dict[str, str]) -> str:
        # a list item has no full stop of its own: each quote on a line, so none runs on into the next
        sep = " " if all(is_whole(s.text) for s in group) else "\n"
        return sep.join(_cite(s, short.get(s.doc, "")) for s in group)

    if not several:
        return joined(sentences, {})
    docs = list(dict.fromkeys(s.doc for s in sentences))
    short = short_titles([d for d in docs if d])
    return "\n\n".join(joined([s for s in sentences if s.doc == d], short) for d in docs)


class ExtractiveProvider(Provider):
    family, model_name = "local", "extractive"
    local = True  # runs here (on the embedder), beside the other local work
    count_unit = "counted in words"
    aliases = ("extractive",)
    label = "Extractive baseline (no LLM)"
    language_model = False  # it quotes sentences: it cannot judge, translate or write items
    options = ModelOptions(temperature=None, context_window=100_000)
    note = ("quotes the 2 whole sentences of the context closest to the question, with their sources and pages; "
            "instant, deterministic, a floor to beat")

    def __init__(self, n_sentences: int = 2) -> None:
        super().__init__()
        self.n = n_sentences

    def manifest_entry(self) -> JSONObject:
        return super().manifest_entry() | {"sentences": self.n, "splitter": "pysbd 0.3 (whole sentences only)"}

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def _generate(self, req: Request) -> Answer:
        if not (req.context or "").strip():
            return Answer(
                text=NO_CONTEXT,
                tokens_in=self.count_tokens(req.question), verdict=QUOTES_ONLY if req.closed else None,
            )
        tagged = _dedupe(_sentences_of(req.context, tuple(sorted((req.source_docs or {}).items()))))
        several = bool(req.source_docs) or len({s.doc for s in tagged}) > 1
        if not tagged:
            return Answer(
                text=NO_SENTENCE,
                tokens_in=self.count_tokens(req.question + " " + req.context), verdict=QUOTES_ONLY if req.closed else None,
            )
        if len(tagged) > MAX_CANDIDATES:
            # A whole document has thousands of sentences: embed only those sharing the most words with the question.
            q_words = set(tokenize(req.question))
            ranked = sorted(range(len(tagged)), key=lambda i: -len(q_words & set(tokenize(tagged[i].text))))
            tagged = [tagged[i] for i in sorted(ranked[:MAX_CANDIDATES])]
        emb = get_exact_embedder()  # exact vectors: the baseline's answers do not depend on the ingest backend
        vecs = emb.embed([req.question, *(s.text for s in tagged)])
        sims = vecs[1:] @ vecs[0]
        top = sorted(np.argsort(-sims)[: self.n].tolist())  # back in document order
        # each quoted sentence carries its source number and page, so the answer cites like a model's would
        text = quote([tagged[i] for i in top], several)
        # No yes or no: quoting cannot decide one, and a "no" inside a quote is no verdict. A closed question gets
        # the quotes with "Quotes only:" before them, and the verdict "quotes only" (counted apart, never wrong).
        verdict = QUOTES_ONLY if req.closed else None
        if req.closed:
            text = f"Quotes only:\n{text}"
        return Answer(text=text, tokens_in=self.count_tokens(req.question + " " + req.context),
                      tokens_out=self.count_tokens(text), verdict=verdict, verdict_source="none" if req.closed else None)


def register_models(register: Callable[[Provider], Provider]) -> None:
    register(ExtractiveProvider())

"""The offline stand-in for answer correctness: 0.75 × SQuAD-style token F1 + 0.25 × semantic similarity.

It is NOT RAGAS answer correctness (which needs a judge model to split and classify statements) and is named
"token-F1 proxy (not RAGAS)" wherever it appears; it is never shown beside published RAGAS figures. A model
that restates the question scores well on it: read it as a rough floor, not a grade.
"""
from __future__ import annotations

import re
from collections import Counter

from lib.evaluation.metrics.base import NO_ANSWER, NO_STATEMENTS, OK, MetricResult, Sample
from lib.evaluation.metrics.semantic_similarity import Embed, cosine

W_FACTUAL, W_SEMANTIC = 0.75, 0.25
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = re.compile(r"[^\w\s]")


def f1_from_counts(tp: int, fp: int, fn: int) -> float | None:
    """F1 = TP / (TP + 0.5 (FP + FN)); None when there is nothing to compare (all three zero)."""
    if tp + fp + fn == 0:
        return None
    return tp / (tp + 0.5 * (fp + fn))


def norm_tokens(text: str) -> list[str]:
    return _ARTICLES.sub(" ", _PUNCT.sub(" ", text.lower())).split()


def token_f1(answer: str, truth: str) -> tuple[float | None, dict[str, int]]:
    """TP = shared tokens, FP = extra answer tokens, FN = missed truth tokens."""
    a, t = Counter(norm_tokens(answer)), Counter(norm_tokens(truth))
    tp = sum((a & t).values())
    fp = sum(a.values()) - tp
    fn = sum(t.values()) - tp
    return f1_from_counts(tp, fp, fn), {"tp": tp, "fp": fp, "fn": fn}


class TokenF1Proxy:
    name = "token_f1_proxy"
    label = "Token-F1 proxy (not RAGAS)"
    needs = ("answer", "truth")

    def __init__(self, embed: Embed) -> None:
        self.embed = embed

    def applies(self, sample: Sample, mode: str) -> bool:
        return not sample.closed

    def score(self, sample: Sample) -> MetricResult:
        if not (sample.answer or "").strip():
            return MetricResult(self.name, 0.0, NO_ANSWER, {"factual": 0.0, "semantic": 0.0})
        truth = sample.truth or ""  # a need: the Scorer scores no sample without it
        factual, counts = token_f1(sample.answer or "", truth)
        semantic = cosine(self.embed, sample.answer or "", truth)
        details = {"semantic": round(semantic, 4), **counts}
        if factual is None:
            return MetricResult(self.name, None, NO_STATEMENTS, details | {"factual": None})
        details["factual"] = round(factual, 4)
        return MetricResult(self.name, round(W_FACTUAL * factual + W_SEMANTIC * semantic, 4), OK, details)

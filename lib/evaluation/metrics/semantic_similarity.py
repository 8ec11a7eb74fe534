"""Semantic similarity: cosine of the answer's and the ground truth's embeddings (the offline MiniLM),
clipped to [0, 1]. RAGAS uses it as the 0.25 part of answer correctness."""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from lib.evaluation.metrics.base import NO_ANSWER, OK, MetricResult, Sample

Embed = Callable[[Sequence[str]], np.ndarray]


def cosine(embed: Embed, a: str, b: str) -> float:
    vecs = embed([a, b])
    return float(max(0.0, min(1.0, float(vecs[0] @ vecs[1]))))


class SemanticSimilarity:
    name = "semantic_similarity"
    label = "Semantic similarity (MiniLM cosine)"
    needs = ("answer", "truth")

    def __init__(self, embed: Embed) -> None:
        self.embed = embed

    def applies(self, sample: Sample, mode: str) -> bool:
        return not sample.closed

    def score(self, sample: Sample) -> MetricResult:
        if not (sample.answer or "").strip():
            return MetricResult(self.name, 0.0, NO_ANSWER)
        return MetricResult(self.name, round(cosine(self.embed, sample.answer or "", sample.truth or ""), 4), OK)

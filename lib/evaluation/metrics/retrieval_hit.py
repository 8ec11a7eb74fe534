"""Retrieval hit@k: 1 when the chunks given to a RAG answer contain the item's gold passage
(trigram overlap coefficient ≥ 0.5, see passage_overlap.is_hit), else 0."""
from __future__ import annotations

from lib.evaluation.metrics.base import OK, MetricResult, Sample
from lib.evaluation.metrics.passage_overlap import is_hit


class RetrievalHit:
    name = "retrieval_hit"
    label = "Retrieval hit@k (gold passage among the chunks)"
    needs = ("contexts", "gold_context")

    def applies(self, sample: Sample, mode: str) -> bool:
        return mode == "rag" and bool(sample.gold_context)

    def score(self, sample: Sample) -> MetricResult:
        return MetricResult(self.name, float(int(is_hit(sample.contexts, sample.gold_context))), OK,
                            {"sources": len(sample.contexts)})  # top-k chunks grouped by page span

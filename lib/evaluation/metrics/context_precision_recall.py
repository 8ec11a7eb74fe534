"""Context precision and context recall of a RAG answer's retrieved passages against the item's gold passage,
offline (RAGAS's context precision and recall with a reference, computed by text overlap instead of a judge):

- a gold sentence is *found* in a passage when at least half of its word trigrams are in the passage (the
  threshold of retrieval hit@k, passage_overlap.py, applied sentence by sentence as containment, so a short
  fragment of a passage cannot "find" a long sentence; sentences under 5 words are not counted);
- context recall: the share of the gold passage's sentences found in some retrieved passage;
- context precision: RAGAS's average precision over the ranked passages, a passage being relevant when it holds a
  gold sentence: Σ_k precision@k · rel_k / (relevant passages); 0 when none is relevant.
Both apply to RAG answers of items that have a gold passage."""
from __future__ import annotations

from lib.core.sentences import split_sentences
from lib.evaluation.metrics.base import NOT_APPLICABLE, OK, MetricResult, Sample
from lib.evaluation.metrics.passage_overlap import HIT_THRESHOLD, trigrams

MIN_GOLD_WORDS = 5


def gold_sentences(gold: str) -> list[str]:
    return [s for s in split_sentences(gold) if len(s.split()) >= MIN_GOLD_WORDS] or ([gold] if gold.strip() else [])


def contained(sentence: str, passage: str) -> float:
    """The share of the sentence's word trigrams that the passage holds."""
    ts = trigrams(sentence)
    return len(ts & trigrams(passage)) / len(ts) if ts else 0.0


def found(sentences: list[str], passages: list[str]) -> list[list[bool]]:
    """passages × gold sentences: does the passage hold the sentence?"""
    return [[contained(s, p) >= HIT_THRESHOLD for s in sentences] for p in passages]


class _ContextMetric:
    needs = ("contexts", "gold_context")

    def applies(self, sample: Sample, mode: str) -> bool:
        return mode == "rag" and bool(sample.gold_context.strip())

    def _grid(self, sample: Sample) -> tuple[list[str], list[list[bool]]]:
        key = "context_grid"
        if key not in sample.cache:
            sents = gold_sentences(sample.gold_context)
            sample.cache[key] = (sents, found(sents, list(sample.contexts)))
        return sample.cache[key]


class ContextRecall(_ContextMetric):
    name = "context_recall"
    label = "Context recall (vs the gold passage, offline)"

    def score(self, sample: Sample) -> MetricResult:
        sents, grid = self._grid(sample)
        if not sents or not grid:
            return MetricResult(self.name, None, NOT_APPLICABLE, {"why": "no gold sentence or no passage"})
        hit = [any(row[i] for row in grid) for i in range(len(sents))]
        return MetricResult(self.name, round(sum(hit) / len(sents), 4), OK,
                            {"gold_sentences": len(sents), "found": sum(hit)})


class ContextPrecision(_ContextMetric):
    name = "context_precision"
    label = "Context precision (vs the gold passage, offline)"

    def score(self, sample: Sample) -> MetricResult:
        sents, grid = self._grid(sample)
        if not sents or not grid:
            return MetricResult(self.name, None, NOT_APPLICABLE, {"why": "no gold sentence or no passage"})
        relevant = [any(row) for row in grid]
        total, seen = 0.0, 0
        for k, rel in enumerate(relevant, start=1):
            if rel:
                seen += 1
                total += seen / k
        value = total / seen if seen else 0.0
        return MetricResult(self.name, round(value, 4), OK,
                            {"passages": len(relevant), "relevant": [i + 1 for i, r in enumerate(relevant) if r]})

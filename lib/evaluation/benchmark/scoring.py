"""Scoring a benchmark answer: which metrics apply, computed by the metric modules in lib/evaluation/metrics.

Closed items: closed accuracy (exact yes/no). Other items: RAGAS answer correctness (0.75 × factual F1 over
statements + 0.25 × semantic similarity) when a judge model is configured, else the token-F1 proxy (not
RAGAS), always named as such. RAG answers also get retrieval hit@k.

Beside them, never averaged with them, the reference-free scores (metrics/faithfulness.py,
metrics/context_precision_recall.py): faithfulness and citation precision by the offline support checker, and by
the judge when there is one (each checker its own metric); context precision and recall against the gold passage.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from lib.evaluation.metrics import (
    AnswerCorrectness,
    CitationPrecision,
    ClosedAccuracy,
    ContextPrecision,
    ContextRecall,
    Faithfulness,
    Metric,
    MetricResult,
    RetrievalHit,
    Sample,
    SemanticSimilarity,
    TokenF1Proxy,
    answer_correctness,
    checked_score,
    unknown_needs,
)
from lib.evaluation.metrics.base import RETRY_STATUSES
from lib.models.base import Provider
from lib.qa.context_passage import ContextPassage

if TYPE_CHECKING:  # for the checker only
    import numpy as np

    from lib.documents.pdf import Page
    from lib.evaluation.benchmark.dataset import Item
    from lib.evaluation.benchmark.runs import MetricScore

METRIC_LABELS = {
    "closed_accuracy": "Closed accuracy",
    "ragas_answer_correctness": "Answer correctness (RAGAS, judge model)",
    "answer_correctness": "Answer correctness (RAGAS, judge model)",
    "token_f1_proxy": "Token-F1 proxy (not RAGAS)",
    "semantic_similarity": "Semantic similarity",
    "retrieval_hit": "Retrieval hit@k",
    "faithfulness_offline": "Faithfulness (offline checker)",
    "faithfulness_judge": "Faithfulness (judge)",
    "citation_precision_offline": "Citation precision (offline checker)",
    "citation_precision_judge": "Citation precision (judge)",
    "context_precision": "Context precision (vs gold, offline)",
    "context_recall": "Context recall (vs gold, offline)",
}
# The reference-free scores, in the order the page shows them; each its own column, never averaged with another.
REFERENCE_FREE = ("faithfulness_offline", "faithfulness_judge", "citation_precision_offline",
                  "citation_precision_judge", "context_precision", "context_recall")


def headline_metric(judge: str | None) -> str:
    """The stored metric that is a run's open score: the judge's RAGAS answer correctness, or the proxy."""
    return "answer_correctness" if judge else "token_f1_proxy"


def public_metric_name(metric: str) -> str:
    """The name the CLI JSON uses: ``ragas_answer_correctness`` or ``token_f1_proxy``."""
    return "ragas_answer_correctness" if metric == "answer_correctness" else metric


def judge_templates() -> dict[str, str]:
    return dict(getattr(answer_correctness, "PROMPTS", {}))


class Scorer:
    """The metrics of one run, bound to its judge (or none) and the embedder."""

    def __init__(self, judge: Provider | None, embed: Callable[[Sequence[str]], np.ndarray],
                 pages_of: Callable[[str], Sequence[Page]] | None = None) -> None:
        self.judge = judge
        self._pages: dict[str, Sequence[Page]] = {}  # a document's pages, read once per run for full-PDF answers
        self._pages_of = pages_of
        self.metrics: list[Metric] = [ClosedAccuracy(), SemanticSimilarity(embed), TokenF1Proxy(embed),
                                      RetrievalHit(), Faithfulness(pages_of=self.pages if pages_of else None),
                                      CitationPrecision(), ContextPrecision(), ContextRecall()]
        if judge is not None:
            self.metrics += [AnswerCorrectness(judge, embed), Faithfulness(judge), CitationPrecision(judge)]
        for m in self.metrics:  # a metric that names a field a sample does not have is a programming error
            wrong = unknown_needs(m.needs)
            if wrong:
                raise TypeError(f"metric {m.name} needs {', '.join(wrong)}, which is no field of a Sample")

    def pages(self, doc_id: str) -> Sequence[Page]:
        if doc_id not in self._pages:
            self._pages[doc_id] = self._pages_of(doc_id) if self._pages_of else []
        return self._pages[doc_id]

    def applicable(self, sample: Sample, mode: str) -> list[Metric]:
        return [m for m in self.metrics if m.applies(sample, mode)]

    @staticmethod
    def sample(item: Item, answer: str | None, verdict: str | None, sources: Sequence[ContextPassage],
               mode: str = "") -> Sample:
        return Sample(question=item.question, answer=answer, truth=item.answer, question_type=item.question_type,
                      verdict=verdict, contexts=[c.text for c in sources],
                      gold_context=item.context or "", mode=mode, sources=list(sources))

    def score(self, item: Item, mode: str, answer: str | None, verdict: str | None,
              sources: Sequence[ContextPassage]) -> list[MetricResult]:
        """Every metric that applies to this answer; ``sources`` are its stored contexts (text, number, pages)."""
        s = self.sample(item, answer, verdict, sources, mode)
        return [checked_score(m, s) for m in self.applicable(s, mode)]

    def needs_rescore(self, item: Item, mode: str, stored: Mapping[str, MetricScore]) -> bool:
        """A metric missing, or a judge's score that failed or found no statements (retried on resume; the
        offline metrics are deterministic, so scoring them again would change nothing)."""
        s = self.sample(item, "", None, [], mode)
        for m in self.applicable(s, mode):
            row = stored.get(m.name)
            if row is None or (row.status in RETRY_STATUSES and row.scorer != "offline"):
                return True
        return False

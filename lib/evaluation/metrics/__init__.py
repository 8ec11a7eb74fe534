"""Metrics, one per file (ragas is the model): each names the fields it reads (``needs``, checked against the
sample before it scores: ``checked_score``) and returns a ``MetricResult`` with a status, never a silent NaN.
Closed accuracy; RAGAS answer correctness with a judge; the offline token-F1 proxy; semantic similarity; retrieval
hit@k (and the passage-overlap rule it and item generation share); the reference-free scores: faithfulness and
citation precision (offline checker or judge), context precision and recall against the gold passage."""
from lib.evaluation.metrics.answer_correctness import AnswerCorrectness
from lib.evaluation.metrics.base import (
           STATUS_WORDS,
           Metric,
           MetricResult,
           Sample,
           checked_score,
           missing_needs,
           unknown_needs,
)
from lib.evaluation.metrics.closed_accuracy import ClosedAccuracy
from lib.evaluation.metrics.context_precision_recall import ContextPrecision, ContextRecall
from lib.evaluation.metrics.faithfulness import CitationPrecision, Faithfulness
from lib.evaluation.metrics.passage_overlap import first_hit_rank, is_hit, overlap_coefficient
from lib.evaluation.metrics.retrieval_hit import RetrievalHit
from lib.evaluation.metrics.semantic_similarity import SemanticSimilarity
from lib.evaluation.metrics.token_f1_proxy import TokenF1Proxy

__all__ = ["STATUS_WORDS", "AnswerCorrectness", "CitationPrecision", "ClosedAccuracy", "ContextPrecision", "ContextRecall",
           "Faithfulness", "Metric", "MetricResult", "RetrievalHit", "Sample", "SemanticSimilarity", "TokenF1Proxy",
           "checked_score", "first_hit_rank", "is_hit", "missing_needs", "overlap_coefficient", "unknown_needs"]

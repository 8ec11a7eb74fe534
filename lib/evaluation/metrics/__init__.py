"""Metrics, one per file (ragas is the model): each names the fields it reads and returns a ``MetricResult`` with a
status, never a silent NaN. Closed accuracy; RAGAS answer correctness with a judge; the offline token-F1 proxy;
semantic similarity; retrieval hit@k (and the passage-overlap rule it and item generation share)."""
from lib.evaluation.metrics.answer_correctness import AnswerCorrectness
from lib.evaluation.metrics.base import MetricResult, Sample
from lib.evaluation.metrics.closed_accuracy import ClosedAccuracy
from lib.evaluation.metrics.passage_overlap import first_hit_rank, is_hit, overlap_coefficient
from lib.evaluation.metrics.retrieval_hit import RetrievalHit
from lib.evaluation.metrics.semantic_similarity import SemanticSimilarity
from lib.evaluation.metrics.token_f1_proxy import TokenF1Proxy

__all__ = ["AnswerCorrectness", "ClosedAccuracy", "MetricResult", "RetrievalHit", "Sample", "SemanticSimilarity",
           "TokenF1Proxy", "first_hit_rank", "is_hit", "overlap_coefficient"]

"""Evaluation: the metrics (``metrics``), NEPAQuAD-style benchmark runs (``benchmark``) and the EnviroExam exam
(``exam``)."""
from lib.evaluation import benchmark, exam, metrics

__all__ = ["benchmark", "exam", "metrics"]

"""Closed accuracy: 1 when the yes/no verdict equals the gold answer, else 0; an unclear verdict scores 0. A model
that gives no verdict by design (the extractive baseline's "quotes only") is not scored: counted apart as "no
verdict", never as wrong."""
from __future__ import annotations

from lib.core.verdict import QUOTES_ONLY, UNCLEAR, parse_verdict
from lib.evaluation.metrics.base import NO_VERDICT, OK, MetricResult, Sample
from lib.evaluation.metrics.base import UNCLEAR as ST_UNCLEAR


class ClosedAccuracy:
    name = "closed_accuracy"
    label = "Closed accuracy (exact yes/no)"
    needs = (("verdict", "answer"), "truth")

    def applies(self, sample: Sample, mode: str) -> bool:
        return sample.closed

    def score(self, sample: Sample) -> MetricResult:
        verdict = sample.verdict or parse_verdict(sample.answer)
        truth = (sample.truth or "").strip().lower()
        details = {"verdict": verdict, "truth": truth}
        if verdict == QUOTES_ONLY:
            return MetricResult(self.name, None, NO_VERDICT, details)
        if verdict == UNCLEAR:
            return MetricResult(self.name, 0.0, ST_UNCLEAR, details)
        return MetricResult(self.name, 1.0 if verdict == truth else 0.0, OK, details)

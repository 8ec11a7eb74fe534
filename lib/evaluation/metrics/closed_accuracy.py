"""Closed accuracy: 1 when the yes/no verdict equals the gold answer, else 0; an unclear verdict scores 0."""
from __future__ import annotations

from lib.core.verdict import UNCLEAR, parse_verdict
from lib.evaluation.metrics.base import OK, MetricResult, Sample
from lib.evaluation.metrics.base import UNCLEAR as ST_UNCLEAR


class ClosedAccuracy:
    name = "closed_accuracy"
    label = "Closed accuracy (exact yes/no)"
    needs = ("verdict or answer", "truth")

    def applies(self, sample: Sample, mode: str) -> bool:
        return sample.closed

    def score(self, sample: Sample) -> MetricResult:
        verdict = sample.verdict or parse_verdict(sample.answer)
        truth = (sample.truth or "").strip().lower()
        details = {"verdict": verdict, "truth": truth}
        if verdict == UNCLEAR:
            return MetricResult(self.name, 0.0, ST_UNCLEAR, details)
        return MetricResult(self.name, 1.0 if verdict == truth else 0.0, OK, details)

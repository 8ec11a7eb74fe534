"""What every metric shares: the sample it reads and the result it returns."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

# Statuses. "ok" and "unclear" carry a value (an unclear yes/no scores 0); the others carry none and are
# counted and shown apart, never averaged in.
OK, UNCLEAR, NO_ANSWER = "ok", "unclear", "no_answer"
JUDGE_FAILED, NO_STATEMENTS, NOT_APPLICABLE = "judge_failed", "no_statements", "not_applicable"
NO_VERDICT = "no_verdict"  # a closed answer with no yes or no by design (quotes only): shown apart, never scored
RETRY_STATUSES = (JUDGE_FAILED, NO_STATEMENTS)  # re-scored on resume and by rescore


@dataclass
class Sample:
    """One answer to one item, as the metrics see it."""

    question: str
    answer: str | None
    truth: str
    question_type: str = ""
    verdict: str | None = None
    contexts: list[str] = field(default_factory=list)
    gold_context: str = ""
    mode: str = ""
    sources: list[dict] = field(default_factory=list)  # the contexts as stored: numbered, with their pages
    cache: dict[str, Any] = field(default_factory=dict, repr=False)  # work two metrics share (a support check)

    @property
    def closed(self) -> bool:
        return self.question_type == "closed"


@dataclass
class MetricResult:
    metric: str
    value: float | None
    status: str = OK
    details: dict[str, Any] = field(default_factory=dict)
    scorer: str = "offline"  # the judge's model id where a judge did the scoring

    @property
    def scored(self) -> bool:
        return self.value is not None


class Metric(Protocol):
    name: str
    label: str
    needs: tuple[str, ...]

    def applies(self, sample: Sample, mode: str) -> bool: ...

    def score(self, sample: Sample) -> MetricResult: ...

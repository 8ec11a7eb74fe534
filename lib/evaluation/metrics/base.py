"""What every metric shares: the sample it reads and the result it returns."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Protocol

from lib.qa.context_passage import ContextPassage

# Statuses. "ok" and "unclear" carry a value (an unclear yes/no scores 0); the others carry none and are
# counted and shown apart, never averaged in.
OK, UNCLEAR, NO_ANSWER = "ok", "unclear", "no_answer"
JUDGE_FAILED, NO_STATEMENTS, NOT_APPLICABLE = "judge_failed", "no_statements", "not_applicable"
NO_VERDICT = "no_verdict"  # a closed answer with no yes or no by design (quotes only): shown apart, never scored
RETRY_STATUSES = (JUDGE_FAILED, NO_STATEMENTS)  # re-scored on resume and by rescore
# A status as a reader says it (the Benchmark items table and answer cards); "failed": the answer itself failed.
STATUS_WORDS = {OK: "scored", UNCLEAR: "unclear yes/no (scores 0)", NO_ANSWER: "no answer",
                JUDGE_FAILED: "the judge failed", NO_STATEMENTS: "nothing to check", NOT_APPLICABLE: "does not apply",
                NO_VERDICT: "no yes/no given", "failed": "answer failed"}


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
    sources: list[ContextPassage] = field(default_factory=list)  # the contexts as stored: numbered, with pages
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


# A metric's ``needs``: the Sample fields it reads, each one a field name or a tuple of names of which one is
# enough (closed accuracy reads the verdict, or else the answer's text).
Need = str | tuple[str, ...]


class Metric(Protocol):
    """What the Scorer calls: a metric's name, label and needs (read-only: class attributes satisfy them)."""

    @property
    def name(self) -> str: ...

    @property
    def label(self) -> str: ...

    @property
    def needs(self) -> tuple[Need, ...]: ...

    def applies(self, sample: Sample, mode: str) -> bool: ...

    def score(self, sample: Sample) -> MetricResult: ...


SAMPLE_FIELDS = frozenset(f.name for f in fields(Sample))


def unknown_needs(needs: Sequence[Need]) -> list[str]:
    """The names in ``needs`` that are no field of a Sample (a metric declared wrongly)."""
    return [n for need in needs for n in ((need,) if isinstance(need, str) else need) if n not in SAMPLE_FIELDS]


def missing_needs(needs: Sequence[Need], sample: Sample) -> list[str]:
    """The needs ``sample`` does not give (its field is None; for a group, every field of it is)."""
    out = []
    for need in needs:
        group = (need,) if isinstance(need, str) else need
        if all(getattr(sample, n) is None for n in group):
            out.append(" or ".join(group))
    return out


def checked_score(metric: Metric, sample: Sample) -> MetricResult:
    """``metric.score(sample)`` when the sample gives all the metric needs; else not applicable, saying what is
    missing (never a score made from an absent field)."""
    missing = missing_needs(metric.needs, sample)
    if missing:
        return MetricResult(metric.name, None, NOT_APPLICABLE, {"why": f"the answer has no {', '.join(missing)}"})
    return metric.score(sample)

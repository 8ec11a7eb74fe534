"""Reference-free scores of an answer against its own sources, from a support check (lib/qa/support.py):

- faithfulness: the share of the answer's sentences that are *supported* by the passages it was given (RAGAS
  faithfulness, with sentences for statements); *partly supported* counts as not supported, and so does a sentence
  left uncited in an answer that cites (it cannot be traced to a source, so leaving a claim uncited never helps);
- citation precision: the share of its citation markers whose source holds the sentence's evidence (PaperQA2's
  citation precision); a marker pointing to no source holds nothing.

Each comes twice, named apart and never in one column: from the offline checker (always) and from the run's judge
model (when it has one). Both apply to RAG and gold answers, the modes whose passages are numbered sources; the
offline faithfulness also to full-PDF answers, checked against the pages the window kept (read again from the
document; markers set aside). A bare yes/no, which states nothing to check, gets status ``no_statements`` and no
value."""
from __future__ import annotations

from typing import Any

from lib.core.errors import UserError
from lib.core.redaction import redact
from lib.evaluation.metrics.base import JUDGE_FAILED, NO_ANSWER, NO_STATEMENTS, NOT_APPLICABLE, OK, MetricResult, Sample
from lib.models.base import Provider, ProviderError
from lib.qa import support
from lib.qa.support_judge import judge_check

CHECKED_MODES = ("rag", "gold")
MAX_MARKS = 40  # sentences kept in a score's details (the marks an export carries)


def _report(sample: Sample, judge: Provider | None = None, pages_of: support.PagesOf | None = None) -> support.SupportReport | str:
    """The sample's support check by the offline checker or ``judge``, made once for all the metrics that read
    it; a judge call that fails gives its reason instead."""
    key = f"support:{getattr(judge, 'id', 'offline')}"
    if key not in sample.cache:
        if sample.mode == "pdf":
            passages = support.pdf_passages(sample.sources, pages_of) if pages_of else []
            sample.cache[key] = (support.check(support.bare(sample.answer or ""), passages) if passages
                                 else "the pages the window kept were not recorded with this answer")
            return sample.cache[key]
        passages = support.passages_of(sample.sources, sample.mode)
        if judge is None:
            sample.cache[key] = support.check(sample.answer or "", passages, question=sample.question,
                                              verdict=sample.verdict if sample.closed else None,
                                              holds_answer=sample.mode == "gold")
        else:
            try:
                sample.cache[key] = judge_check(sample.answer or "", passages, judge)
            except (UserError, ProviderError) as exc:  # a failed judge call is counted, never raised
                sample.cache[key] = redact(str(exc))
    return sample.cache[key]


def marks(report: support.SupportReport) -> list[dict[str, Any]]:
    """The sentences' marks as a score's details keep them (JSON; texts cut to 400 characters)."""
    return [m.as_json() | {"text": m.text[:400], "evidence": m.evidence[:400]} for m in report.marks(MAX_MARKS)]


class _SupportMetric:
    kind = ""  # "faithfulness" or "citation_precision"
    needs = ("answer", "sources")

    def __init__(self, judge: Provider | None = None, pages_of: support.PagesOf | None = None) -> None:
        self.judge = judge
        self.pages_of = pages_of  # a document's pages, for full-PDF answers (offline faithfulness only)
        checker = "judge" if judge is not None else "offline"
        self.name = f"{self.kind}_{checker}"
        self.scorer = judge.id if judge is not None else "offline"

    def applies(self, sample: Sample, mode: str) -> bool:
        return mode in CHECKED_MODES

    def _result(self, value: float | None, status: str, details: dict[str, Any]) -> MetricResult:
        return MetricResult(self.name, None if value is None else round(value, 4), status, details, self.scorer)

    def score(self, sample: Sample) -> MetricResult:
        if not (sample.answer or "").strip():
            return self._result(None, NO_ANSWER, {})
        report = _report(sample, self.judge, self.pages_of)
        if isinstance(report, str):
            status = JUDGE_FAILED if self.judge is not None else NOT_APPLICABLE
            return self._result(None, status, {"error" if self.judge is not None else "why": report})
        return self.measure(report)

    def measure(self, report: support.SupportReport) -> MetricResult:
        raise NotImplementedError


class Faithfulness(_SupportMetric):
    kind = "faithfulness"

    def applies(self, sample: Sample, mode: str) -> bool:
        return mode in CHECKED_MODES or (mode == "pdf" and self.judge is None and self.pages_of is not None)

    @property
    def label(self) -> str:
        return f"Faithfulness ({'judge' if self.judge is not None else 'offline checker'})"

    def measure(self, report: support.SupportReport) -> MetricResult:
        counts = report.counts()
        checked = counts[support.SUPPORTED] + counts[support.PARTLY] + counts[support.UNSUPPORTED]
        details = {"counts": counts, "verdict": report.verdict, "summary": report.summary(), "marks": marks(report),
                   "failures": report.failures}
        if report.failures or counts[support.NOT_JUDGED]:  # an incomplete judgement is a failure, retried
            return self._result(None, JUDGE_FAILED, details)
        if checked == 0:  # no claim, or none the checker could decide: no value rather than a guess
            return self._result(None, NO_STATEMENTS, details)
        # claims it could not decide and claims without a citation count as not shown supported; sentences making
        # no claim (lead-ins, refusals, remarks) are left out
        denominator = checked + counts[support.NOT_CHECKED] + counts[support.NO_SOURCE]
        return self._result(counts[support.SUPPORTED] / denominator, OK, details)


class CitationPrecision(_SupportMetric):
    kind = "citation_precision"

    @property
    def label(self) -> str:
        return f"Citation precision ({'judge' if self.judge is not None else 'offline checker'})"

    def applies(self, sample: Sample, mode: str) -> bool:
        return mode == "rag"  # the mode whose prompt asks for [n] markers

    def measure(self, report: support.SupportReport) -> MetricResult:
        holding, total = report.citation_precision()
        details = {"holding": holding, "citations": total, "invalid": report.citations["invalid"],
                   "misattributed": len(report.citations["misattributed"]), "failures": report.failures}
        if report.failures:
            return self._result(None, JUDGE_FAILED, details)
        if total == 0:
            return self._result(None, NOT_APPLICABLE, details | {"why": "the answer cites no source"})
        return self._result(holding / total, OK, details)

"""The support checkers calibrated against NEPA experts.

Experts answer one more question in review: "Is each sentence of the answer supported by the sources shown?"
(label ``sentences_supported``, yes / no; the sources shown are the item's proof passage). Each checker answers it
too, for the same items: the offline checker (lib/qa/support.py) says *yes* when its verdict is *supported*
(every checkable sentence supported), *no* otherwise; a judge model (lib/qa/support_judge.py) the same from its
own verdicts, stored apart from the experts' labels in ``judge_labels``. An answer with no sentence to check (a
bare yes or no) gets no checker verdict and is left out, counted.

``calibration`` reports, per checker, its agreement with the experts over every (item, expert) label both have:
percent agreement and Cohen's κ with n. Until ``CALIBRATED_AT`` expert labels can be compared, a checker is
*uncalibrated*, and its figures are only a first look."""
from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.engine import Engine

from lib.core.access import Action, authorize
from lib.core.errors import UserError
from lib.core.pool import run_tasks
from lib.core.progress import CountProgressFn
from lib.core.redaction import redact
from lib.core.stats.agreement import kappa_interval, two_rater_agreement
from lib.core.stats.inference import wilson_interval
from lib.models import ProviderError, registry
from lib.qa import support
from lib.qa.support_judge import judge_check
from lib.qa.support_model import MarkFigure
from lib.review import annotations as ann
from lib.storage import tables
from lib.storage.audit import connected_run
from lib.storage.engine import get_engine, upsert

LABEL = "sentences_supported"
QUESTION = "Is each sentence of the answer supported by the sources shown?"
CALIBRATED_AT = 30  # expert labels a checker is compared on before its figures are more than a first look
THRESHOLDS = {
    "offline": ("yes when every claim is ✓: the fitted classifier's chance that it is all supported reaches the ✓ "
                "cut chosen on labelled dev data (✓ right ≥ 90% there), and no number, date, name or negation "
                "differs from its evidence; claims it cannot decide leave the answer without a verdict"),
    "judge": "yes when the model gives every sentence the verdict 'supported' (its own judgement; no score)",
}


def _engine(engine: Engine | None) -> Engine:
    return engine or get_engine()


NOTHING = "nothing to check (a bare yes/no or a few words)"


def _verdict(report: support.SupportReport) -> str | None:
    """yes / no, or None where the check says nothing: no sentence to check, or a judge that left one unjudged."""
    if report.failures or report.verdict in (support.NO_SOURCE, support.NOT_JUDGED, support.NOTHING,
                                             support.NOT_CHECKED):
        return None
    return "yes" if report.verdict == support.SUPPORTED else "no"


def _passages(item: ann.ReviewItem) -> list[support.Passage]:
    page = f"p. {item.page_number}" if item.page_number else ""
    return [support.Passage(1, item.proof or "", page)] if (item.proof or "").strip() else []


def expert_labels(engine: Engine | None = None) -> dict[str, dict[str, str]]:
    """{item: {expert: yes/no}} for the support label (the adjudicator's final labels are not an expert's)."""
    out: dict[str, dict[str, str]] = {}
    for lb in ann.labels(engine):
        if lb.label == LABEL:
            out.setdefault(lb.item_id, {})[lb.annotator] = lb.value
    return out


def offline_verdicts(items: Sequence[ann.ReviewItem]) -> tuple[dict[str, str], Counter]:
    """The offline checker's yes/no per item, and why items got none."""
    got: dict[str, str] = {}
    left: Counter[str] = Counter()
    for it in items:
        passages = _passages(it)
        if not passages:
            left["no proof passage"] += 1
            continue
        v = _verdict(support.check(it.answer or "", passages))
        if v is None:
            left[NOTHING] += 1
        else:
            got[it.item_id] = v
    return got, left


NONE = "none"  # judge_labels.status of an item whose answer has nothing to check: no verdict, and no failure


def judge_verdicts(judge_id: str, engine: Engine | None = None) -> tuple[dict[str, str], Counter]:
    """A judge's stored yes/no per item, and the items it gave none, by why (failed, nothing to check)."""
    t = tables.judge_labels
    with _engine(engine).connect() as c:
        rows = c.execute(select(t.c.item_id, t.c.value, t.c.status).where(t.c.judge == judge_id, t.c.label == LABEL))
        got: dict[str, str] = {}
        none: Counter[str] = Counter()
        for item_id, value, status in rows:
            if status == "ok" and value in ("yes", "no"):
                got[item_id] = value
            else:
                none[NOTHING if status == NONE else "judge failed"] += 1
    return got, none


def support_judges(engine: Engine | None = None) -> list[str]:
    t = tables.judge_labels
    with _engine(engine).connect() as c:
        return [r[0] for r in c.execute(select(t.c.judge).where(t.c.label == LABEL).distinct().order_by(t.c.judge))]


@dataclass(frozen=True)
class SupportChecked:
    """What one support ``judge_items`` call did: answers checked, answers with nothing to check (stored with the
    reason, not asked again), checks that failed (tried again next time) and items checked before (skipped)."""

    checked: int = 0
    nothing_to_check: int = 0
    failed: int = 0
    skipped: int = 0


def judge_items(model_id: str, item_ids: Sequence[str] | None = None, engine: Engine | None = None,
                progress: CountProgressFn | None = None, cancel: threading.Event | None = None) -> SupportChecked:
    """Have a judge model check the support of the items' answers (the items experts labelled, or ``item_ids``),
    storing its yes/no apart from the experts'. Items it checked before are skipped; failed ones are tried again;
    an item with nothing to check is stored as such, with the reason. Returns the counts (``SupportChecked``)."""
    authorize(Action.RUN_BENCHMARK, "check support with a judge")
    provider = registry.get(model_id)
    connected_run(provider, "support check")
    engine = _engine(engine)
    ids = list(item_ids) if item_ids is not None else sorted(expert_labels(engine))
    t = tables.judge_labels
    with engine.connect() as c:  # checked before, or nothing to check: not asked again; failures are
        done = {r[0] for r in c.execute(select(t.c.item_id).where(t.c.judge == provider.id, t.c.label == LABEL,
                                                                   t.c.status.in_(("ok", NONE))))}
    todo = [it for it in ann.items(ids, engine=engine) if it.item_id not in done]
    counts: Counter[str] = Counter()
    lock = threading.Lock()

    def work(item: ann.ReviewItem) -> str:
        value, error, raw, status = None, None, None, "failed"
        try:
            report = judge_check(item.answer or "", _passages(item), provider)
            value = _verdict(report)
            raw = redact(report.summary())[:2000]
            if value is not None:
                status = "ok"
            elif report.failures or report.verdict == support.NOT_JUDGED:
                error = f"no verdict: {len(report.failures)} judge failure(s)"
            else:
                status, error = NONE, NOTHING
        except (UserError, ProviderError) as exc:  # the item is stored as failed, and the others go on
            error = redact(str(exc))
        row = {"item_id": item.item_id, "judge": provider.id, "label": LABEL, "value": value, "raw": raw,
               "status": status, "error": error, "created_at": func.now()}
        with engine.begin() as c:
            c.execute(upsert(engine, tables.judge_labels, row, ("item_id", "judge", "label"),
                             ("value", "raw", "status", "error", "created_at")))
        word = {"ok": "checked", NONE: "nothing to check", "failed": "failed"}[status]
        with lock:
            counts[word] += 1
        return f"{item.item_id}: {word}" + (f" ({error})" if status == "failed" else "")

    run_tasks(work, [(it,) for it in todo], 4 if provider.concurrent else 1, progress, cancel or threading.Event())
    return SupportChecked(counts["checked"], counts["nothing to check"], counts["failed"], len(ids) - len(todo))


@dataclass(frozen=True)
class CheckerAgreement:
    """One checker (the offline checker, or a judge model) against the experts' support labels: one pair per
    (item, expert), with n, percent agreement and Cohen's κ with their 95% intervals, what was left out and why,
    and whether it rests on enough labels (``CALIBRATED_AT``) to be read as calibrated."""

    checker: str  # offline | judge
    name: str
    threshold: str
    n: int
    agree: int
    percent: float | None
    kappa: float | None
    note: str | None
    percent_ci95: list[float] | None
    kappa_ci95: list[float] | None
    left_out: dict[str, int]
    calibrated: bool


@dataclass(frozen=True)
class Calibration:
    """Each checker's agreement with the experts on the support label."""

    n_labels: int
    n_items: int
    calibrated_at: int
    checkers: list[CheckerAgreement]


def _pooled(checker: str, name: str, verdicts: dict[str, str], experts: dict[str, dict[str, str]],
            left_out: dict[str, int]) -> CheckerAgreement:
    """The checker against every expert label of an item it has a verdict on: one pair per (item, expert), with
    95% intervals (Wilson for the percent; a bootstrap over the pairs for κ)."""
    theirs = {f"{item}\x1f{who}": v for item, by in experts.items() for who, v in by.items()}
    mine = {key: verdicts[key.split("\x1f")[0]] for key in theirs if key.split("\x1f")[0] in verdicts}
    two = two_rater_agreement(mine, theirs)
    common = sorted(mine)
    return CheckerAgreement(
        checker, name, THRESHOLDS[checker], two.n, two.agree, two.percent, two.kappa, two.note,
        [round(100 * x, 1) for x in wilson_interval(two.agree, two.n)] if two.n else None,
        kappa_interval([mine[k] for k in common], [theirs[k] for k in common]) if two.kappa is not None else None,
        left_out, two.n >= CALIBRATED_AT)


def calibration(engine: Engine | None = None, judges: Sequence[str] | None = None) -> Calibration:
    """Each checker's agreement with the experts on the support label: the offline checker's, then each judge's."""
    engine = _engine(engine)
    experts = expert_labels(engine)
    n_labels = sum(len(v) for v in experts.values())
    items = ann.items(sorted(experts), engine=engine)
    rows = []
    offline, left = offline_verdicts(items)
    rows.append(_pooled("offline", "Offline checker", offline, experts, dict(left)))
    for judge in (support_judges(engine) if judges is None else judges):
        verdicts, none = judge_verdicts(judge, engine)
        unchecked = sum(1 for i in experts if i not in verdicts) - sum(none.values())
        left_j = dict(none) | ({"not checked by this judge yet": unchecked} if unchecked > 0 else {})
        rows.append(_pooled("judge", f"Judge: {judge}", verdicts, experts, left_j))
    return Calibration(n_labels, len(experts), CALIBRATED_AT, rows)


def expert_mark_figures(engine: Engine | None = None) -> dict[str, MarkFigure] | None:
    """The marks against the experts, once ``CALIBRATED_AT`` expert labels can be compared (else None): how often
    an answer whose every claim is ✓ is one the expert calls supported (✓ precision), and how often an answer the
    expert calls unsupported has a ✗ (✗ recall); each with n and a 95% Wilson interval."""
    engine = _engine(engine)
    experts = expert_labels(engine)
    if sum(len(v) for v in experts.values()) < CALIBRATED_AT:
        return None
    sup, caught = [], []
    for it in ann.items(sorted(experts), engine=engine):
        passages = _passages(it)
        if not passages:
            continue
        report = support.check(it.answer or "", passages)
        has_x = any(s.status == support.UNSUPPORTED for s in report.sentences)
        for value in experts.get(it.item_id, {}).values():
            if report.verdict == support.SUPPORTED:
                sup.append(value == "yes")
            if value == "no":
                caught.append(has_x)

    def fig(xs: list[bool]) -> MarkFigure:
        if not xs:
            return MarkFigure(None, 0, None, None)
        lo, hi = wilson_interval(sum(xs), len(xs))
        return MarkFigure(sum(xs) / len(xs), len(xs), lo, hi)

    return {support.SUPPORTED: fig(sup), support.UNSUPPORTED: fig(caught)}


__all__ = ["CALIBRATED_AT", "expert_mark_figures", "LABEL", "QUESTION", "THRESHOLDS", "SupportChecked", "calibration", "judge_items", "judge_verdicts",
           "offline_verdicts"]

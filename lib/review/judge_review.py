"""A judge model labels review items the way the experts do, and is calibrated against them.

The judge records the three agreement labels of the expert review (``annotations.AGREEMENT_LABELS``, with the
value sets of ``annotations.LABELS``) in its own table, ``judge_labels``, so the experts' own agreement
statistics never see it. ``judge_agreement`` then reports, per label, percent agreement and Cohen's κ of the
judge against each expert and against the adjudicated set's final label.
"""
from __future__ import annotations

import json
import re
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Engine

from lib.core.access import Action, authorize
from lib.core.errors import UserError
from lib.core.pool import run_tasks
from lib.core.progress import CountProgressFn
from lib.core.redaction import redact
from lib.core.stats.agreement import SMALL_SHARED as SMALL_SAMPLE
from lib.core.stats.agreement import TwoRaters, two_rater_agreement
from lib.evaluation.benchmark.generate import GUIDELINES
from lib.models import registry
from lib.models.base import Provider, ProviderError, Request
from lib.review import annotations as ann
from lib.storage import tables
from lib.storage.audit import connected_run
from lib.storage.engine import get_engine, upsert

JUDGE_LABELS: tuple[str, ...] = tuple(ann.AGREEMENT_LABELS)
VALUES: dict[str, tuple[str, ...]] = {name: tuple(ann.LABELS[name] or ()) for name in JUDGE_LABELS}
QUESTIONS = ann.QUESTIONS  # the judge is asked what the experts are asked
MAX_REPLY_TOKENS = 120
RAW_LIMIT = 4000

SYSTEM = (
    "You are an expert reviewer of U.S. National Environmental Policy Act (NEPA) documents. You check "
    "question-answer items drawn from Environmental Impact Statements, exactly as a human NEPA expert would, "
    "and reply with a JSON object only."
)

PROMPT = """Review one benchmark item built from an Environmental Impact Statement (EIS).

The ten question types:
{definitions}

The item:
Claimed question type: {qtype}
Question: {question}
Answer: {answer}
Proof (the passage of the EIS the item was built from):
\"\"\"
{proof}
\"\"\"

Decide three things:
{checks}

Reply with only this JSON object, one value per key, each value exactly one of the listed strings:
{schema}"""


def _engine(engine: Engine | None) -> Engine:
    return engine or get_engine()


def render(item: ann.ReviewItem, proof_chars: int = 6000) -> str:
    definitions = "\n".join(f"- {t}: {d}" for t, d in GUIDELINES.items())  # the text the experts read
    checks = "\n".join(
        f"- {name}: {QUESTIONS[name]} ({' / '.join(VALUES[name])})"
        + (" Use unsure only when the proof and your knowledge cannot settle it." if "unsure" in VALUES[name] else "")
        for name in JUDGE_LABELS
    )
    schema = "{" + ", ".join(f'"{n}": "{"|".join(VALUES[n])}"' for n in JUDGE_LABELS) + "}"
    proof = (item.proof or "").strip()
    if len(proof) > proof_chars:
        proof = proof[:proof_chars].rstrip() + " […]"
    return PROMPT.format(definitions=definitions, qtype=item.question_type or "", question=item.question or "",
                         answer=item.answer or "", proof=proof or "(none)", checks=checks, schema=schema)


def _proof_budget(provider: Provider) -> int:
    """Characters of proof that fit the judge's context window beside the rest of the prompt (≈3 chars a token,
    on the safe side; no tokenizer is loaded for this)."""
    overhead = len(SYSTEM) + len(render(ann.ReviewItem("", "", "", "", ""), 0))
    return max(600, min(12_000, (provider.context_window - MAX_REPLY_TOKENS - 64) * 3 - overhead))


_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.S | re.I)


def parse_reply(text: str) -> dict[str, str]:
    """The judge's labels from its reply. Raises ValueError (a plain, key-free reason) when the reply is not
    a JSON object, lacks a label, or gives a value outside the label's set."""
    s = (text or "").strip()
    m = _FENCE.match(s)
    if m:
        s = m.group(1)
    try:
        obj = json.loads(s)
    except json.JSONDecodeError:
        start, end = s.find("{"), s.rfind("}")
        try:
            obj = json.loads(s[start:end + 1]) if 0 <= start < end else None
        except json.JSONDecodeError:
            obj = None
        if obj is None:
            raise ValueError("the reply is not valid JSON") from None
    if not isinstance(obj, dict):
        raise ValueError("the reply is JSON but not an object with one value per label")
    out, problems = {}, []
    for name in JUDGE_LABELS:
        if name not in obj:
            problems.append(f"{name} is missing")
            continue
        raw = obj[name]
        value = raw.strip().lower() if isinstance(raw, str) else None
        if value not in VALUES[name]:
            problems.append(f"{name} = {json.dumps(raw)[:40]} is not one of {', '.join(VALUES[name])}")
        else:
            out[name] = value
    if problems:
        raise ValueError("; ".join(problems))
    return out


def _upsert(engine: Engine, row: dict) -> Any:
    return upsert(engine, tables.judge_labels, {**row, "created_at": func.now()}, ("item_id", "judge", "label"),
                  ("value", "raw", "status", "error", "created_at"))


def _save(engine: Engine, item_id: str, judge: str, values: dict[str, str] | None, raw: str | None,
          error: str | None) -> None:
    """One transaction per item: all its labels, or all marked failed."""
    with engine.begin() as c:
        for name in JUDGE_LABELS:
            c.execute(_upsert(engine, {
                "item_id": item_id, "judge": judge, "label": name,
                "value": values[name] if values else None, "raw": raw,
                "status": "ok" if values else "failed", "error": error,
            }))


def done_items(judge_id: str, engine: Engine | None = None) -> set[str]:
    """Items this judge has labelled successfully (every label ok)."""
    t = tables.judge_labels
    with _engine(engine).connect() as c:
        rows = c.execute(select(t.c.item_id, t.c.label).where(t.c.judge == judge_id, t.c.status == "ok")).fetchall()
    got: dict[str, set[str]] = {}
    for item_id, label in rows:
        got.setdefault(item_id, set()).add(label)
    return {i for i, names in got.items() if set(JUDGE_LABELS) <= names}


@dataclass(frozen=True)
class JudgedItems:
    """What one ``judge_items`` call did: items labelled, items whose call or reply failed (tried again next time),
    items skipped (labelled before, or not in the review pool) and items left when it was cancelled."""

    labelled: int = 0
    failed: int = 0
    skipped: int = 0
    cancelled: int = 0

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


@dataclass(frozen=True)
class JudgeLabel:
    """One stored label of a judge model (a row of ``judge_labels``): its value, or why it has none."""

    id: int
    item_id: str
    judge: str
    label: str
    value: str | None  # None when the item failed
    raw: str | None  # the model's reply
    status: str  # ok | failed
    error: str | None
    created_at: str


def judge_items(
    model_id: str, item_ids: Sequence[str] | None = None, engine: Engine | None = None,
    progress: CountProgressFn | None = None, cancel: threading.Event | None = None,
    max_workers: int = 4,
) -> JudgedItems:
    """Have a judge label the review items it has not labelled yet (all review items, or ``item_ids``).
    Resumable: items labelled before are skipped, failed ones are tried again. Returns the counts
    (``JudgedItems``); ``skipped`` also counts ids that are not in the review pool."""
    authorize(Action.RUN_BENCHMARK, "judge review items")
    provider = registry.get_judge(model_id, "items")
    judge = provider.id  # the concrete id, whatever alias was passed
    connected_run(provider, "judge")
    engine = _engine(engine)
    pool = ann.items(list(item_ids) if item_ids is not None else None, engine=engine)
    done = done_items(judge, engine)
    todo = [it for it in pool if it.item_id not in done]
    counts: Counter[str] = Counter()
    cancel = cancel or threading.Event()
    budget = _proof_budget(provider)
    lock = threading.Lock()

    def work(item: ann.ReviewItem) -> str:
        if cancel.is_set():
            with lock:
                counts["cancelled"] += 1
            return f"{item.item_id}: cancelled"
        raw: str | None = None
        try:
            ans = provider.generate(Request(prompt=render(item, budget), system=SYSTEM, max_tokens=MAX_REPLY_TOKENS))
            raw = redact(ans.text)[:RAW_LIMIT]
            values, error = parse_reply(ans.text), None
        except ProviderError as exc:
            values, error = None, redact(str(exc))
        except ValueError as exc:
            values, error = None, redact(str(exc))
        except Exception as exc:  # noqa: BLE001 - one item's failure, recorded and retried, never the batch's end
            values, error = None, redact(f"unexpected failure ({type(exc).__name__})")
        _save(engine, item.item_id, judge, values, raw, error)
        with lock:
            counts["labelled" if values else "failed"] += 1
        return f"{item.item_id}: " + ("labelled" if values else f"failed ({error})")

    run_tasks(work, [(it,) for it in todo], max_workers if provider.concurrent else 1, progress, cancel)
    skipped = (len(item_ids) if item_ids is not None else len(pool)) - len(todo)
    return JudgedItems(counts["labelled"], counts["failed"], skipped, counts["cancelled"])


def judges(engine: Engine | None = None) -> list[str]:
    """Every judge with stored labels of the experts' three questions (not the support check's, which
    support_calibration.py keeps in the same table)."""
    t = tables.judge_labels
    with _engine(engine).connect() as c:
        return [r[0] for r in c.execute(select(t.c.judge).where(t.c.label.in_(JUDGE_LABELS)).distinct()
                                        .order_by(t.c.judge))]


def judge_rows(judge_id: str, engine: Engine | None = None) -> list[JudgeLabel]:
    """The judge's stored rows (one per item × label), failures included."""
    t = tables.judge_labels
    with _engine(engine).connect() as c:
        q = select(t).where(t.c.judge == judge_id).order_by(t.c.item_id, t.c.label)
        return [JudgeLabel(**{**r, "created_at": str(r["created_at"])}) for r in c.execute(q).mappings()]


def _judge_id(judge_id: str, engine: Engine) -> str:
    """The stored id: as given when it has labels, else the registry's concrete id for an alias."""
    if judge_id in judges(engine):
        return judge_id
    try:
        return registry.get(judge_id).id
    except UserError:
        return judge_id


@dataclass(frozen=True)
class JudgeAgreement:
    """A judge model's labels of one kind against the experts': each expert, and the adjudicated set."""

    n_judged: int
    vs_experts: dict[str, TwoRaters]
    vs_adjudicated: TwoRaters


def judge_agreement(judge_id: str, engine: Engine | None = None) -> dict[str, JudgeAgreement]:
    """Per label, the judge against each expert and against the adjudicated set. Experts are the annotators of the expert labels (the adjudicator excluded); the adjudicated
    label is the adjudicated set's final value (the adjudicator's where set, else the experts' unanimous
    value; disputed items are left out)."""
    engine = _engine(engine)
    judge = _judge_id(judge_id, engine)
    mine: dict[str, dict[str, str]] = {name: {} for name in JUDGE_LABELS}
    for r in judge_rows(judge, engine):
        if r.status == "ok" and r.label in mine and r.value is not None:
            mine[r.label][r.item_id] = r.value
    experts: dict[str, dict[str, dict[str, str]]] = {name: {} for name in JUDGE_LABELS}
    for lb in ann.labels(engine):
        if lb.label in experts:
            experts[lb.label].setdefault(lb.annotator, {})[lb.item_id] = lb.value
    final: dict[str, dict[str, str]] = {name: {} for name in JUDGE_LABELS}
    for f in ann.adjudicated_set(engine):
        if f.label in final and f.value is not None:
            final[f.label][f.item_id] = f.value
    return {name: JudgeAgreement(len(mine[name]), {who: two_rater_agreement(mine[name], vals)
                                                   for who, vals in sorted(experts[name].items())},
                                 two_rater_agreement(mine[name], final[name]))
            for name in JUDGE_LABELS}


def sentence(judge_id: str, other: str, r: TwoRaters) -> str:
    """A plain sentence for one comparison, e.g. 'On 12 items, the judge agreed with Alice on 83% (κ 0.61).'"""
    if not r.n:
        return f"The judge {judge_id} and {other} have labelled no item in common yet."
    kappa = f"κ {r.kappa:.2f}" if r.kappa is not None else "κ undefined"
    text = (f"On {r.n} item{'s' if r.n != 1 else ''}, the judge {judge_id} agreed with {other} on "
            f"{r.percent or 0:.0f}% ({kappa}).")
    if r.n < SMALL_SAMPLE:
        text += f" Small sample: fewer than {SMALL_SAMPLE} items, so treat this as rough."
    return text

"""Expert review: items to review, batches, labels (one per item × expert × label, history kept), adjudicated
labels, and labels exported and imported as CSV. Who may do what is lib/review/reviewers.py's."""
from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields

from sqlalchemy import insert, select
from sqlalchemy.engine import Engine

from lib.core import access
from lib.core.access import Action
from lib.core.csv_safe import rows_to_csv
from lib.core.errors import UserError
from lib.core.stats.agreement import Label
from lib.evaluation.benchmark.dataset import QUESTION_TYPES, Item
from lib.review.labels_csv import LABEL_COLUMNS, LabelsCSVError, RowProblem, parse_labels_csv
from lib.review.reviewers import (
    ADJUDICATOR,
    check_import_rights,
    check_reviewer_name,
    may_adjudicate,
    reserved_name_reason,
)
from lib.storage import tables
from lib.storage.audit import guarded
from lib.storage.engine import get_engine, upsert

# The labels an expert records for an item.
LABELS = {
    "type_correct": ("yes", "no"),
    "true_type": None,  # one of the ten question types, when type_correct is no
    "answer_correct": ("yes", "no", "unsure"),
    "proof_supports": ("yes", "no"),
    # the support checkers' calibration (lib/review/support_calibration.py): each sentence backed by the sources
    # shown? Optional: an item is done without it, and it is not among the experts' agreement labels
    "sentences_supported": ("yes", "no"),
    "comment": None,  # free text
}
AGREEMENT_LABELS = ("type_correct", "answer_correct", "proof_supports")
# The three questions an expert answers for each item (Validate asks them; a judge model is asked the same).
QUESTIONS = {
    "type_correct": "Is the question of its claimed type?",
    "answer_correct": "Is the answer correct?",
    "proof_supports": "Does the proof support the answer?",
}
INCOMPLETE = "Answer the three questions before saving."


def review_complete(values: dict[str, str]) -> bool:
    """Whether a review answers all three questions (what saving it requires)."""
    return all(values.get(label) for label in AGREEMENT_LABELS)
MAX_ITEM_ID = 64  # tables.labels.item_id is String(64)


def _engine(engine: Engine | None) -> Engine:
    return engine or get_engine()


def add_items(items: Iterable[Item], source: str, engine: Engine | None = None) -> int:
    """Put items in the review pool (re-adding an item updates it). Returns how many."""
    engine = _engine(engine)
    n = 0
    with guarded(Action.RUN_BENCHMARK, f"item set {source}", "items added for review", engine), engine.begin() as c:
        for it in items:
            row = {"item_id": it.id, "source": source, "question_type": it.question_type, "question": it.question,
                   "answer": it.answer, "proof": it.proof or it.context, "page_number": it.page_number,
                   "doc_name": it.doc}
            c.execute(upsert(engine, tables.review_items, row, ["item_id"],
                              [k for k in row if k != "item_id"]))
            n += 1
    return n


def sources(engine: Engine | None = None) -> list[str]:
    with _engine(engine).connect() as c:
        return [r[0] for r in c.execute(select(tables.review_items.c.source).distinct().order_by(tables.review_items.c.source))]


@dataclass(frozen=True)
class ReviewItem:
    """An item experts review: a question with its claimed type, its answer, and the proof (gold passage) with its
    page and document, from one source (a benchmark set or generated items)."""

    item_id: str
    source: str
    question_type: str
    question: str
    answer: str
    proof: str | None = None
    page_number: int | None = None
    doc_name: str | None = None


_ITEM_FIELDS = tuple(f.name for f in fields(ReviewItem))


def items(item_ids: Sequence[str] | None = None, source: str | None = None,
          engine: Engine | None = None) -> list[ReviewItem]:
    t = tables.review_items
    q = select(t)
    if source:
        q = q.where(t.c.source == source)
    if item_ids is not None:
        q = q.where(t.c.item_id.in_(list(item_ids)))
    with _engine(engine).connect() as c:
        rows = [ReviewItem(**{f: r[f] for f in _ITEM_FIELDS}) for r in c.execute(q.order_by(t.c.item_id)).mappings()]
    if item_ids is not None:
        order = {i: n for n, i in enumerate(item_ids)}
        rows.sort(key=lambda r: order[r.item_id])
    return rows


def create_batch(source: str, n: int | None, seed: int = 0, engine: Engine | None = None) -> str:
    """A seeded random sample of n items from a source (all items when n is None). The same source, n and
    seed give the same batch, so every expert reviews the same items."""
    access.authorize(Action.LABEL, "a review batch")
    engine = _engine(engine)
    pool = [r.item_id for r in items(source=source, engine=engine)]
    if not pool:
        raise UserError(f"No items to review in '{source}'. Import a benchmark or generate items first.")
    chosen = random.Random(seed).sample(pool, min(n, len(pool))) if n else pool
    batch_id = f"{source}:{seed}:{len(chosen)}"
    with engine.begin() as c:
        c.execute(upsert(engine, tables.review_batches,
                          {"batch_id": batch_id, "source": source, "seed": seed, "item_ids": json.dumps(chosen)},
                          ["batch_id"], ["item_ids"]))
    return batch_id


def batch_items(batch_id: str, engine: Engine | None = None) -> list[str]:
    t = tables.review_batches
    with _engine(engine).connect() as c:
        r = c.execute(select(t.c.item_ids).where(t.c.batch_id == batch_id)).first()
    if r is None:
        raise UserError(f"No review batch '{batch_id}'.")
    return json.loads(r[0])


def _normalise_type(value: str) -> str:
    v = value.strip().lower().replace("_", "-").replace(" ", "-")
    return {"problemsolving": "problem-solving"}.get(v, v)


def check_value(label: str, value: str) -> tuple[str, str | None]:
    """The value as stored and None, or the value and why it is refused. Only controlled values (yes/no/unsure,
    question type names) are normalised; free text such as a comment is kept exactly as written (stripped of
    surrounding white space only)."""
    if label not in LABELS:
        return value, f"unknown label '{label}'; use {', '.join(LABELS)}"
    value = (value or "").strip()
    allowed = LABELS[label]
    if allowed:
        if value.lower() not in allowed:
            return value, f"'{value}' is not a valid value for {label}; use {', '.join(allowed)}"
        return value.lower(), None
    if label == "true_type" and value:
        qtype = _normalise_type(value)
        if qtype not in QUESTION_TYPES:
            return value, f"'{value}' is not one of the ten question types ({', '.join(QUESTION_TYPES)})"
        return qtype, None
    return value, None


def _write(engine: Engine, rows: Sequence[dict]) -> None:
    """Upsert rows and append them to the history, all in one transaction."""
    with engine.begin() as c:
        for row in rows:
            c.execute(upsert(engine, tables.labels, row, ["item_id", "annotator", "label"], ["value"]))
            c.execute(insert(tables.label_history).values(**row))


def _row(item_id: str, annotator: str, label: str, value: str) -> dict:
    item_id = (item_id or "").strip()
    if not item_id or len(item_id) > MAX_ITEM_ID:
        raise UserError(f"An item id must have 1 to {MAX_ITEM_ID} characters.")
    value, why = check_value(label, value)
    if why:
        raise UserError(why[0].upper() + why[1:] + ".")
    return {"item_id": item_id, "annotator": annotator, "label": label, "value": value}


def save_label(item_id: str, annotator: str, label: str, value: str, engine: Engine | None = None) -> None:
    """Record (or replace) one expert's label; every save is also appended to the history. Reserved names
    (``[adjudicated]``, anything in brackets, judge-like names) are refused: final labels go through ``adjudicate``."""
    access.authorize(Action.LABEL, item_id)
    access.own_name(annotator)
    row = _row(item_id, check_reviewer_name(annotator), label, value)
    with guarded(Action.LABEL, item_id, f"{annotator}: {label}={row['value']}", _engine(engine)):
        _write(_engine(engine), [row])


def save_review(item_id: str, annotator: str, values: dict[str, str], engine: Engine | None = None) -> None:
    """One reviewer's labels for one item, saved together (all or none). The three questions must all be
    answered; the suggested type, comment and support calibration are optional."""
    access.authorize(Action.LABEL, item_id)
    access.own_name(annotator)
    who = check_reviewer_name(annotator)
    if not review_complete(values):
        raise UserError(INCOMPLETE)
    rows = [_row(item_id, who, label, value) for label, value in values.items()
            if value]  # an unanswered field (None or "") records nothing
    if rows:
        shown = ", ".join(f"{r['label']}={str(r['value'])[:40]}" for r in rows)
        with guarded(Action.LABEL, item_id, f"{who}: {shown}", _engine(engine)):
            _write(_engine(engine), rows)


def labels(engine: Engine | None = None, include_adjudicated: bool = False) -> list[Label]:
    t = tables.labels
    with _engine(engine).connect() as c:
        rows = c.execute(select(t.c.item_id, t.c.annotator, t.c.label, t.c.value).order_by(t.c.id)).fetchall()
    return [Label(*r) for r in rows if include_adjudicated or r[1] != ADJUDICATOR]


def experts(engine: Engine | None = None) -> list[str]:
    """The names a reviewer picks from: everyone who has labelled here, sorted without case. Adjudicators are not
    offered until they have labelled: the list must not advertise the names that may set final labels."""
    t = tables.labels
    with _engine(engine).connect() as c:
        names = [r[0] for r in c.execute(select(t.c.annotator).distinct()) if r[0] != ADJUDICATOR]
    return sorted(dict.fromkeys(names), key=str.casefold)


def item_labels(item_id: str, engine: Engine | None = None) -> dict[str, dict[str, str]]:
    """Every label of one item by reviewer (the final labels under ADJUDICATOR): {name: {label: value}}."""
    t = tables.labels
    with _engine(engine).connect() as c:
        rows = c.execute(select(t.c.annotator, t.c.label, t.c.value).where(t.c.item_id == item_id).order_by(t.c.id))
        out: dict[str, dict[str, str]] = {}
        for who, label, value in rows:
            out.setdefault(who, {})[label] = value
    return out


@dataclass(frozen=True)
class LabelChange:
    """One entry of the labels' history: a value an expert gave an item's label, and when (nothing is overwritten
    there: a changed label is a new entry)."""

    id: int
    item_id: str
    annotator: str
    label: str
    value: str
    at: str


def history(engine: Engine | None = None) -> list[LabelChange]:
    """Every label value ever saved, oldest first."""
    t = tables.label_history
    with _engine(engine).connect() as c:
        return [LabelChange(**{**r, "at": str(r["at"])}) for r in c.execute(select(t).order_by(t.c.id)).mappings()]


def done_items(annotator: str, item_ids: Sequence[str], engine: Engine | None = None) -> set[str]:
    """Items this expert has finished (all three yes/no labels recorded)."""
    mine: dict[str, set[str]] = {}
    for lb in labels(engine):
        if lb.annotator == annotator:
            mine.setdefault(lb.item_id, set()).add(lb.label)
    return {i for i in item_ids if set(AGREEMENT_LABELS) <= mine.get(i, set())}


@dataclass(frozen=True)
class Disagreement:
    """One label of one item on which experts differ: each expert's value, and the adjudicator's (None until
    settled)."""

    item_id: str
    label: str
    values: dict[str, str]  # expert → value
    final: str | None


def disagreements(item_ids: Sequence[str] | None = None, engine: Engine | None = None) -> list[Disagreement]:
    """Items where experts gave different values for a label, with each expert's value."""
    by: dict[tuple[str, str], dict[str, str]] = {}
    for lb in labels(engine):
        if lb.label in AGREEMENT_LABELS and (item_ids is None or lb.item_id in item_ids):
            by.setdefault((lb.item_id, lb.label), {})[lb.annotator] = lb.value
    final = {(lb.item_id, lb.label): lb.value for lb in labels(engine, True) if lb.annotator == ADJUDICATOR}
    return [Disagreement(i, lb, v, final.get((i, lb))) for (i, lb), v in sorted(by.items()) if len(set(v.values())) > 1]


def adjudicate(item_id: str, label: str, value: str, engine: Engine | None = None) -> None:
    """Set the final label, as the person acting: it needs the adjudicator role (lib/core/access.py)."""
    row = _row(item_id, ADJUDICATOR, label, value)
    with guarded(Action.ADJUDICATE, item_id, f"final {label}={row['value']}", _engine(engine)):
        _write(_engine(engine), [row])


@dataclass(frozen=True)
class FinalLabel:
    """An item's final value for one label, and how it was reached: ``adjudicated`` (the adjudicator's),
    ``unanimous`` (every expert gave it) or ``disputed`` (experts differ and no one has settled it: no value)."""

    item_id: str
    label: str
    value: str | None
    how: str


def adjudicated_set(engine: Engine | None = None) -> list[FinalLabel]:
    """Final label per item and label: the adjudicator's where given, else the experts' value when they agree."""
    all_labels = labels(engine, True)
    by: dict[tuple[str, str], dict[str, str]] = {}
    for lb in all_labels:
        if lb.label in AGREEMENT_LABELS:
            by.setdefault((lb.item_id, lb.label), {})[lb.annotator] = lb.value
    out: list[FinalLabel] = []
    for (i, name), vals in sorted(by.items()):
        if ADJUDICATOR in vals:
            out.append(FinalLabel(i, name, vals[ADJUDICATOR], "adjudicated"))
        elif len(set(vals.values())) == 1:
            out.append(FinalLabel(i, name, next(iter(vals.values())), "unanimous"))
        else:
            out.append(FinalLabel(i, name, None, "disputed"))
    return out


def labels_csv(engine: Engine | None = None) -> str:
    """Every label (final labels included) as CSV that is safe to open in a spreadsheet; ``import_labels_csv``
    reads it back exactly. (Written with CRLF rows so that a carriage return inside a comment is quoted too.)"""
    return rows_to_csv((lb.__dict__ for lb in labels(engine, include_adjudicated=True)), LABEL_COLUMNS)


def adjudicated_csv(engine: Engine | None = None) -> str:
    """The adjudicated set as CSV that is safe to open in a spreadsheet."""
    return rows_to_csv((f.__dict__ for f in adjudicated_set(engine)), ["item_id", "label", "value", "how"])


def _check_rows(rows: Iterable[Label | tuple[int, Label]]) -> tuple[list[dict], list[RowProblem]]:
    good: list[dict] = []
    problems: list[RowProblem] = []
    adjudicator = None
    reserved: dict[str, str | None] = {}  # one check per distinct name
    for n, entry in enumerate(rows, start=2):
        line, lb = entry if isinstance(entry, tuple) else (n, entry)
        item_id, annotator, value = (lb.item_id or "").strip(), (lb.annotator or "").strip(), lb.value or ""
        if not item_id or len(item_id) > MAX_ITEM_ID:
            problems.append(RowProblem(line, "item_id", f"an item id must have 1 to {MAX_ITEM_ID} characters"))
            continue
        if annotator == ADJUDICATOR:
            if adjudicator is None:
                adjudicator = may_adjudicate()
            if not adjudicator:
                why: str | None = "you do not have the adjudicator role"
                problems.append(RowProblem(line, "annotator", f"{ADJUDICATOR} rows set final labels, which only an "
                                           f"adjudicator can import; {why}"))
                continue
        else:
            if annotator not in reserved:
                reserved[annotator] = reserved_name_reason(annotator) if annotator else "empty"
            why = reserved[annotator]
            if why:
                problems.append(RowProblem(line, "annotator", f"'{annotator}' cannot be used: {why}"))
                continue
        if lb.label not in LABELS:
            problems.append(RowProblem(line, "label", f"unknown label '{lb.label}'; use {', '.join(LABELS)}"))
            continue
        value, why = check_value(lb.label, value)
        if why or not value:
            problems.append(RowProblem(line, "value", why or "empty"))
            continue
        good.append({"item_id": item_id, "annotator": annotator, "label": lb.label, "value": value})
    return good, problems


def import_labels(rows: Iterable[Label | tuple[int, Label]], engine: Engine | None = None) -> int:
    """Import labels all or nothing: every row is checked first (label names, controlled values, reserved names;
    ``[adjudicated]`` rows only for a person who may adjudicate; with sign-in on, others' labels likewise), then
    all are written in one transaction. Rows are Labels (numbered as CSV lines from 2) or (line, Label) pairs. Any
    bad row raises a LabelsCSVError whose ``problems`` name each row, column and reason; nothing is changed then.
    Returns how many were saved."""
    rows = list(rows)
    check_import_rights((e[1] if isinstance(e, tuple) else e).annotator for e in rows)
    good, problems = _check_rows(rows)
    if problems:
        raise LabelsCSVError(problems)
    if not good:
        raise UserError("The labels file has no rows.")
    return _import(good, engine)


def _import(good: list[dict], engine: Engine | None) -> int:
    with guarded(Action.LABEL, "labels imported", f"{len(good)} labels of "
                 f"{', '.join(sorted({r['annotator'] for r in good}))[:300]}", _engine(engine)):
        _write(_engine(engine), good)
    return len(good)


def import_labels_csv(text: str, engine: Engine | None = None) -> int:
    """Import a labels CSV (already decoded, see ``labels_csv.decode_csv_bytes``) all or nothing, with one report of
    every bad row, the file's (empty cells, duplicates) and the labels' (values, names) together. With sign-in on,
    a person who may not adjudicate imports only their own labels (``reviewers.check_import_rights``): a file with
    bad rows is reported first, then one with others' labels."""
    who = access.authorize(Action.LABEL, "import labels")
    rows, problems = parse_labels_csv(text)
    if problems and who.signed_in and not may_adjudicate():  # its own problems first, then whose labels it holds
        raise LabelsCSVError(problems)
    check_import_rights(lb.annotator for _, lb in rows)
    good, more = _check_rows(rows)
    problems = sorted(problems + more, key=lambda p: p.row)
    if problems:
        raise LabelsCSVError(problems)
    return _import(good, engine)

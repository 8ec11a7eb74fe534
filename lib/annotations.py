"""Expert review: items to review, batches, labels (one per item × expert × label, history kept)."""
from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.engine import Engine

from . import store
from .agreement import Label
from .benchmark.dataset import Item
from .errors import UserError

# The labels an expert records for an item.
LABELS = {
    "type_correct": ("yes", "no"),
    "true_type": None,  # one of the ten question types, when type_correct is no
    "answer_correct": ("yes", "no", "unsure"),
    "proof_supports": ("yes", "no"),
    "comment": None,  # free text
}
AGREEMENT_LABELS = ("type_correct", "answer_correct", "proof_supports")
ADJUDICATOR = "[adjudicated]"


def _engine(engine: Engine | None) -> Engine:
    return engine or store.get_engine()


def _upsert(engine: Engine, table: Any, row: dict, keys: Sequence[str], update: Sequence[str]) -> Any:
    if engine.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as dialect_insert
    else:
        from sqlalchemy.dialects.sqlite import insert as dialect_insert
    stmt = dialect_insert(table).values(**row)
    return stmt.on_conflict_do_update(index_elements=list(keys), set_={k: stmt.excluded[k] for k in update})


def add_items(items: Iterable[Item], source: str, engine: Engine | None = None) -> int:
    """Put items in the review pool (re-adding an item updates it). Returns how many."""
    engine = _engine(engine)
    n = 0
    with engine.begin() as c:
        for it in items:
            row = {"item_id": it.id, "source": source, "question_type": it.question_type, "question": it.question,
                   "answer": it.answer, "proof": it.proof or it.context, "page_number": it.page_number,
                   "doc_name": it.doc}
            c.execute(_upsert(engine, store.review_items, row, ["item_id"],
                              [k for k in row if k != "item_id"]))
            n += 1
    return n


def sources(engine: Engine | None = None) -> list[str]:
    with _engine(engine).connect() as c:
        return [r[0] for r in c.execute(select(store.review_items.c.source).distinct().order_by(store.review_items.c.source))]


def items(item_ids: Sequence[str] | None = None, source: str | None = None, engine: Engine | None = None) -> list[dict]:
    t = store.review_items
    q = select(t)
    if source:
        q = q.where(t.c.source == source)
    if item_ids is not None:
        q = q.where(t.c.item_id.in_(list(item_ids)))
    with _engine(engine).connect() as c:
        rows = [dict(r) for r in c.execute(q.order_by(t.c.item_id)).mappings()]
    if item_ids is not None:
        order = {i: n for n, i in enumerate(item_ids)}
        rows.sort(key=lambda r: order[r["item_id"]])
    return rows


def create_batch(source: str, n: int | None, seed: int = 0, engine: Engine | None = None) -> str:
    """A seeded random sample of n items from a source (all items when n is None). The same source, n and
    seed give the same batch, so every expert reviews the same items."""
    engine = _engine(engine)
    pool = [r["item_id"] for r in items(source=source, engine=engine)]
    if not pool:
        raise UserError(f"No items to review in '{source}'. Import a benchmark or generate items first.")
    chosen = random.Random(seed).sample(pool, min(n, len(pool))) if n else pool
    batch_id = f"{source}:{seed}:{len(chosen)}"
    with engine.begin() as c:
        c.execute(_upsert(engine, store.review_batches,
                          {"batch_id": batch_id, "source": source, "seed": seed, "item_ids": json.dumps(chosen)},
                          ["batch_id"], ["item_ids"]))
    return batch_id


def batches(engine: Engine | None = None) -> list[dict]:
    t = store.review_batches
    with _engine(engine).connect() as c:
        return [{"batch_id": r.batch_id, "source": r.source, "seed": r.seed, "item_ids": json.loads(r.item_ids)}
                for r in c.execute(select(t).order_by(t.c.created_at))]


def batch_items(batch_id: str, engine: Engine | None = None) -> list[str]:
    t = store.review_batches
    with _engine(engine).connect() as c:
        r = c.execute(select(t.c.item_ids).where(t.c.batch_id == batch_id)).first()
    if r is None:
        raise UserError(f"No review batch '{batch_id}'.")
    return json.loads(r[0])


def save_label(item_id: str, annotator: str, label: str, value: str, engine: Engine | None = None) -> None:
    """Record (or replace) one expert's label; every save is also appended to the history."""
    annotator = annotator.strip()
    if not annotator:
        raise UserError("Enter your name before labelling.")
    if label not in LABELS:
        raise UserError(f"Unknown label '{label}'.")
    allowed = LABELS[label]
    value = value.strip().lower() if allowed else value.strip()
    if allowed and value not in allowed:
        raise UserError(f"'{value}' is not a valid value for {label}; use {', '.join(allowed)}.")
    engine = _engine(engine)
    row = {"item_id": item_id, "annotator": annotator, "label": label, "value": value}
    with engine.begin() as c:
        c.execute(_upsert(engine, store.labels, row, ["item_id", "annotator", "label"], ["value"]))
        c.execute(insert(store.label_history).values(**row))


def save_review(item_id: str, annotator: str, values: dict[str, str], engine: Engine | None = None) -> None:
    for label, value in values.items():
        if value:  # an unanswered field (None or "") records nothing
            save_label(item_id, annotator, label, value, engine)


def labels(engine: Engine | None = None, include_adjudicated: bool = False) -> list[Label]:
    t = store.labels
    with _engine(engine).connect() as c:
        rows = c.execute(select(t.c.item_id, t.c.annotator, t.c.label, t.c.value).order_by(t.c.id)).fetchall()
    return [Label(*r) for r in rows if include_adjudicated or r[1] != ADJUDICATOR]


def history(engine: Engine | None = None) -> list[dict]:
    t = store.label_history
    with _engine(engine).connect() as c:
        return [dict(r) | {"at": str(r["at"])} for r in c.execute(select(t).order_by(t.c.id)).mappings()]


def done_items(annotator: str, item_ids: Sequence[str], engine: Engine | None = None) -> set[str]:
    """Items this expert has finished (all three yes/no labels recorded)."""
    mine: dict[str, set[str]] = {}
    for lb in labels(engine):
        if lb.annotator == annotator:
            mine.setdefault(lb.item_id, set()).add(lb.label)
    return {i for i in item_ids if set(AGREEMENT_LABELS) <= mine.get(i, set())}


def disagreements(item_ids: Sequence[str] | None = None, engine: Engine | None = None) -> list[dict]:
    """Items where experts gave different values for a label, with each expert's value."""
    by: dict[tuple[str, str], dict[str, str]] = {}
    for lb in labels(engine):
        if lb.label in AGREEMENT_LABELS and (item_ids is None or lb.item_id in item_ids):
            by.setdefault((lb.item_id, lb.label), {})[lb.annotator] = lb.value
    final = {(lb.item_id, lb.label): lb.value for lb in labels(engine, True) if lb.annotator == ADJUDICATOR}
    return [{"item_id": i, "label": lb, "values": v, "final": final.get((i, lb))}
            for (i, lb), v in sorted(by.items()) if len(set(v.values())) > 1]


def adjudicate(item_id: str, label: str, value: str, engine: Engine | None = None) -> None:
    save_label(item_id, ADJUDICATOR, label, value, engine)


def adjudicated_set(engine: Engine | None = None) -> list[dict]:
    """Final label per item and label: the adjudicator's where given, else the experts' value when they agree."""
    all_labels = labels(engine, True)
    by: dict[tuple[str, str], dict[str, str]] = {}
    for lb in all_labels:
        if lb.label in AGREEMENT_LABELS:
            by.setdefault((lb.item_id, lb.label), {})[lb.annotator] = lb.value
    out = []
    for (i, lb), vals in sorted(by.items()):
        if ADJUDICATOR in vals:
            out.append({"item_id": i, "label": lb, "value": vals[ADJUDICATOR], "how": "adjudicated"})
        elif len(set(vals.values())) == 1:
            out.append({"item_id": i, "label": lb, "value": next(iter(vals.values())), "how": "unanimous"})
        else:
            out.append({"item_id": i, "label": lb, "value": None, "how": "disputed"})
    return out


def import_labels(rows: Iterable[Label], engine: Engine | None = None) -> int:
    n = 0
    for lb in rows:
        save_label(lb.item_id, lb.annotator, lb.label, lb.value, engine)
        n += 1
    return n

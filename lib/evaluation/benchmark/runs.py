"""Benchmark runs as stored: their configuration, creation, loading and listing, and their stored answers with
their metric scores. The runner writes runs and the report reads them, both through this module."""
from __future__ import annotations

import json
import random
import time
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.engine import Engine

from lib.core.access import Action, authorize
from lib.core.errors import UserError
from lib.core.json_types import JSONObject
from lib.evaluation.benchmark.dataset import Item
from lib.qa import context_passage
from lib.qa.ask import ANSWER_BUDGET_CLOSED
from lib.qa.context_passage import ContextPassage
from lib.storage import tables
from lib.storage.engine import get_engine


@dataclass
class RunConfig:
    models: list[str]
    modes: list[str]
    k: int = 3
    judge: str | None = None
    limit: int | None = None
    seed: int | None = None
    question_type: str | None = None
    source: str = ""
    no_doc_items: list[str] = field(default_factory=list)  # items whose document is not indexed (no pdf/rag)
    whole_eis: bool = False  # an item on one volume of an EIS is answered over every volume of that EIS

    def as_dict(self) -> JSONObject:
        return dict(self.__dict__)

    def settings(self) -> dict[str, Any]:
        """What changes results (for the manifest): not the worker count, not the bookkeeping."""
        return {"modes": list(self.modes), "k": self.k, "limit": self.limit, "seed": self.seed,
                "question_type": self.question_type, "source": self.source,
                "answer_budget": {"open": "each model's options.answer_tokens", "closed": ANSWER_BUDGET_CLOSED}} \
            | ({"whole_eis": True} if self.whole_eis else {})  # only when on: a run made before it resumes


def select_items(items: Sequence[Item], limit: int | None = None, seed: int | None = None,
                 question_type: str | None = None) -> list[Item]:
    if limit is not None and limit < 1:
        raise UserError("The item limit must be at least 1 (leave it out for all items).")
    chosen = [it for it in items if question_type in (None, "", "all") or it.question_type == question_type]
    if seed is not None:
        chosen = random.Random(seed).sample(chosen, len(chosen))
    return chosen[:limit] if limit else chosen


def new_run_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


def create_run(items: Sequence[Item], cfg: RunConfig, run_id: str | None = None, engine: Engine | None = None) -> str:
    authorize(Action.RUN_BENCHMARK, "a benchmark run")
    engine = engine or get_engine()
    run_id = run_id or new_run_id()
    with engine.begin() as c:
        c.execute(insert(tables.bench_runs).values(
            run_id=run_id, config=json.dumps(cfg.as_dict()), items=json.dumps([it.as_dict() for it in items])))
    return run_id


def load_run(run_id: str, engine: Engine | None = None) -> tuple[list[Item], RunConfig] | None:
    engine = engine or get_engine()
    with engine.connect() as c:
        r = c.execute(select(tables.bench_runs).where(tables.bench_runs.c.run_id == run_id)).first()
    if r is None:
        return None
    return [Item(**d) for d in json.loads(r.items)], RunConfig(**json.loads(r.config))


def save_config(run_id: str, cfg: RunConfig, engine: Engine) -> None:
    authorize(Action.RUN_BENCHMARK, run_id)
    with engine.begin() as c:
        c.execute(update(tables.bench_runs).where(tables.bench_runs.c.run_id == run_id)
                  .values(config=json.dumps(cfg.as_dict())))


@dataclass(frozen=True)
class StoredRun:
    """A stored run as listed: its id, when it was started, its configuration, and how many items have an answer."""

    run_id: str
    created_at: str
    config: RunConfig
    n_items: int


@dataclass(frozen=True)
class MetricScore:
    """One metric's stored score of one answer: the value (None when it gave none), why (``status``: ok, or e.g.
    judge_failed, no_statements, no_verdict), which scorer made it (``offline`` or the judge's id) and its details."""

    value: float | None
    status: str
    scorer: str
    details: JSONObject = field(default_factory=dict)

    def as_dict(self) -> JSONObject:
        return asdict(self)


@dataclass(frozen=True)
class StoredAnswer:
    """One stored answer of a run (a model, a context mode, an item), with the sources it was given (``contexts``)
    and its metric scores by name."""

    id: int
    run_id: str
    item_id: str
    model: str
    mode: str
    status: str  # ok | failed
    answer: str | None
    verdict: str | None
    error: str | None
    contexts: list[ContextPassage]
    truncated: int | None
    kept_fraction: float | None
    tokens_in: int | None
    tokens_out: int | None
    seconds: float | None
    verdict_source: str | None  # structured | likelihood | heuristic | text
    created_at: str
    metrics: dict[str, MetricScore]

    def as_dict(self) -> JSONObject:
        """The answer as plain values (the metrics as their dicts, the contexts as stored): a table row or an
        export."""
        return asdict(self) | {"contexts": [c.as_dict() for c in self.contexts]}


_ANSWER_COLUMNS = ("id", "run_id", "item_id", "model", "mode", "status", "answer", "verdict", "error", "truncated",
                   "kept_fraction", "tokens_in", "tokens_out", "seconds", "verdict_source")


def list_runs(engine: Engine | None = None) -> list[StoredRun]:
    engine = engine or get_engine()
    t = tables.bench_runs
    a = tables.bench_answers
    with engine.connect() as c:
        rows = c.execute(select(t.c.run_id, t.c.created_at, t.c.config).order_by(t.c.created_at.desc())).fetchall()
        answered: dict[str, int] = dict(c.execute(select(a.c.run_id, func.count(func.distinct(a.c.item_id))).group_by(a.c.run_id)).all())
    return [StoredRun(r.run_id, str(r.created_at), RunConfig(**json.loads(r.config)), int(answered.get(r.run_id, 0)))
            for r in rows]


def answers(run_id: str, engine: Engine | None = None) -> list[StoredAnswer]:
    """A run's stored answers in the order they were stored, each with its metric scores."""
    engine = engine or get_engine()
    t, s = tables.bench_answers, tables.bench_scores
    with engine.connect() as c:
        rows = c.execute(select(t).where(t.c.run_id == run_id).order_by(t.c.id)).mappings().all()
        scores = c.execute(select(s).where(s.c.run_id == run_id)).mappings().all()
    by_key: dict[tuple[str, str, str], dict[str, MetricScore]] = {}
    for r in scores:
        by_key.setdefault((r["item_id"], r["model"], r["mode"]), {})[r["metric"]] = MetricScore(
            r["value"], r["status"], r["scorer"], json.loads(r["details"] or "{}"))
    return [StoredAnswer(**{k: r[k] for k in _ANSWER_COLUMNS}, contexts=context_passage.from_json(r["contexts"]),
                         created_at=str(r["created_at"]), metrics=by_key.get((r["item_id"], r["model"], r["mode"]), {}))
            for r in rows]

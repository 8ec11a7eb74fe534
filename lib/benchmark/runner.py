"""Resumable benchmark runs: every answer is written the moment it arrives; a rerun skips what is done."""
from __future__ import annotations

import json
import random
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import delete, insert, select
from sqlalchemy.exc import IntegrityError

from .. import store
from ..ask import ask
from ..contexts import MODES
from ..errors import UserError
from ..jobs import ProgressFn, run_tasks
from ..providers import registry
from ..retrieval_eval import is_hit
from .dataset import Item
from .scoring import Score, score_closed, score_open


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

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class RunSummary:
    run_id: str
    n_items: int
    answers: int
    failures: int
    skipped_no_doc: int
    scores: dict[str, dict[str, dict[str, Any]]]
    retrieval_hit_at_k: dict[str, float | None]
    judge: str
    judge_failures: int = 0
    unclear: int = 0
    seconds: float = 0.0
    cancelled: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def cli_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in ("run_id", "n_items", "answers", "failures", "scores",
                                              "retrieval_hit_at_k", "judge")} | {
            "judge_failures": self.judge_failures, "unclear": self.unclear, "skipped_no_doc": self.skipped_no_doc}


def select_items(items: Sequence[Item], limit: int | None = None, seed: int | None = None,
                 question_type: str | None = None) -> list[Item]:
    chosen = [it for it in items if question_type in (None, "", "all") or it.question_type == question_type]
    if seed is not None:
        chosen = random.Random(seed).sample(chosen, len(chosen))
    return chosen[:limit] if limit else chosen


def _validate(cfg: RunConfig) -> None:
    if not cfg.models:
        raise UserError("Pick at least one model.")
    bad = [m for m in cfg.modes if m not in MODES]
    if bad or not cfg.modes:
        raise UserError(f"Modes must be among {', '.join(MODES)}; got {', '.join(cfg.modes) or 'none'}.")
    for m in cfg.models:
        registry.get(m)  # raises a clear UserError when unknown or unavailable
    if cfg.judge:
        registry.get(cfg.judge)


def create_run(items: Sequence[Item], cfg: RunConfig, run_id: str | None = None, engine: Any = None) -> str:
    engine = engine or store.get_engine()
    run_id = run_id or time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]
    with engine.begin() as c:
        c.execute(insert(store.bench_runs).values(
            run_id=run_id, config=json.dumps(cfg.as_dict()), items=json.dumps([it.as_dict() for it in items])))
    return run_id


def load_run(run_id: str, engine: Any = None) -> tuple[list[Item], RunConfig] | None:
    engine = engine or store.get_engine()
    with engine.connect() as c:
        r = c.execute(select(store.bench_runs).where(store.bench_runs.c.run_id == run_id)).first()
    if r is None:
        return None
    return [Item(**d) for d in json.loads(r.items)], RunConfig(**json.loads(r.config))


def list_runs(engine: Any = None) -> list[dict[str, Any]]:
    engine = engine or store.get_engine()
    t = store.bench_runs
    with engine.connect() as c:
        rows = c.execute(select(t.c.run_id, t.c.created_at, t.c.config).order_by(t.c.created_at.desc())).fetchall()
    return [{"run_id": r.run_id, "created_at": str(r.created_at), "config": json.loads(r.config)} for r in rows]


def answers(run_id: str, engine: Any = None) -> list[dict[str, Any]]:
    engine = engine or store.get_engine()
    t = store.bench_answers
    with engine.connect() as c:
        rows = c.execute(select(t).where(t.c.run_id == run_id).order_by(t.c.id)).mappings().all()
    out = []
    for r in rows:
        d = dict(r)
        d["contexts"] = json.loads(d["contexts"] or "[]")
        d["score_parts"] = json.loads(d["score_parts"] or "{}")
        d["created_at"] = str(d["created_at"])
        out.append(d)
    return out


def _score(item: Item, res: Any, services: Any, judge: Any) -> Score:
    if item.question_type == "closed":
        return score_closed(res.verdict, res.answer, item.answer)
    embed = services.docs.index.embedder.embed if services else _embedder().embed
    return score_open(res.answer, item.answer, item.question, embed, judge)


def _embedder():  # noqa: ANN202
    from ..embedding import get_embedder

    return get_embedder()


def run_benchmark(
    items: Sequence[Item] | None, cfg: RunConfig | None, services: Any = None, run_id: str | None = None,
    engine: Any = None, progress: ProgressFn | None = None, cancel: threading.Event | None = None,
    max_workers: int = 4, retry_failed: bool = True,
) -> RunSummary:
    """Run (or resume) a benchmark. With an existing ``run_id`` the stored items and configuration are used."""
    engine = engine or store.get_engine()
    started = time.perf_counter()
    stored = load_run(run_id, engine) if run_id else None
    if stored is not None:
        items, cfg = stored
    elif items is None or cfg is None:
        raise UserError(f"No benchmark run '{run_id}' to resume; give questions and models to start one.")
    else:
        _validate(cfg)
        items = select_items(items, cfg.limit, cfg.seed, cfg.question_type)
        if not items:
            raise UserError("No items to run: the selection is empty.")
        run_id = create_run(items, cfg, run_id, engine)
    _validate(cfg)
    judge = registry.get(cfg.judge) if cfg.judge else None

    t = store.bench_answers
    with engine.begin() as c:
        if retry_failed:
            c.execute(delete(t).where(t.c.run_id == run_id, t.c.status == "failed"))
        done = {(r.item_id, r.model, r.mode) for r in c.execute(
            select(t.c.item_id, t.c.model, t.c.mode).where(t.c.run_id == run_id))}

    doc_for: dict[str, str | None] = {}
    for it in items:
        if it.doc not in doc_for:
            found = services.docs.find(it.doc) if services and it.doc else None
            doc_for[it.doc] = found.doc_id if found else None
    tasks, skipped = [], 0
    for it in items:
        for model in cfg.models:
            for mode in cfg.modes:
                if mode in ("pdf", "rag") and doc_for.get(it.doc) is None:
                    skipped += 1
                    continue
                if (it.id, model, mode) not in done:
                    tasks.append((it, model, mode))
    cancel = cancel or threading.Event()

    def work(it: Item, model: str, mode: str) -> str:
        if cancel.is_set():
            return "cancelled"
        doc_id = doc_for.get(it.doc)
        res = ask(it.question, model, mode, services if doc_id else None, doc_id, cfg.k, it.context,
                  it.question_type == "closed")
        row = {"run_id": run_id, "item_id": it.id, "model": model, "mode": mode, "answer": res.answer,
               "verdict": res.verdict, "contexts": json.dumps(res.contexts), "truncated": int(res.truncated),
               "kept_fraction": res.kept_fraction, "tokens_in": res.tokens_in, "tokens_out": res.tokens_out,
               "seconds": res.seconds}
        if res.error:
            row.update(status="failed", error=res.error)
        else:
            sc = _score(it, res, services, judge)
            row.update(status="ok", score=sc.score, score_parts=json.dumps(sc.parts), score_status=sc.status)
            if mode == "rag" and it.context:
                row["retrieval_hit"] = int(is_hit([c["text"] for c in res.contexts], it.context))
        try:
            with engine.begin() as c:
                c.execute(insert(t).values(**row))
        except IntegrityError:
            pass  # another worker or process wrote this answer first: keep theirs, no duplicate
        return f"{model} · {mode} · {it.id}"

    run_tasks(work, tasks, max_workers, progress, cancel)
    summary = summarize(run_id, engine)
    summary.skipped_no_doc = skipped
    summary.seconds = round(time.perf_counter() - started, 2)
    summary.cancelled = cancel.is_set()
    return summary


def summarize(run_id: str, engine: Any = None) -> RunSummary:
    stored = load_run(run_id, engine)
    if stored is None:
        raise UserError(f"No benchmark run '{run_id}'.")
    items, cfg = stored
    rows = answers(run_id, engine)
    qtype = {it.id: it.question_type for it in items}
    acc: dict[str, dict[str, dict[str, list[float]]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    hits: dict[str, list[int]] = defaultdict(list)
    failures = judge_failures = unclear = 0
    for r in rows:
        if r["status"] != "ok":
            failures += 1
            continue
        if r["score_status"] == "judge_failed":
            judge_failures += 1
        if r["score_status"] == "unclear":
            unclear += 1
        if r["retrieval_hit"] is not None:
            hits[r["model"]].append(r["retrieval_hit"])
        if r["score"] is None:
            continue
        key = "closed" if qtype.get(r["item_id"]) == "closed" else "open"
        acc[r["model"]][r["mode"]][key].append(r["score"])
    scores: dict[str, dict[str, dict[str, Any]]] = {}
    for model in cfg.models:
        scores[model] = {}
        for mode in cfg.modes:
            cell = acc[model][mode]
            op, cl = cell.get("open", []), cell.get("closed", [])
            scores[model][mode] = {
                "correctness": round(sum(op) / len(op), 4) if op else None,
                "closed_accuracy": round(sum(cl) / len(cl), 4) if cl else None,
                "n": len(op) + len(cl),
            }
    return RunSummary(
        run_id=run_id, n_items=len(items), answers=sum(1 for r in rows if r["status"] == "ok"), failures=failures,
        skipped_no_doc=0, scores=scores,
        retrieval_hit_at_k={m: (round(sum(v) / len(v), 4) if (v := hits.get(m)) else None) for m in cfg.models},
        judge=cfg.judge or "token_f1_proxy (offline; no judge model configured)",
        judge_failures=judge_failures, unclear=unclear,
    )

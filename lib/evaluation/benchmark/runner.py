"""Resumable benchmark runs: every answer is written the moment it arrives, with its metric scores; a rerun
skips what is done, retries failures and re-scores judge failures. A resume with another configuration (see
manifest.py) is refused."""
from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from lib.collection import volumes
from lib.core.access import Action, authorize
from lib.core.errors import UserError
from lib.core.json_types import JSONObject
from lib.core.pool import run_tasks
from lib.core.progress import CountProgressFn
from lib.core.redaction import redact
from lib.core.stats.inference import Majority
from lib.evaluation.benchmark import report
from lib.evaluation.benchmark.dataset import Item
from lib.evaluation.benchmark.runs import (
    RunConfig,
    StoredAnswer,
    answers,
    create_run,
    load_run,
    save_config,
    select_items,
)
from lib.evaluation.benchmark.scoring import Scorer, headline_metric, judge_templates
from lib.models import prompts, registry
from lib.models.base import Provider
from lib.models.embedding import exact_label, get_exact_embedder
from lib.qa import context_passage, manifest
from lib.qa.ask import AskResult, ask
from lib.qa.contexts import MODE_LABELS, MODES
from lib.qa.manifest import Manifest
from lib.qa.services import Corpus
from lib.qa.support import PagesOf
from lib.storage import job_parts, leases, tables
from lib.storage.engine import get_engine

if TYPE_CHECKING:
    import numpy as np


@dataclass
class RunSummary:
    run_id: str
    n_items: int
    answers: int
    failures: int
    skipped_no_doc: int
    scores: dict[str, dict[str, report.CellScores]]  # model → mode → its scores
    retrieval_hit_at_k: dict[str, float | None]  # model → RAG's hit rate (None: no RAG answer scored)
    judge: str
    metric: str = "token_f1_proxy"
    judge_failures: int = 0
    no_statements: int = 0
    unclear: int = 0
    no_verdict: int = 0  # closed answers with no yes or no by design (quotes only): not scored, not wrong
    majority_baseline: Majority | None = None
    manifest: Manifest | None = None
    comparison: report.Comparison = field(default_factory=lambda: report.Comparison(0, 0))
    reference_free: dict[str, dict[str, dict[str, report.FreeScore]]] = field(default_factory=dict)  # + metric
    seconds: float = 0.0
    cancelled: bool = False

    def cli_dict(self) -> JSONObject:
        records: JSONObject = {"comparison": asdict(self.comparison),
                               "scores": {m: {mo: c.as_dict() for mo, c in by.items()} for m, by in self.scores.items()},
                               "reference_free": {m: {mo: {k: f.as_dict() for k, f in cell.items()}
                                                      for mo, cell in by.items()}
                                                  for m, by in self.reference_free.items()},
                               "majority_baseline": None if self.majority_baseline is None
                               else self.majority_baseline.as_dict(),
                               "manifest": None if self.manifest is None else self.manifest.as_json()}
        return {k: records[k] if k in records else getattr(self, k) for k in (
            "run_id", "n_items", "answers", "failures", "scores", "retrieval_hit_at_k", "judge", "metric",
            "judge_failures", "no_statements", "unclear", "no_verdict", "skipped_no_doc", "majority_baseline", "comparison",
            "reference_free", "manifest")}


def _validate(cfg: RunConfig) -> None:
    if not cfg.models:
        raise UserError("Pick at least one model.")
    bad = [m for m in cfg.modes if m not in MODES]
    if bad or not cfg.modes:
        raise UserError(f"Modes must be among {', '.join(MODES)}; got {', '.join(cfg.modes) or 'none'}.")
    for m in cfg.models:
        registry.get(m)  # raises a clear UserError when unknown, unconfigured or unavailable
    if cfg.judge:
        registry.get_judge(cfg.judge)  # refused when it cannot judge


def _score_rows(run_id: str, it: Item, model: str, mode: str, results: list) -> list[dict[str, Any]]:
    return [{"run_id": run_id, "item_id": it.id, "model": model, "mode": mode, "metric": r.metric,
             "value": r.value, "status": r.status, "scorer": r.scorer, "details": json.dumps(r.details)}
            for r in results]


def _write_scores(conn: Connection, run_id: str, it: Item, model: str, mode: str, results: list) -> None:
    s = tables.bench_scores
    names = [r.metric for r in results]
    conn.execute(delete(s).where(s.c.run_id == run_id, s.c.item_id == it.id, s.c.model == model,
                                 s.c.mode == mode, s.c.metric.in_(names)))
    if results:
        conn.execute(insert(s), _score_rows(run_id, it, model, mode, results))


def _current_manifest(cfg: RunConfig, services: Corpus | None, doc_ids: Sequence[str]) -> Manifest:
    judge = registry.get(cfg.judge) if cfg.judge else None
    uses_docs = any(m in ("pdf", "rag") for m in cfg.modes)
    if services is not None and cfg.whole_eis:  # every volume answered over is a document of the run
        doc_ids = volumes.whole_eis(doc_ids, services.docs.engine)
    docs = manifest.document_entries(services, doc_ids) if services is not None and uses_docs else []
    templates = prompts.templates() | (judge_templates() if judge else {})
    return manifest.build("bench", [registry.get(m) for m in cfg.models], prompts=templates, judge=judge,
                          documents=docs, embedder=manifest.embedder_name(services),
                          semantic_embedder=_semantic_label(services), settings=cfg.settings())


def _embed_model(services: Corpus | None) -> str | None:
    """The embedding model the services were built for (None: the configured default)."""
    return getattr(services.docs.index.embedder, "_model", None) if services is not None else None


def _semantic_label(services: Corpus | None) -> str:
    return exact_label(_embed_model(services))


_log = logging.getLogger(__name__)
CELL_PART = "bench_cell"  # a benchmark cell as a part any worker may answer (job_parts.register_part)
ELSEWHERE = "answered elsewhere"


def run_lease_name(run_id: str) -> str:
    """The lease held by the one job working on a run (a second job on it is refused; a worker's cell of a run no
    job works on any more, cancelled or stopped, is skipped)."""
    return f"run:bench:{run_id}"


def docs_for(items: Sequence[Item], services: Corpus | None) -> dict[str, str | None]:
    """Each item's document name → the indexed document's id (None: not indexed here)."""
    found: dict[str, str | None] = {}
    for it in items:
        if it.doc not in found:
            doc = services.docs.find(it.doc) if services and it.doc else None
            found[it.doc] = doc.doc_id if doc else None
    return found


def _cell_lease(run_id: str, item_id: str, model: str, mode: str) -> str:
    digest = hashlib.sha1(json.dumps([item_id, model, mode]).encode()).hexdigest()[:20]
    return f"cell:{run_id}:{digest}"


class Cells:
    """How one cell (item × model × mode) of a run is answered and scored, by the run's own threads or by any
    worker: the same code, so the answers and scores are the same whoever answered."""

    def __init__(self, run_id: str, cfg: RunConfig, services: Corpus | None, engine: Engine, scorer: Scorer,
                 items: Sequence[Item]) -> None:
        self.run_id, self.cfg, self.services, self.engine, self.scorer = run_id, cfg, services, engine, scorer
        self.items = {it.id: it for it in items}
        self.doc_for = docs_for(items, services)
        # "this EIS": an item's document, or with ``whole_eis`` every volume of the EIS it is a volume of
        self.scope_for: dict[str, str | list[str]] = {
            name: (volumes.whole_eis([d], services.docs.engine) if cfg.whole_eis and services is not None else d)
            for name, d in self.doc_for.items() if d}
        self.shared = False  # True: other processes answer this run's cells too, so each is taken with a lease
        self.unfit: str | None = None  # why this worker may not answer the run's cells (its setup differs)

    def answer(self, it: Item, model: str, mode: str, cancel: threading.Event) -> str:
        if cancel.is_set():
            return "cancelled"
        if not self.shared:
            return self._answer(it, model, mode)
        lease = leases.Lease(_cell_lease(self.run_id, it.id, model, mode), self.engine, f"a cell of {self.run_id}")
        if not lease.try_acquire():
            return ELSEWHERE  # another worker is answering it now
        try:
            return ELSEWHERE if self._stored(it.id, model, mode) else self._answer(it, model, mode)
        finally:
            lease.release()

    def _stored(self, item_id: str, model: str, mode: str) -> bool:
        t = tables.bench_answers
        with self.engine.connect() as c:
            return c.execute(select(t.c.item_id).where(t.c.run_id == self.run_id, t.c.item_id == item_id,
                                                       t.c.model == model, t.c.mode == mode)).first() is not None

    def _answer(self, it: Item, model: str, mode: str) -> str:
        cfg, run_id = self.cfg, self.run_id
        doc_id = self.doc_for.get(it.doc)
        scope = self.scope_for.get(it.doc, doc_id)
        if isinstance(scope, list) and len(scope) == 1:
            scope = scope[0]
        try:
            res = ask(it.question, model, mode, self.services if doc_id else None, scope, cfg.k, it.context,
                      it.question_type == "closed")
        except Exception as exc:  # noqa: BLE001 - a cell that cannot run is one recorded failure, never the run's end
            res = AskResult(model=model, mode=mode, answer=None, closed=it.question_type == "closed", verdict=None,
                            error=redact(str(exc) if isinstance(exc, UserError) else
                                         f"unexpected failure ({type(exc).__name__})"))
        row = {"run_id": run_id, "item_id": it.id, "model": model, "mode": mode, "answer": res.answer,
               "verdict": res.verdict, "verdict_source": res.verdict_source, "contexts": context_passage.to_json(res.contexts),
               "truncated": int(res.truncated), "kept_fraction": res.kept_fraction, "tokens_in": res.tokens_in,
               "tokens_out": res.tokens_out, "seconds": res.seconds}
        results = []
        if res.error:
            row.update(status="failed", error=res.error)
        else:
            row.update(status="ok")
            try:
                results = self.scorer.score(it, mode, res.answer, res.verdict, res.contexts)
            except Exception:  # noqa: BLE001 - keep the answer; its missing scores are computed on resume
                results = []
        t = tables.bench_answers
        try:
            with self.engine.begin() as c:
                c.execute(insert(t).values(**row))
                _write_scores(c, run_id, it, model, mode, results)
        except IntegrityError:
            pass  # another worker or process wrote this answer first: keep theirs, no duplicate
        return progress_line(model, mode, it.question)


def progress_line(model: str, mode: str, question: str) -> str:
    """What a run's progress says it just answered, in plain words: "Extractive baseline (no LLM) · Retrieved
    passages (RAG) · “Who is the lead agency…”" (the ids are in the results and exports)."""
    try:
        label = registry.get(model).label
    except Exception:  # noqa: BLE001 - a model unknown here: its id is all there is
        label = model
    q = " ".join((question or "").split())
    return f"{label} · {MODE_LABELS.get(mode, mode)} · “{q[:48].rstrip() + '…' if len(q) > 48 else q}”"


def _stored_count(cells: Cells) -> int:
    t = tables.bench_answers
    with cells.engine.connect() as c:
        return int(c.execute(select(func.count()).select_from(t).where(t.c.run_id == cells.run_id)).scalar() or 0)


def _missing(cells: Cells, tasks: list[tuple[Item, str, str]]) -> list[tuple[Item, str, str]]:
    t = tables.bench_answers
    with cells.engine.connect() as c:
        have = {(r.item_id, r.model, r.mode) for r in c.execute(
            select(t.c.item_id, t.c.model, t.c.mode).where(t.c.run_id == cells.run_id))}
    return [(it, m, md) for it, m, md in tasks if (it.id, m, md) not in have]


def _answer_with_workers(cells: Cells, tasks: list[tuple[Item, str, str]], max_workers: int,
                         progress: CountProgressFn | None, cancel: threading.Event) -> None:
    """The run's cells are queued for every worker; this job answers them too, from the other end of the list
    (the workers take them from the front), skipping any another worker holds or has answered. Then it waits for
    the cells still being answered elsewhere, and answers itself any a stopped worker left: a cell is answered
    once, and none is lost with its worker."""
    cells.shared = True
    total, before = len(tasks), _stored_count(cells)

    def report(_n: int, _t: int, msg: str) -> None:  # every worker's answers count, not only this job's
        if progress:
            progress(min(total, _stored_count(cells) - before), total, msg)

    todo = list(reversed(tasks))
    while todo and not cancel.is_set():
        run_tasks(lambda it, model, mode: cells.answer(it, model, mode, cancel), todo, max_workers, report, cancel)
        while not cancel.is_set() and leases.live(f"cell:{cells.run_id}:", cells.engine):
            time.sleep(0.2)  # answered elsewhere now; their answers (or failures) are written when they end
        todo = list(reversed(_missing(cells, tasks)))


_worker_cells: dict[str, Cells] = {}  # a worker's Cells per run, made on its first cell of that run
_worker_cells_lock = threading.Lock()


def answer_cell(payload: dict[str, Any], services: Corpus | None, engine: Engine | None = None) -> str:
    """A worker's part of a run: answer one queued cell, unless no job works on the run any more (cancelled, or
    its job stopped: the resumed job queues what is left) or the cell is answered or being answered."""
    engine = engine or get_engine()
    run_id = str(payload["run_id"])
    if not leases.live(run_lease_name(run_id), engine):
        return "skipped: no job works on this run now"
    with _worker_cells_lock:
        cells = _worker_cells.get(run_id)
        if cells is None:
            stored = load_run(run_id, engine)
            if stored is None:
                return "skipped: no such run"
            items, cfg = stored
            try:  # this worker answers only as the run's own job would: the same models, options, documents
                for m in [*cfg.models, *([cfg.judge] if cfg.judge else [])]:
                    registry.get(m)  # unknown, unconfigured here (no key) or unavailable: a UserError
                judge = registry.get(cfg.judge) if cfg.judge else None
                current = _current_manifest(cfg, services, [d for d in docs_for(items, services).values() if d])
                manifest.check_resume(run_id, "bench", current, engine, ignore=("app_version", "rescored"))
                unfit = None
            except UserError as exc:
                judge, unfit = None, str(exc)
                _log.warning("worker: the cells of run %s are left to its job: this worker's setup differs (%s)",
                             run_id, redact(unfit)[:300])
            cells = Cells(run_id, cfg, services, engine, Scorer(judge, _embed_fn(services), _pages_fn(services)),
                          items)
            cells.shared, cells.unfit = True, unfit
            if len(_worker_cells) > 8:  # runs come and go; a worker keeps the few it is working on
                _worker_cells.clear()
            _worker_cells[run_id] = cells
    if cells.unfit:  # never a setup error stored as the cell's answer: the run's job answers it
        return "skipped: this worker's setup differs from the run's"
    it = cells.items.get(str(payload["item_id"]))
    if it is None:
        return "skipped: no such item"
    return cells.answer(it, str(payload["model"]), str(payload["mode"]), threading.Event())


def run_benchmark(
    items: Sequence[Item] | None, cfg: RunConfig | None, services: Corpus | None = None, run_id: str | None = None,
    engine: Engine | None = None, progress: CountProgressFn | None = None, cancel: threading.Event | None = None,
    max_workers: int = 4, retry_failed: bool = True,
) -> RunSummary:
    """Run (or resume) a benchmark. With an existing ``run_id`` the stored items and configuration are used,
    and the resume is refused if the configuration now differs from the run's manifest."""
    authorize(Action.RUN_BENCHMARK, run_id or "a benchmark run")
    engine = engine or get_engine()
    started = time.perf_counter()
    stored = load_run(run_id, engine) if run_id else None
    if stored is not None:
        items, cfg = stored
        concrete = registry.resolve_all(cfg.models)
        if concrete != cfg.models or (cfg.judge and registry.resolve(cfg.judge) != cfg.judge):
            raise UserError(f"Run '{run_id}' was stored under short model names ({', '.join(cfg.models)}) by an "
                            "earlier version, so its answers cannot be matched to concrete models. Start a new run.")
    elif items is None or cfg is None:
        raise UserError(f"No benchmark run '{run_id}' to resume; give questions and models to start one.")
    else:
        cfg.models = registry.resolve_all(cfg.models)
        cfg.judge = registry.resolve(cfg.judge) if cfg.judge else None
        _validate(cfg)
        items = select_items(items, cfg.limit, cfg.seed, cfg.question_type)
        if not items:
            raise UserError("No items to run: the selection is empty.")
    _validate(cfg)

    doc_for = docs_for(items, services)
    current = _current_manifest(cfg, services, [d for d in doc_for.values() if d])
    if stored is None:
        cfg.no_doc_items = [it.id for it in items if doc_for.get(it.doc) is None]
        run_id = create_run(items, cfg, run_id, engine)
        manifest.save(run_id, "bench", current, engine)
    else:
        # The app version alone changes nothing: models, options, prompts, documents and settings are compared.
        assert run_id is not None  # a stored run was read by its id
        manifest.check_resume(run_id, "bench", current, engine, ignore=("app_version", "rescored"))
    judge = registry.get(cfg.judge) if cfg.judge else None
    scorer = Scorer(judge, _embed_fn(services), _pages_fn(services))

    t = tables.bench_answers
    with engine.begin() as c:
        if retry_failed:
            c.execute(delete(t).where(t.c.run_id == run_id, t.c.status == "failed"))
        done = {(r.item_id, r.model, r.mode) for r in c.execute(
            select(t.c.item_id, t.c.model, t.c.mode).where(t.c.run_id == run_id))}

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
    cells = Cells(run_id, cfg, services, engine, scorer, items)
    payloads = [{"run_id": run_id, "item_id": it.id, "model": m, "mode": md} for it, m, md in tasks]
    if job_parts.queue_parts(CELL_PART, payloads, engine):  # with workers: any free worker answers a cell too
        _answer_with_workers(cells, tasks, max_workers, progress, cancel)
    else:
        run_tasks(lambda it, model, mode: cells.answer(it, model, mode, cancel), tasks, max_workers, progress,
                  cancel)
    if not cancel.is_set():
        rescore(run_id, engine=engine, services=services, only_retry=True, judge=judge, scorer=scorer)
    summary = summarize(run_id, engine)
    summary.skipped_no_doc = skipped
    summary.seconds = round(time.perf_counter() - started, 2)
    summary.cancelled = cancel.is_set()
    return summary


def _pages_fn(services: Corpus | None) -> PagesOf | None:
    """The documents' pages, for the support check of full-PDF answers (None without services)."""
    return services.docs.pages if services is not None else None


def _embed_fn(services: Corpus | None) -> Callable[[Sequence[str]], np.ndarray]:
    """The exact model (fp32, torch's vectors) whatever the ingest backend: semantic scores never depend on it."""
    return get_exact_embedder(_embed_model(services)).embed


VERDICT_STANDS = ("structured", "likelihood", "heuristic", "none")
"""The verdict sources a re-score keeps as stored; any other verdict (read from the answer's text) is read again."""


@dataclass(frozen=True)
class Rescored:
    """What one ``rescore`` call did: how many stored answers it scored again."""

    rescored: int

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def rescore(run_id: str, judge: Provider | str | None = None, *, engine: Engine | None = None, services: Corpus | None = None, only_retry: bool = False,
            scorer: Scorer | None = None, progress: CountProgressFn | None = None) -> Rescored:
    """Score a run's stored answers again without generating them again: all of them (another judge, a fixed
    parser), or with ``only_retry`` just those whose judge failed, had no statements, or lack a metric.
    ``judge`` is a model (or id); passing one makes it the run's judge and records that in its manifest."""
    authorize(Action.RUN_BENCHMARK, run_id)
    engine = engine or get_engine()
    stored = load_run(run_id, engine)
    if stored is None:
        raise UserError(f"No benchmark run '{run_id}'.")
    items, cfg = stored
    judge = registry.get_judge(judge) if isinstance(judge, str) else (
        registry.checked_judge(judge) if judge is not None else None)
    if judge is not None and judge.id != cfg.judge:
        if only_retry:
            raise UserError("A new judge re-scores every answer; do not combine it with only_retry.")
        cfg.judge = judge.id
        save_config(run_id, cfg, engine)
        m = manifest.load(run_id, engine) or Manifest("bench")
        m.judge = judge.manifest_entry()
        m.prompts = manifest.prompt_hashes(prompts.templates() | judge_templates())
        m.rescored.append({"judge": judge.id, "at": time.strftime("%Y-%m-%d %H:%M:%S")})
        manifest.save(run_id, "bench", m, engine)
    elif judge is None and cfg.judge:
        judge = registry.get(cfg.judge)
    semantic = _semantic_label(services)
    made_with = manifest.semantic_embedder_changed(run_id, semantic, engine) if scorer is None else None
    if made_with and only_retry:
        raise UserError(f"This run's semantic scores were made with {made_with}; they are now made with "
                        f"{semantic}, so re-scoring only some answers would mix the two in one table. "
                        "Re-score every answer instead.")
    scorer = scorer or Scorer(judge, _embed_fn(services), _pages_fn(services))
    t = tables.bench_answers
    by_id = {it.id: it for it in items}
    todo = []
    for r in answers(run_id, engine):
        if r.status != "ok" or r.item_id not in by_id:
            continue
        it = by_id[r.item_id]
        if only_retry and not scorer.needs_rescore(it, r.mode, r.metrics):
            continue
        todo.append((it, r))
    done = [0]  # answers scored again, counted under the lock
    lock = threading.Lock()

    def work(it: Item, r: StoredAnswer) -> str:
        # A verdict the model gave in structured form, by likelihood or by its own rule stands, and so does "quotes
        # only" (source "none": no verdict by design, never scored); one read from text is read again, so a fixed
        # parser takes effect.
        verdict = r.verdict if r.verdict_source in VERDICT_STANDS else None
        results = scorer.score(it, r.mode, r.answer, verdict, r.contexts)
        with engine.begin() as c:
            _write_scores(c, run_id, it, r.model, r.mode, results)
            if it.question_type == "closed" and verdict is None and results:
                new_verdict = results[0].details.get("verdict")
                c.execute(update(t).where(t.c.run_id == run_id, t.c.item_id == it.id, t.c.model == r.model,
                                          t.c.mode == r.mode).values(verdict=new_verdict, verdict_source="text"))
        with lock:
            done[0] += 1
        return progress_line(r.model, r.mode, it.question)

    run_tasks(work, todo, 4 if (judge is None or judge.concurrent) else 1, progress, threading.Event())
    if made_with and done[0] == len(todo):  # only once every answer has its new scores
        m = manifest.load(run_id, engine) or Manifest("bench")
        m.semantic_embedder = semantic
        m.rescored.append({"semantic_embedder": semantic, "at": time.strftime("%Y-%m-%d %H:%M:%S")})
        manifest.save(run_id, "bench", m, engine)
    return Rescored(done[0])


def summarize(run_id: str, engine: Engine | None = None) -> RunSummary:
    stored = load_run(run_id, engine)
    if stored is None:
        raise UserError(f"No benchmark run '{run_id}'.")
    items, cfg = stored
    rows = answers(run_id, engine)
    metric = headline_metric(cfg.judge)
    cells = report.cell_scores(items, cfg, rows)
    statuses = report.status_counts(rows, metric)
    return RunSummary(
        run_id=run_id, n_items=len(items), answers=sum(1 for r in rows if r.status == "ok"),
        failures=sum(1 for r in rows if r.status == "failed"), skipped_no_doc=0, scores=cells,
        retrieval_hit_at_k=report.retrieval_summary(cfg, rows),
        judge=cfg.judge or "none: token-F1 proxy (offline, not RAGAS)", metric=metric,
        judge_failures=statuses["judge_failed"], no_statements=statuses["no_statements"],
        unclear=statuses["unclear"], no_verdict=statuses["no_verdict"], majority_baseline=report.majority(items),
        manifest=manifest.load(run_id, engine), comparison=report.comparison_info(items, cfg, rows),
        reference_free=report.reference_free_cells(cfg, rows),
    )


__all__ = ["CELL_PART", "Cells", "RunSummary", "answer_cell", "rescore", "run_benchmark", "run_lease_name", "summarize"]

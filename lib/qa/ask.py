"""Ask: one question, several models × context modes, answered concurrently where providers allow."""
from __future__ import annotations

import copy
import functools
import json
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.engine import Engine

from lib.collection import volumes
from lib.core import access
from lib.core.access import Action
from lib.core.errors import UserError
from lib.core.json_types import JSONObject, json_int
from lib.core.redaction import redact
from lib.core.verdict import looks_closed, parse_verdict
from lib.documents.mentions import DocRef
from lib.models import prompts, registry
from lib.models.base import DEFAULT_ANSWER_TOKENS, NON_ANSWERS, Provider, ProviderError, Request
from lib.qa import context_passage, manifest
from lib.qa import support as support_lib
from lib.qa.context_passage import ContextPassage
from lib.qa.contexts import (
    MODES,
    ComparedDocuments,
    Context,
    fit_to_window,
    gold_context,
    multi_pdf_context,
    none_context,
    pdf_context,
    rag_context,
)
from lib.qa.services import Corpus
from lib.storage import tables
from lib.storage.audit import guarded
from lib.storage.engine import get_engine

ANSWER_BUDGET_OPEN = DEFAULT_ANSWER_TOKENS  # each model's own cap where it has one (Provider.answer_cap)
ANSWER_BUDGET_CLOSED = 48
DEFAULT_K = 3



@functools.lru_cache(maxsize=256)
def _checked(answer: str, mode: str, contexts_json: str, question: str = "",
             verdict: str | None = None, comparison_json: str = "null") -> support_lib.SupportReport:
    """The support check of an answer against its contexts (given as JSON, so the call can be remembered); a
    closed answer's verdict is checked against them too, in gold mode a refusal is a missed answer, and a
    comparison question's claims are held to each document it compares."""
    stated = json.loads(comparison_json)
    comparison = ComparedDocuments.from_dict(stated) if isinstance(stated, Mapping) else None
    return support_lib.check(answer, support_lib.passages_of(context_passage.from_json(contexts_json), mode), question=question,
                             verdict=verdict, holds_answer=mode == "gold",
                             documents=compared_documents(comparison), compared=compared_ids(comparison))


def compared_documents(comparison: ComparedDocuments | None) -> list[DocRef]:
    """The documents in view for the support check (its scope, else the compared ones); none: the documents the
    passages come from."""
    return comparison.in_view() if comparison else []


def compared_ids(comparison: ComparedDocuments | None) -> list[str] | None:
    """The documents a comparison question compares, which "both EISs" in its answer means; None: no comparison."""
    return comparison.compared_ids() if comparison else None


# How a closed answer's yes or no was read, in words (the answer's details, the Benchmark items table).
VERDICT_SOURCES = {"structured": "structured output", "likelihood": "next-token likelihood",
                   "heuristic": "the baseline's heuristic", "text": "the text parser", "none": "none (quotes only)"}


@dataclass
class AskResult:
    model: str
    mode: str
    answer: str | None
    closed: bool
    verdict: str | None
    contexts: list[ContextPassage] = field(default_factory=list)
    truncated: bool = False
    kept_fraction: float = 1.0
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0
    error: str | None = None
    total_tokens: int = 0
    verdict_probs: dict[str, float] | None = None
    question: str = ""
    verdict_source: str | None = None  # structured | likelihood | heuristic | text
    per_document: str = ""  # full PDF over several documents: what was kept of each
    comparison: ComparedDocuments | None = None  # RAG over several documents (retrieval.Comparison and the scope)
    cut_at: int | None = None  # the answer reached this cap on its length and stops there, not where the model ended

    def support(self, pages_of: support_lib.PagesOf | None = None) -> support_lib.SupportReport | None:
        """The offline support check of this answer against the passages it was given; None for a failed cell or
        an empty answer, and for mode pdf without ``pages_of`` (the document's pages, to read the kept ones
        again) or when the kept pages were not recorded. Every sentence is "no source to check" in mode none."""
        answer = (self.answer or "").strip()
        if self.error or not answer or answer in NON_ANSWERS:
            return None
        if self.mode == "pdf":
            passages = support_lib.pdf_passages(self.contexts, pages_of) if pages_of else []
            # the window's pages are not numbered sources: markers are set aside, every page is a candidate
            return (support_lib.check(support_lib.bare(self.answer or ""), passages,
                                      documents=compared_documents(self.comparison),
                                      compared=compared_ids(self.comparison)) if passages else None)
        # a page draws one answer's support in several places (its mark, its sentences, its sources) on every
        # rerun: the check (about 40 ms here) runs once per answer and contexts
        return copy.deepcopy(_checked(self.answer or "", self.mode, context_passage.to_json(self.contexts),
                                      self.question, self.verdict if self.closed else None,
                                      json.dumps(self.comparison.as_dict() if self.comparison else None,
                                                 sort_keys=True)))

    def cli_dict(self, pages_of: support_lib.PagesOf | None = None) -> JSONObject:
        keys = ("model", "mode", "answer", "closed", "verdict", "verdict_source", "contexts", "truncated",
                "kept_fraction", "tokens_in", "tokens_out", "seconds", "comparison", "cut_at")
        d = {k: asdict(self)[k] for k in keys}
        d["comparison"] = self.comparison.as_dict() if self.comparison else None
        d["contexts"] = [{k: c.as_dict().get(k) for k in ("doc_id", "doc_name", "section", "page_start", "page_end",
                                                          "text")} for c in self.contexts]
        report = self.support(pages_of)
        d["support"] = report.as_dict() if report else None
        if self.error:
            d["error"] = self.error
        return d

    def notice(self) -> str | None:
        """The truncation notice, saying how this model's tokens were counted (its tokenizer, or an estimate)."""
        try:
            unit = registry.get(self.model).count_unit
        except Exception:  # noqa: BLE001 - a model no longer configured: the figure stands without the unit
            unit = ""
        return Context("pdf", truncated=self.truncated, kept_fraction=self.kept_fraction,
                       total_tokens=self.total_tokens, per_document=self.per_document).notice(unit)


_counters: dict[tuple[str, str, int], dict[str, int]] = {}
_cache_lock = threading.Lock()


def build_context(
    mode: str, question: str, provider: Provider, closed: bool, services: Corpus | None = None,
    doc_id: str | Sequence[str] | None = None, k: int = DEFAULT_K, gold: str | None = None, balanced: bool = False,
) -> Context:
    """The context for one mode. ``doc_id`` is one document id, or a scope: a list of ids (``[]``-free), or the
    string "*" for the whole collection."""
    if mode not in MODES:
        raise UserError(f"Unknown mode '{mode}'; use one of {', '.join(MODES)}.")
    if mode == "none":
        return none_context()
    if mode == "gold":
        return fit_to_window(gold_context(gold), _context_budget(provider, question, closed), provider.count_tokens)
    if services is None or not doc_id:
        raise UserError(f"Mode '{mode}' needs an indexed document: pick one (or use --doc DOC_ID).")
    scope = scope_ids(services, doc_id)
    if mode == "rag":
        # a question comparing documents draws passages from each (retrieval.comparison)
        found = services.retriever.search_question(scope, question, k, "hybrid", balanced=balanced)
        ctx = fit_to_window(rag_context(found.hits), _context_budget(provider, question, closed),
                            provider.count_tokens)
        ctx.documents = len(scope) if scope is not None else len(services.docs.list())
        # the documents the support check holds claims to: every document in scope, as texts name them ("scope";
        # a figure put on a document no passage came from is then caught), and the compared ones ("documents")
        compared = found.comparison
        ctx.comparison = ComparedDocuments(compared.why if compared else "", compared.documents if compared else (),
                                           tuple(found.documents)) if compared or found.documents else None
        return ctx
    ids = scope if scope is not None else [d.doc_id for d in services.docs.list()]
    budget = _context_budget(provider, question, closed)
    if len(ids) == 1:
        info = services.docs.get(ids[0])
        ctx = pdf_context(services.docs.pages(ids[0]), budget, _cached_counter(provider, info.doc_id, info.gen))
        ctx.passages[0].doc_id = info.doc_id  # the support check reads its kept pages again
        return ctx
    names = volumes.citation_names({d: services.docs.get(d).name for d in ids}, services.docs.engine)
    # each headed by the name its citations use, as RAG names them (a volume of an EIS: with its volume)
    docs = [(d, names[d], services.docs.pages(d)) for d in ids]
    return multi_pdf_context(docs, budget, provider.count_tokens)


def source_docs(ctx: Context) -> dict[int, str] | None:
    """A RAG context's source numbers → their document's name, where its scope held several documents."""
    if ctx.mode != "rag" or ctx.documents < 2:
        return None
    return {p.n: p.doc_name or p.doc_id for p in ctx.passages if p.n}


def scope_ids(services: Corpus | None, doc_id: str | Sequence[str]) -> list[str] | None:
    """A list of document ids, or None for the whole collection ("*")."""
    if isinstance(doc_id, str):
        return None if doc_id == "*" else [doc_id]
    ids = list(dict.fromkeys(doc_id))
    if not ids:
        raise UserError("The scope holds no document: pick at least one, or widen the filter.")
    return ids


def _context_budget(provider: Provider, question: str, closed: bool) -> int:
    """Tokens of the answering model's window left for the context after the prompt and the answer."""
    answer_budget = ANSWER_BUDGET_CLOSED if closed else provider.answer_cap(ANSWER_BUDGET_OPEN)
    overhead = provider.count_tokens(prompts.overhead(question, closed))
    budget = provider.context_window - overhead - answer_budget - 16  # chat-template tokens
    if not provider.local:  # estimated counts: leave a margin
        budget = int(budget * 0.95)
    return max(0, budget)


def _forget_counts(provider_id: str) -> None:
    """Drop a model's cached page counts (its token counting changed)."""
    with _cache_lock:
        for key in [k for k in _counters if k[0] == provider_id]:
            del _counters[key]


def _cached_counter(provider: Provider, doc_id: str, gen: int) -> Callable[[str], int]:
    """Page token counts are reused across questions for the same model and document."""
    with _cache_lock:
        memo = _counters.setdefault((provider.id, doc_id, gen), {})

    def count(text: str) -> int:
        if text not in memo:
            memo[text] = provider.count_tokens(text)
        return memo[text]

    return count


def _answer(provider: Provider, req: Request, res: AskResult, is_closed: bool) -> None:
    """Ask the model and fill ``res``: a closed question by the likelihood of "yes" and "no" where the model
    declares it, else by its answer (structured where it can give it, else read by the text parser)."""
    choice = provider.choose(req, ["yes", "no"]) if is_closed else None
    if choice is not None:
        verdict, probs = choice
        res.answer = verdict.capitalize()
        res.verdict = verdict
        res.verdict_probs = {k2: round(v, 4) for k2, v in probs.items()}
        res.verdict_source = "likelihood"
        res.tokens_in = provider.count_tokens(req.system + "\n" + req.prompt)
        res.tokens_out = 1
        return
    ans = provider.generate(req)
    res.answer, res.tokens_in, res.tokens_out = ans.text, ans.tokens_in, ans.tokens_out
    res.cut_at = req.max_tokens if ans.cut else None
    if is_closed:
        # Structured output first; a reply that ignored the structure is read by the text parser.
        res.verdict = ans.verdict or parse_verdict(ans.text)
        res.verdict_source = ans.verdict_source or ("heuristic" if ans.verdict else "text")


def ask(
    question: str, model_id: str, mode: str, services: Corpus | None = None, doc_id: str | Sequence[str] | None = None,
    k: int = DEFAULT_K, gold: str | None = None, closed: bool | None = None, balanced: bool = False,
    on_token: Callable[[str], None] | None = None,
) -> AskResult:
    """Answer one question with one model in one mode. Provider failures land in ``error``, not raised.
    ``on_token`` receives the answer's pieces as they arrive, where the model streams."""
    question = (question or "").strip()
    if not question:
        raise UserError("The question is empty.")
    access.authorize(Action.ASK)
    provider = registry.get(model_id)
    is_closed = looks_closed(question) if closed is None else closed
    for attempt in (1, 2):  # a second time only where the server rejected the first for its length
        started = time.perf_counter()  # the answer's time is the time of the try that answered
        ctx = build_context(mode, question, provider, is_closed, services, doc_id, k, gold, balanced)
        context_seconds = time.perf_counter() - started
        provider.take_busy()  # from here, only this answer's calls
        req = Request(
            prompt=prompts.render(question, ctx.text, is_closed), system=prompts.SYSTEM, question=question,
            context=ctx.text, closed=is_closed,
            max_tokens=ANSWER_BUDGET_CLOSED if is_closed else provider.answer_cap(ANSWER_BUDGET_OPEN),
            structured=is_closed, on_token=on_token, source_docs=source_docs(ctx),
        )
        res = AskResult(model=provider.id, mode=mode, answer=None, closed=is_closed, verdict=None,
                        contexts=ctx.passages, truncated=ctx.truncated, kept_fraction=round(ctx.kept_fraction, 4),
                        total_tokens=ctx.total_tokens, question=question, per_document=ctx.per_document,
                        comparison=ctx.comparison)
        try:
            _answer(provider, req, res, is_closed)
        except ProviderError as exc:
            if attempt == 1 and exc.window is not None:  # the server stated its window: fitted to it, asked again
                _forget_counts(provider.id)  # page counts made before its own count showed the estimate low
                continue
            res.error = redact(str(exc))
        except UserError as exc:
            res.error = redact(str(exc))
        except Exception as exc:  # noqa: BLE001 - one error boundary per cell: anything unexpected fails this cell only
            res.error = redact(f"{provider.label}: unexpected failure ({type(exc).__name__}); the other cells go on")
        break
    # Nothing stored or shown carries a key, even one a server echoed back in its answer.
    if res.answer:
        res.answer = redact(res.answer)
    res.contexts = [replace(c, text=redact(c.text)) for c in res.contexts]
    # Time to answer: the context plus the model's own time, not time queued behind other calls to a local model
    # (a benchmark's workers share it), so estimates built from these times add up to what a run takes.
    model_seconds = provider.take_busy() or (time.perf_counter() - started - context_seconds)  # a plugin's own
    res.seconds = round(context_seconds + model_seconds, 3)  # generate() that skips serial(): its wall time
    return res


def ask_grid(
    question: str, model_ids: Sequence[str], modes: Sequence[str], services: Corpus | None = None,
    doc_id: str | Sequence[str] | None = None, k: int = DEFAULT_K, gold: str | None = None,
    closed: bool | None = None, on_result: Callable[[AskResult], None] | None = None, max_workers: int = 4,
    balanced: bool = False, on_partial: Callable[[str, str, str], None] | None = None,
) -> list[AskResult]:
    """Every (model, mode) cell; cells finish in any order and each is reported as it arrives.

    With ``on_partial``, cells whose model streams report their text so far as ``(model, mode, text)``, from this
    (the caller's) thread, a few times a second, so a page can draw it. The text shown is redacted and held back
    to its last whole word, so a key a hostile server echoes is never on screen even for a moment."""
    access.authorize(Action.ASK)
    model_ids = [_concrete(m) for m in model_ids]
    if connected := [m for m in model_ids if not _is_local(m)]:  # before any cell: a viewer's run is refused whole
        with guarded(Action.CONNECTED_MODEL, question[:200], f"asked {', '.join(connected)}"):
            pass
    cells = [(m, mode) for m in model_ids for mode in modes]
    results: list[AskResult] = []
    buffers: dict[tuple[str, str], list[str]] = {cell: [] for cell in cells}
    shown: dict[tuple[str, str], str] = {}
    finished: set[tuple[str, str]] = set()

    def collector(cell: tuple[str, str]) -> Callable[[str], None] | None:
        return buffers[cell].append if on_partial else None  # list.append is atomic across threads

    def flush() -> None:
        for cell, parts in buffers.items():
            if cell in finished or not parts:
                continue
            text = safe_partial("".join(parts))
            if text and text != shown.get(cell):
                shown[cell] = text
                on_partial(cell[0], cell[1], text)  # type: ignore[misc]

    with ThreadPoolExecutor(max_workers=max_workers) as pool:
        futures = {pool.submit(access.in_this_context(_safe_ask), question, m, mode, services, doc_id, k, gold, closed, balanced,
                               collector((m, mode))): (m, mode)
                   for m, mode in cells}
        pending = set(futures)
        while pending:
            done, pending = wait(pending, timeout=0.25 if on_partial else None, return_when=FIRST_COMPLETED)
            for fut in done:
                r = fut.result()
                finished.add(futures[fut])
                results.append(r)
                if on_result:
                    on_result(r)
            if on_partial:
                flush()
    order = {cell: i for i, cell in enumerate(cells)}
    return sorted(results, key=lambda r: order[(r.model, r.mode)])


def _concrete(model_id: str) -> str:
    try:
        return registry.resolve(model_id)
    except UserError:
        return model_id  # reported as that cell's error


def _is_local(model_id: str) -> bool:
    try:
        return bool(registry.get(model_id).local)
    except UserError:  # not configured: its cell says so
        return True


def safe_partial(text: str) -> str:
    """Streamed text fit to show before the answer is complete: up to its last whitespace (a key arriving in
    pieces is only shown whole, and then redacted), with keys redacted."""
    cut = max(text.rfind(" "), text.rfind("\n"))
    return redact(text[:cut]) if cut > 0 else ""


def _safe_ask(question: str, model_id: str, mode: str, *args: Any) -> AskResult:
    try:
        return ask(question, model_id, mode, *args)
    except UserError as exc:
        return AskResult(model=model_id, mode=mode, answer=None, closed=False, verdict=None, error=str(exc),
                         question=question)


# ----- history ---------------------------------------------------------------------------------
def batch_manifest(results: Sequence[AskResult], doc_id: str | Sequence[str] | None, services: Corpus | None = None,
                   k: int = DEFAULT_K, balanced: bool = False) -> manifest.Manifest:
    """What an Ask batch was made with (see manifest.py)."""
    models = []
    for mid in dict.fromkeys(r.model for r in results):
        try:
            models.append(registry.get(mid))
        except UserError:
            continue
    ids = [] if not doc_id else ([doc_id] if isinstance(doc_id, str) else list(doc_id))
    if ids == ["*"] and services is not None:
        ids = [d.doc_id for d in services.docs.list()]
    docs = manifest.document_entries(services, ids) if services is not None and ids else []
    return manifest.build("ask", models, prompts=prompts.templates(), documents=docs,
                          embedder=manifest.embedder_name(services),
                          settings={"k": k, "modes": sorted({r.mode for r in results}), "balanced": balanced,
                                    "comparison": next((r.comparison.as_dict() for r in results if r.comparison), None),
                                    "answer_budget": {"open": "each model's options.answer_tokens",
                                                      "closed": ANSWER_BUDGET_CLOSED}})


def scope_key(scope: str | Sequence[str] | None) -> str | None:
    """A scope as history stores it: "*", one id, ids joined by commas, or None."""
    return scope if scope is None or isinstance(scope, str) else ",".join(scope)


def save_history(results: Sequence[AskResult], doc_id: str | Sequence[str] | None, engine: Engine | None = None, services: Corpus | None = None,
                 k: int = DEFAULT_K, balanced: bool = False) -> str:
    batch = uuid.uuid4().hex[:12]
    engine = engine or get_engine()
    who = access.authorize(Action.ASK)
    rows = [{
        "batch_id": batch, "doc_id": scope_key(doc_id), "asked_by": who.id,
        "question": r.question, "model": r.model, "mode": r.mode,
        "closed": int(r.closed), "answer": r.answer, "verdict": r.verdict, "verdict_source": r.verdict_source,
        "error": r.error,
        "contexts": context_passage.to_json(r.contexts), "truncated": int(r.truncated), "kept_fraction": r.kept_fraction,
        "tokens_in": r.tokens_in, "tokens_out": r.tokens_out, "seconds": r.seconds,
        "support": json.dumps(rep.as_dict()) if (rep := r.support(services.docs.pages if services else None))
        else None,
    } for r in results]
    if rows:
        with engine.begin() as c:
            c.execute(insert(tables.ask_history), rows)
        manifest.save(batch, "ask", batch_manifest(results, doc_id, services, k, balanced), engine)
    return batch


@dataclass(frozen=True)
class HistoryRow:
    """One kept Ask answer, as the history stores it (the columns of ``ask_history``, JSON read)."""

    id: int
    batch_id: str  # one question asked of several models and modes
    created_at: str
    doc_id: str | None  # the scope, as ``scope_key`` writes it
    question: str
    model: str
    mode: str
    closed: int  # 1: a yes/no question
    answer: str | None
    verdict: str | None
    verdict_source: str | None
    error: str | None
    contexts: list[ContextPassage]  # what the model was given
    truncated: int | None
    kept_fraction: float | None
    tokens_in: int | None
    tokens_out: int | None
    seconds: float | None
    support: JSONObject | None  # the support check made when it was kept (None: kept before there was one)
    asked_by: str | None = None  # the account that asked (None: asked before accounts)

    def as_dict(self) -> JSONObject:
        return asdict(self) | {"contexts": [c.as_dict() for c in self.contexts]}


_HISTORY_FIELDS = tuple(f.name for f in fields(HistoryRow))


def load_history(engine: Engine | None = None, limit: int = 500) -> list[HistoryRow]:
    """The latest kept answers, newest first."""
    engine = engine or get_engine()
    t = tables.ask_history
    with engine.connect() as c:
        rows = c.execute(select(t).order_by(t.c.id.desc()).limit(limit)).mappings().all()
    return [HistoryRow(**{k: r[k] for k in _HISTORY_FIELDS} | {
        "created_at": str(r["created_at"]), "contexts": context_passage.from_json(r["contexts"]),
        "support": json.loads(r["support"]) if r["support"] else None}) for r in rows]


def export_rows(hist: Sequence[HistoryRow]) -> list[JSONObject]:
    """History rows for a CSV: the support check flattened into its verdict, summary and marks (one cell each);
    answers kept before the check was stored say so."""
    out = []
    for h in hist:
        rep = h.support
        row = {k: v for k, v in h.as_dict().items() if k != "support"} | {"contexts": context_passage.to_json(h.contexts, ensure_ascii=False)}
        unchecked = "not checked" if (h.answer or "").strip() and not h.error else ""
        row["support_verdict"] = rep["verdict"] if rep else unchecked
        row["support_summary"] = rep["summary"] if rep else ""
        row["support_marks"] = support_lib.marks_line(support_lib.read_marks(rep.get("marks"))) if rep else ""
        out.append(row)
    return out


def export_json(hist: Sequence[HistoryRow]) -> str:
    """The history as a JSON download: every column, the support check whole."""
    return json.dumps([h.as_dict() for h in hist], indent=1, default=str)


@dataclass(frozen=True)
class BatchSettings:
    """What a saved batch was asked with, beyond its answers: k and balanced are None where its record does not
    say (older batches)."""

    scope: str | None  # "*", one id, ids joined by commas, or None
    k: int | None
    balanced: bool | None


def batch_settings(batch_id: str, engine: Engine | None = None) -> BatchSettings:
    engine = engine or get_engine()
    t = tables.ask_history
    with engine.connect() as c:
        scope = c.execute(select(t.c.doc_id).where(t.c.batch_id == batch_id).limit(1)).scalar()
    made = manifest.load(batch_id, engine)
    settings = made.settings if made is not None else {}
    balanced = settings.get("balanced")
    return BatchSettings(scope, json_int(settings.get("k")), None if balanced is None else bool(balanced))


def load_batch(batch_id: str, engine: Engine | None = None) -> list[AskResult]:
    engine = engine or get_engine()
    t = tables.ask_history
    with engine.connect() as c:
        rows = c.execute(select(t).where(t.c.batch_id == batch_id).order_by(t.c.id)).mappings().all()
    # a comparison question's documents are in the batch's record (its manifest), for the support check
    made = manifest.load(batch_id, engine) if rows else None
    stated = made.settings.get("comparison") if made is not None else None
    comparison = ComparedDocuments.from_dict(stated) if isinstance(stated, Mapping) else None
    return [AskResult(model=r["model"], mode=r["mode"], answer=r["answer"], closed=bool(r["closed"]),
                      verdict=r["verdict"], verdict_source=r.get("verdict_source"),
                      contexts=context_passage.from_json(r["contexts"]), truncated=bool(r["truncated"]),
                      kept_fraction=r["kept_fraction"] or 1.0, tokens_in=r["tokens_in"] or 0,
                      tokens_out=r["tokens_out"] or 0, seconds=r["seconds"] or 0.0, error=r["error"],
                      question=r["question"], comparison=comparison if r["mode"] == "rag" else None) for r in rows]

"""``python -m lib``: the same operations as the pages, printing JSON on stdout."""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from lib.app import workers
from lib.app.job_handlers import benchmark_params, exam_params, ingest_params
from lib.app.services import get_services
from lib.collection.maintenance import check, repair
from lib.core import config
from lib.core.errors import UserError
from lib.core.redaction import redact
from lib.core.stats.agreement import cli_report
from lib.core.stats.bradley_terry import ratings
from lib.core.textfile import read_text
from lib.core.verdict import parse_verdict
from lib.documents.metadata import (
    cli_metadata,
    collection_filter,
    export_ceq,
    get_many,
    parse_where,
    set_values,
    tags_many,
)
from lib.documents.page_render import highlight_rects, render_page
from lib.documents.pdf import check_pdf_path
from lib.evaluation.benchmark.dataset import load_items
from lib.evaluation.benchmark.runner import rescore, summarize
from lib.evaluation.benchmark.runs import RunConfig, load_run
from lib.evaluation.exam.scores import summarize_run
from lib.evaluation.metadata_eval import evaluate as evaluate_metadata
from lib.models import registry
from lib.qa import support, support_judge
from lib.qa.ask import ask
from lib.review.arena_csv import read_votes_csv
from lib.review.labels_csv import read_labels_csv
from lib.storage import jobs, schema
from lib.storage.jobs import run_foreground

COMMANDS: dict[str, Callable[[argparse.Namespace], Any]] = {}


class ExitWith(Exception):  # noqa: N818 - a control-flow signal, not an error type
    """Print ``result`` as usual, then exit with ``code`` (e.g. `check` finding a problem)."""

    def __init__(self, code: int, result: Any) -> None:
        super().__init__(code)
        self.code, self.result = code, result


def command(name: str) -> Callable:
    def deco(fn: Callable[[argparse.Namespace], Any]) -> Callable:
        COMMANDS[name] = fn
        return fn

    return deco


def _stderr_progress(stage: str, frac: float, msg: str) -> None:
    print(f"[{stage}] {frac * 100:5.1f}% {msg.removeprefix(stage + ': ')}", file=sys.stderr, flush=True)


def _run_job(kind: str, params: dict, title: str) -> dict:
    """Run a job in the foreground: the same code as the app's background jobs, recorded in the same table.
    Progress goes to stderr: every change of stage, the end, and otherwise at most twice a second."""
    return run_foreground(kind, params, title, _printer())


def _printer():  # noqa: ANN202 - a progress printer

    last = {"stage": "", "at": 0.0}

    def printer(stage: str, frac: float, msg: str) -> None:
        now = time.monotonic()
        if stage != last["stage"] or frac >= 1.0 or now - last["at"] >= 0.5:
            last.update(stage=stage, at=now)
            _stderr_progress(stage, frac, msg)

    return printer


def _services():  # noqa: ANN202 - imported lazily so `--help` stays fast

    return get_services()


@command("ingest")
def _ingest(a: argparse.Namespace) -> Any:
    if a.chunk_size is not None and a.chunk_size < 16:
        raise UserError(f"--chunk-size must be at least 16 tokens (got {a.chunk_size}).")
    if a.chunk_overlap is not None and a.chunk_overlap < 0:
        raise UserError(f"--chunk-overlap must be 0 or more (got {a.chunk_overlap}).")
    # A missing file, a folder or an oversize file is refused before a job is recorded; any other bad file
    # (not a PDF, encrypted, scanned) fails its job with the reason, before the embedding model is loaded.
    if a.queue:
        if a.name:
            raise UserError("--name names one document; with --queue each document is named after its file.")
        return workers.queue_ingest(a.path, a.chunk_size, a.chunk_overlap, a.manifest)
    if a.manifest:
        raise UserError("--manifest gives the metadata of a bulk ingest: use it with --queue.")
    if len(a.path) > 1:
        raise UserError("Give one PDF (or use --queue to queue several, or a folder, for the workers).")
    path = a.path[0]
    check_pdf_path(path, config.max_upload_bytes())
    res = _run_job("ingest", ingest_params(str(Path(path).resolve()), a.name, a.chunk_size, a.chunk_overlap),
                   f"Index {a.name or Path(path).name}")
    keys = ("doc_id", "name", "pages", "chunks", "empty_pages", "seconds")
    return {k: res[k] for k in keys} | {"status": "already indexed" if res["skipped"] else "indexed"}


@command("jobs")
def _jobs(a: argparse.Namespace) -> Any:
    if a.action == "list":
        if a.limit < 1:
            raise UserError("--limit must be at least 1.")
        return [{"job_id": j.job_id, "kind": j.kind, "title": j.title, "status": j.status,
                 "progress": round(j.progress, 3), "message": j.message, "result": j.result, "error": j.error,
                 "origin": j.origin, "runs_on": j.runs_on,
                 "seconds": None if j.seconds is None else round(j.seconds, 1)}
                for j in jobs.list_jobs(a.limit)]
    if not a.job_id:
        raise UserError(f"Give the job id: python -m lib jobs {a.action} JOB_ID (see python -m lib jobs).")
    if a.action == "cancel":
        jobs.cancel(a.job_id)
        return {"job_id": a.job_id, "status": "cancel requested"}
    job = jobs.claim_resume(a.job_id)
    return jobs.run_foreground(job.kind, jobs.resume_params(job), job.title, _printer(), resumed_from=job.job_id)


@command("worker")
def _worker(a: argparse.Namespace) -> Any:
    return workers.run(a.concurrency, once=a.once)


@command("docs")
def _docs(a: argparse.Namespace) -> Any:
    docs = _services().docs
    listed = sorted(docs.list(), key=lambda d: d.doc_id)
    metas = get_many([d.doc_id for d in listed], docs.engine)
    tags = tags_many([d.doc_id for d in listed], docs.engine)
    return [{"doc_id": d.doc_id, "name": d.name, "pages": d.pages, "chunks": d.chunks,
             "metadata": cli_metadata(d.doc_id, meta=metas[d.doc_id]), "tags": tags[d.doc_id]} for d in listed]


@command("meta")
def _meta(a: argparse.Namespace) -> Any:
    docs = _services().docs
    docs.get(a.doc_id)
    if a.re_extract:
        docs.reextract_metadata(a.doc_id)
    if a.set:
        values = {}
        for item in a.set:
            key, sep, value = item.partition("=")
            if not sep or not key.strip():
                raise UserError(f'--set takes KEY="VALUE"; got {item!r}.')
            values[key.strip()] = value.strip().strip("\"'")
        set_values(a.doc_id, values, docs.engine)
    return {**cli_metadata(a.doc_id, docs.engine), "tags": tags_many([a.doc_id], docs.engine)[a.doc_id]}


@command("metadata-eval")
def _metadata_eval(a: argparse.Namespace) -> Any:
    return evaluate_metadata(a.target, a.csv)


@command("export-metadata")
def _export_metadata(a: argparse.Namespace) -> Any:
    docs = _services().docs
    return export_ceq(docs.list(), docs.engine)


@command("page")
def _page(a: argparse.Namespace) -> Any:
    if a.page < 1:
        raise UserError("Pages are numbered from 1, as printed in citations.")

    out = Path(a.out)
    if out.is_dir():
        raise UserError(f"{out} is a folder; give a file name such as page.png.")
    if not out.parent.is_dir():
        raise UserError(f"The folder {out.parent} does not exist; create it or write the PNG elsewhere.")
    _services().docs.get(a.doc_id)
    png = render_page(a.doc_id, a.page, a.highlight)
    try:
        out.write_bytes(png)
    except OSError as exc:
        raise UserError(f"Could not write {out} ({exc.strerror or type(exc).__name__}).") from exc
    result = {"doc_id": a.doc_id, "page": a.page, "out": str(out), "bytes": len(png)}
    if a.highlight:
        found = len(highlight_rects(a.doc_id, a.page, a.highlight))
        result["highlighted_lines"] = found
        if not found:
            print("note: the --highlight text was not found on this page; it is rendered without a highlight.",
                  file=sys.stderr)
    return result


@command("repair")
def _repair(a: argparse.Namespace) -> Any:
    return repair(_services().docs)


@command("check")
def _check(a: argparse.Namespace) -> Any:
    docs = _services().docs
    for note in schema.notes(docs.engine):
        print(f"note: this store's upgrade, {note}", file=sys.stderr)
    report = check(docs, fix=a.fix, progress=_printer())
    stale = [d["doc_id"] for d in report if d["chunks"] and not d["same_embedder_as_queries"]]
    if stale:
        print(f"note: {len(stale)} document(s) were embedded by another embedder and are searched by their words "
              "until embedded again (the app does it in the background; `python -m lib check --fix` does it now): "
              + ", ".join(stale), file=sys.stderr)
    if not all(d["ok"] for d in report):
        bad = [d["doc_id"] for d in report if not d["ok"]]
        print(f"error: {len(bad)} document(s) lack vectors: {', '.join(bad)}"
              + ("" if a.fix else "; run `python -m lib check --fix` to embed them again"), file=sys.stderr)
        raise ExitWith(1, report)
    return report


@command("delete")
def _delete(a: argparse.Namespace) -> Any:
    _services().docs.delete(a.doc_id)
    return {"deleted": a.doc_id}


@command("search")
def _search(a: argparse.Namespace) -> Any:
    if a.k < 1:
        raise UserError("-k must be at least 1.")
    if a.queries:  # read (and refuse) the file before the embedding model loads

        queries = [q for q in read_text(a.queries, "queries file").splitlines() if q.strip()]
    if not a.queries and not a.query:
        raise UserError("Give a QUERY, or --queries FILE with one query per line.")
    svc = _services()
    scope = _scope(a, svc)
    ids = None if scope == "*" else ([scope] if isinstance(scope, str) else scope)

    def run(q: str) -> list[dict]:
        return [h.as_dict() for h in svc.retriever.search_scope(ids, q, a.k, a.method, balanced=a.balanced)]

    if a.queries:
        return [run(q) for q in queries]
    return run(" ".join(a.query))


def _scope_flags(s: argparse.ArgumentParser, required: bool) -> None:
    g = s.add_mutually_exclusive_group(required=required)
    g.add_argument("--doc", help="one document id")
    g.add_argument("--docs", help="comma-separated document ids")
    g.add_argument("--all", action="store_true", help="every indexed document")
    g.add_argument("--where", help='metadata filter: lead_agency=…,states=AK,document_type="Final EIS",year=2010-2020')


def _scope(a: argparse.Namespace, svc: Any) -> str | list[str] | None:
    """The documents a command works on: one id, a list, "*" for all, or the ids a metadata filter selects."""
    if getattr(a, "all", False):
        return "*"
    if getattr(a, "docs", None):
        ids = [d.strip() for d in a.docs.split(",") if d.strip()]
        if not ids:
            raise UserError("--docs lists no document id.")
        for d in ids:
            svc.docs.get(d)
        return ids
    if getattr(a, "where", None):

        ids = collection_filter(svc.docs.list(), parse_where(a.where), svc.docs.engine)
        if not ids:
            raise UserError(f"No document matches --where {a.where}.")
        return ids
    if a.doc:
        svc.docs.get(a.doc)
        return a.doc
    return None


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m lib", description="NEPA QA Studio command line (prints JSON).")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("ingest", help="extract, chunk, embed and index a PDF (or, with --queue, queue many)")
    s.add_argument("path", nargs="+", help="a PDF; with --queue, PDFs and folders of them")
    s.add_argument("--queue", action="store_true", help="queue one job per PDF for the workers (server mode)")
    s.add_argument("--manifest", help="with --queue: a CSV with a 'file' column and metadata columns in the CEQ "
                                      "names (title, lead_agency, publish_date, ...); its values override extraction")
    s.add_argument("--name")
    s.add_argument("--chunk-size", type=int)
    s.add_argument("--chunk-overlap", type=int)

    sub.add_parser("docs", help="list indexed documents")

    s = sub.add_parser("jobs", help="list long jobs (ingest, benchmark, exam, generation) from the app and the CLI")
    s.add_argument("action", nargs="?", choices=["list", "cancel", "resume"], default="list")
    s.add_argument("job_id", nargs="?")
    s.add_argument("--limit", type=int, default=20)

    s = sub.add_parser("worker", help="take queued jobs from the PostgreSQL store (server mode, NEPAQA_WORKERS=queue)")
    s.add_argument("--concurrency", type=int, default=1, help="jobs at a time in this process")
    s.add_argument("--once", action="store_true", help="stop when the queue is empty (scripts and tests)")

    sub.add_parser("repair", help="remove vectors no committed document owns (skips documents being written)")

    s = sub.add_parser("check", help="does every document have its vectors? exit 1 if not")
    s.add_argument("--fix", action="store_true", help="embed missing vectors again from the stored chunks")

    s = sub.add_parser("delete", help="delete a document from the index")
    s.add_argument("doc_id")

    s = sub.add_parser("search", help="top-k chunks for a query, in one document, a set, all, or a metadata filter")
    _scope_flags(s, required=True)
    s.add_argument("-k", type=int, default=5)
    s.add_argument("--method", choices=["hybrid", "dense", "lexical", "bm25"], default="hybrid",
                   help="bm25 is an alias of lexical")
    s.add_argument("--balanced", action="store_true", help="the best chunks of each document in turn")
    s.add_argument("--queries", help="file with one query per line")
    s.add_argument("query", nargs="*")

    s = sub.add_parser("meta", help="show or set a document's metadata")
    s.add_argument("doc_id")
    s.add_argument("--set", action="append", default=[], metavar='KEY="VALUE"',
                   help='e.g. --set lead_agency="U.S. Army Corps of Engineers" (repeatable); --set tags="caribou, arctic" '
                        'replaces the tags')
    s.add_argument("--re-extract", action="store_true",
                   help="read the metadata again with today's rules (a person's values are kept; where the document "
                        "reads otherwise, 'extracted' says what it reads)")

    sub.add_parser("export-metadata", help="the collection's metadata in the CEQ NEPA Data Standard's JSON shape")

    s = sub.add_parser("metadata-eval", help="per-field precision and recall of the metadata rules on your own PDFs")
    s.add_argument("target", help="a folder of PDFs with one CSV of expected values, or that CSV (a 'file' column "
                                  "and one column per field; an empty cell: the document does not say)")
    s.add_argument("--csv", help="the CSV of expected values, where the folder holds several")

    s = sub.add_parser("page", help="render one PDF page as PNG, with a passage highlighted")
    s.add_argument("doc_id")
    s.add_argument("page", type=int, help="page number as printed in citations (from 1)")
    s.add_argument("--highlight", help="text to highlight on the page")
    s.add_argument("--out", required=True, help="PNG file to write")

    sub.add_parser("models", help="list answering models and whether they are available")

    s = sub.add_parser("ask", help="answer a question with one model in one context mode")
    _scope_flags(s, required=False)
    s.add_argument("--balanced", action="store_true", help="RAG: the best chunks of each document in turn")
    s.add_argument("--mode", required=True, choices=["none", "pdf", "rag", "gold"])
    s.add_argument("--gold")
    s.add_argument("-k", type=int, default=3)
    s.add_argument("--closed", action="store_true", default=None)
    s.add_argument("--model", required=True)
    s.add_argument("question", nargs="+")

    s = sub.add_parser("bench", help="run (or resume) a NEPAQuAD-style benchmark")
    s.add_argument("--questions", help="CSV or JSON benchmark file (not needed to resume a --run-id)")
    s.add_argument("--models", help="comma-separated model ids")
    s.add_argument("--modes", help="comma-separated: none,pdf,rag,gold (default all four)")
    s.add_argument("-k", type=int, help="chunks per RAG answer (default 3)")
    s.add_argument("--limit", type=int)
    s.add_argument("--seed", type=int)
    s.add_argument("--type", dest="question_type")
    s.add_argument("--judge")
    s.add_argument("--run-id")
    s.add_argument("--workers", type=int, default=4)

    s = sub.add_parser("rescore", help="score a benchmark run's stored answers again (another judge, a fixed parser)")
    s.add_argument("--run-id", required=True)
    s.add_argument("--judge", help="judge model id for RAGAS answer correctness (default: the run's own)")

    s = sub.add_parser("support", help="mark each sentence of an answer as supported or not by its passages")
    s.add_argument("--context-file", required=True,
                   help="the passages, one per paragraph (blank-line separated), numbered [1], [2]… in order")
    s.add_argument("--answer-file", required=True, help="the answer to check; its [n] markers cite the passages")
    s.add_argument("--checker", choices=["offline", "judge"], default="offline",
                   help="offline: the bundled embedder, word overlap and fact rules, no model; judge: a connected "
                        "model's verdict on each sentence (needs --model)")
    s.add_argument("--model", help="the judge model for --checker judge")

    s = sub.add_parser("verdict", help="read yes/no answers, one per line, as yes, no or unclear")
    s.add_argument("--file", required=True, help="text file with one answer per line")

    s = sub.add_parser("arena-ratings", help="Bradley-Terry ratings with bootstrap intervals from pairwise votes (CSV)")
    s.add_argument("votes_csv", help="columns left_model, right_model, vote (left|right|tie|both_bad); optional "
                                     "annotator, item_id")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples (default 1000)")

    s = sub.add_parser("agreement", help="agreement statistics from long-format labels")
    s.add_argument("labels_csv")

    s = sub.add_parser("exam", help="run the EnviroExam multiple-choice exam")
    s.add_argument("--model", required=True)
    s.add_argument("--shots", type=int, choices=[0, 5], default=0)
    s.add_argument("--cot", action="store_true")
    s.add_argument("--courses", help="comma-separated course ids (file names); default all 42")
    s.add_argument("--limit", type=int, help="questions per course")
    s.add_argument("--split", choices=["test", "dev"], default="test")
    s.add_argument("--circular", action="store_true",
                   help="OpenCompass circular evaluation: a question counts only if right under all 4 option rotations")
    s.add_argument("--restart", action="store_true", help="discard this run's stored answers and start over")
    return p


@command("bench")
def _bench(a: argparse.Namespace) -> Any:
    stored = load_run(a.run_id) if a.run_id else None
    if stored is not None:
        _refuse_changed_flags(a, stored[1])
        items, cfg = None, None
    else:
        if not a.questions or not a.models:
            raise UserError("Give --questions FILE and --models M1,M2 (or an existing --run-id to resume).")
        path = Path(a.questions)
        if not path.is_file():
            raise UserError(f"No such questions file: {path}" if not path.exists() else f"{path} is a folder, not a file.")
        items, problems = load_items(path)
        for p in problems:
            print(f"skipped {p}", file=sys.stderr)
        if a.limit is not None and a.limit < 1:
            raise UserError("--limit must be at least 1 (leave it out for all items).")
        if a.k is not None and a.k < 1:
            raise UserError("-k must be at least 1.")
        cfg = RunConfig(models=[m for m in a.models.split(",") if m],
                        modes=[m for m in (a.modes or "none,pdf,rag,gold").split(",") if m], k=a.k or 3,
                        judge=a.judge, limit=a.limit, seed=a.seed, question_type=a.question_type, source=path.name)

    if a.workers < 1:
        raise UserError("--workers must be at least 1.")

    # After every check of the input: bad input never loads the model or opens the index.
    params = benchmark_params(items, cfg, a.run_id, a.workers)
    res = _run_job("benchmark", params, f"Benchmark {params['run_id']}")
    summary = res["summary"]
    if summary["failures"]:
        print(f"[bench] {summary['failures']} answer(s) failed; they are counted in 'failures' and retried when you "
              f"resume with --run-id {summary['run_id']}", file=sys.stderr)
    return summary


def _refuse_changed_flags(a: argparse.Namespace, cfg: Any) -> None:
    """A resume uses the run's own configuration; flags that ask for another one are refused, never ignored."""
    asked = {
        "--models": registry.resolve_all([m for m in a.models.split(",") if m]) if a.models else None,
        "--modes": [m for m in a.modes.split(",") if m] if a.modes else None,
        "-k": a.k, "--limit": a.limit, "--seed": a.seed, "--type": a.question_type,
        "--judge": registry.resolve(a.judge) if a.judge else None,
        "--questions": Path(a.questions).name if a.questions else None,
    }
    have = {"--models": cfg.models, "--modes": cfg.modes, "-k": cfg.k, "--limit": cfg.limit, "--seed": cfg.seed,
            "--type": cfg.question_type, "--judge": cfg.judge, "--questions": cfg.source}
    diffs = [f"{flag} {asked[flag]} (the run has {have[flag]})" for flag in asked
             if asked[flag] is not None and asked[flag] != have[flag]]
    if diffs:
        raise UserError(f"Run '{a.run_id}' exists with another configuration: {'; '.join(diffs)}. Resume it with "
                        "--run-id alone, or start a new run under another --run-id.")


@command("rescore")
def _rescore(a: argparse.Namespace) -> Any:
    if load_run(a.run_id) is None:
        raise UserError(f"No benchmark run '{a.run_id}'.")
    svc = _services()
    counts = rescore(a.run_id, a.judge, services=svc)
    return summarize(a.run_id).cli_dict() | counts


@command("verdict")
def _verdict(a: argparse.Namespace) -> Any:
    text = read_text(a.file, "answers file")
    # One answer per line of the file: only \n (or \r\n) ends a line; form feeds and Unicode separators inside an
    # answer (common in PDF text) do not split it.
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [parse_verdict(line) for line in lines]


@command("support")
def _support(a: argparse.Namespace) -> Any:
    context = read_text(a.context_file, "context file")
    answer = read_text(a.answer_file, "answer file")
    passages = support.passages_from_text(context)
    if not passages:
        raise UserError(f"{a.context_file} holds no passage: put the passages one per paragraph, separated by "
                        "blank lines; they are numbered [1], [2]… in order.")
    if not answer.strip():
        raise UserError(f"{a.answer_file} is empty: give the answer to check.")
    if a.checker == "judge":
        if not a.model:
            raise UserError("--checker judge needs --model: a connected model, e.g. --model openai/gpt-4o-mini "
                            "(python -m lib models lists them).")
        return support_judge.judge_check(answer, passages, registry.get(a.model)).as_dict()
    return support.check(answer, passages).as_dict()


@command("arena-ratings")
def _arena_ratings(a: argparse.Namespace) -> Any:
    return ratings(read_votes_csv(read_text(a.votes_csv, "votes file")), seed=a.seed, n_bootstrap=a.bootstrap)


@command("agreement")
def _agreement(a: argparse.Namespace) -> Any:
    return cli_report(read_labels_csv(read_text(a.labels_csv, "labels file")))


@command("exam")
def _exam(a: argparse.Namespace) -> Any:
    courses = [c.strip() for c in a.courses.split(",") if c.strip()] if a.courses else None
    if a.limit is not None and a.limit < 1:
        raise UserError("--limit must be at least 1 (leave it out for every question).")
    if a.courses is not None and not courses:
        raise UserError("--courses lists no course; give comma-separated course ids or leave it out for all 42.")
    job = _run_job("exam", exam_params(a.model, a.shots, a.cot, courses, a.limit, a.split, a.circular, a.restart),
                   f"EnviroExam {a.model} ({a.shots}-shot)")
    res = summarize_run(job["run_id"])
    if res["failed"]:
        print(f"[exam] {res['failed']} question(s) failed; they count as wrong and are asked again on the next run",
              file=sys.stderr)
    return {k: res[k] for k in ("run_id", "model", "shots", "circular", "partial", "n_questions", "n_courses",
                                "failed", "unparsed", "courses", "M", "sigma", "cv", "I")}


@command("models")
def _models(a: argparse.Namespace) -> Any:
    return [{"id": p.id, "label": p.label, "available": ok, "reason": why} for p, ok, why in registry.status_all()]


@command("ask")
def _ask(a: argparse.Namespace) -> Any:
    scoped = a.doc or a.docs or a.all or a.where
    svc = _services() if a.mode in ("pdf", "rag") or scoped else None
    scope = _scope(a, svc) if svc is not None else None  # unknown documents: a clear error before any model loads
    res = ask(" ".join(a.question), a.model, a.mode, svc, scope, a.k, a.gold, a.closed, a.balanced)
    if res.error:  # the one cell failed: say so, and exit 1 (the JSON still says what happened)
        print(f"error: {res.error}", file=sys.stderr)
        raise ExitWith(1, res.cli_dict())
    return res.cli_dict(svc.docs.pages if svc is not None else None)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()

    def _fail(message: str) -> None:
        print(f"error: {message}", file=sys.stderr)
        raise SystemExit(2)

    parser.error = _fail  # type: ignore[method-assign]
    for action in parser._subparsers._group_actions if parser._subparsers else []:  # noqa: SLF001
        for sp in action.choices.values():
            sp.error = _fail  # type: ignore[method-assign]
    args = parser.parse_args(argv)
    code = 0
    try:
        result = COMMANDS[args.command](args)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ExitWith as ex:
        result, code = ex.result, ex.code
    except KeyboardInterrupt:
        print("error: interrupted; what was saved is kept (benchmark and exam runs resume where they stopped)",
              file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - the run itself could not finish: a short, key-free message, exit 1
        if os.environ.get("NEPAQA_DEBUG"):
            raise
        print(redact(f"error: the command could not finish ({type(exc).__name__}: {exc}). What was saved is kept; "
                     "benchmark and exam runs resume where they stopped. Set NEPAQA_DEBUG=1 for the traceback."),
              file=sys.stderr)
        return 1
    try:
        one_line = isinstance(result, list) or getattr(args, "queue", False)  # a bulk ingest's summary: one line
        json.dump(result, sys.stdout, ensure_ascii=False, indent=None if one_line else 2)
        sys.stdout.write("\n")
        sys.stdout.flush()
    except BrokenPipeError:  # `python -m lib docs | head`: the reader went away, which is not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return code

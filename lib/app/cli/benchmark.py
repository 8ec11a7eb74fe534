"""Benchmark and exam runs: run or resume, score again, and the EnviroExam exam."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lib.app.benchmark import rescore_run
from lib.app.cli.common import (
    command,
    run_job,
    services,
)
from lib.app.job_handlers import benchmark_params, exam_params
from lib.core.errors import UserError
from lib.evaluation.benchmark.dataset import load_items
from lib.evaluation.benchmark.runs import RunConfig, load_run
from lib.evaluation.exam.scores import summarize_run
from lib.models import registry


def add_parsers(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("bench", help="run (or resume) a NEPAQuAD-style benchmark")
    s.add_argument("--questions", help="CSV or JSON benchmark file (not needed to resume a --run-id)")
    s.add_argument("--models", help="comma-separated model ids")
    s.add_argument("--modes", help="comma-separated: none,pdf,rag,gold (default all four)")
    s.add_argument("-k", type=int, help="chunks per RAG answer (default 3)")
    s.add_argument("--limit", type=int)
    s.add_argument("--seed", type=int)
    s.add_argument("--whole-eis", action="store_true",
                   help="an item on one volume of an EIS is answered over every volume of that EIS (full-PDF and RAG)")
    s.add_argument("--type", dest="question_type")
    s.add_argument("--judge")
    s.add_argument("--run-id")
    s.add_argument("--workers", type=int, default=4)

    s = sub.add_parser("rescore", help="score a benchmark run's stored answers again (another judge, a fixed parser)")
    s.add_argument("--run-id", required=True)
    s.add_argument("--judge", help="judge model id for RAGAS answer correctness (default: the run's own)")

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


def _refuse_changed_flags(a: argparse.Namespace, cfg: RunConfig) -> None:
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


@command("bench")
def _bench(a: argparse.Namespace) -> object:
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
                        judge=a.judge, limit=a.limit, seed=a.seed, question_type=a.question_type, source=path.name,
                        whole_eis=a.whole_eis)

    if a.workers < 1:
        raise UserError("--workers must be at least 1.")

    # After every check of the input: bad input never loads the model or opens the index.
    params = benchmark_params(items, cfg, a.run_id, a.workers)
    res = run_job("benchmark", params, f"Benchmark {params['run_id']}")
    summary = res["summary"]
    if summary["failures"]:
        print(f"[bench] {summary['failures']} answer(s) failed; they are counted in 'failures' and retried when you "
              f"resume with --run-id {summary['run_id']}", file=sys.stderr)
    return summary


@command("rescore")
def _rescore(a: argparse.Namespace) -> object:
    if load_run(a.run_id) is None:
        raise UserError(f"No benchmark run '{a.run_id}'.")
    return rescore_run(a.run_id, a.judge, services())


@command("exam")
def _exam(a: argparse.Namespace) -> object:
    courses = [c.strip() for c in a.courses.split(",") if c.strip()] if a.courses else None
    if a.limit is not None and a.limit < 1:
        raise UserError("--limit must be at least 1 (leave it out for every question).")
    if a.courses is not None and not courses:
        raise UserError("--courses lists no course; give comma-separated course ids or leave it out for all 42.")
    job = run_job("exam", exam_params(a.model, a.shots, a.cot, courses, a.limit, a.split, a.circular, a.restart),
                   f"EnviroExam {a.model} ({a.shots}-shot)")
    run = summarize_run(str(job["run_id"]))
    if run.failed:
        print(f"[exam] {run.failed} question(s) failed; they count as wrong and are asked again on the next run",
              file=sys.stderr)
    res = run.as_dict()
    return {k: res[k] for k in ("run_id", "model", "shots", "circular", "partial", "n_questions", "n_courses",
                                "failed", "unparsed", "courses", "M", "sigma", "cv", "I")}


"""The 20-item NEPAQuAD sample set through the offline models in all four modes.

    python bench/benchmark.py [--models smollm2,extractive]

Reports wall time, items/s (answers/s) and the scores by model × mode. Baseline in the same run: the extractive
model (no LLM) — its wall time is the floor of the pipeline (retrieval, context building, scoring), and the
LLM's run is reported as a ratio to it.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="extractive,smollm2")
    ap.add_argument("--workers", type=int, default=4)
    args = ap.parse_args()
    os.environ["NEPAQA_HOME"] = tempfile.mkdtemp(prefix="nepaqa_bench_bm_")

    from lib.app.services import get_services
    from lib.core import config
    from lib.evaluation.benchmark import report
    from lib.evaluation.benchmark.dataset import load_items
    from lib.evaluation.benchmark.runner import run_benchmark
    from lib.evaluation.benchmark.runs import RunConfig, answers, load_run

    svc = get_services()
    svc.docs.ingest_file(str(config.SAMPLE_PDF))
    items, _ = load_items(config.SAMPLE20)
    walls = {}

    def ci(v: list | None) -> str:
        return "—" if v is None else f"[{v[0]:.2f}, {v[1]:.2f}]"

    for model in args.models.split(","):
        t = time.perf_counter()
        s = run_benchmark(items, RunConfig(models=[model], modes=["none", "pdf", "rag", "gold"]), svc,
                          run_id=f"bench-{model}", max_workers=args.workers)
        walls[model] = time.perf_counter() - t
        mid = next(iter(s.scores))
        n = s.answers + s.failures
        print(f"\n{mid}: {n} answers in {walls[model]:.1f} s = {n / walls[model]:.2f} answers/s "
              f"({len(items) / walls[model]:.3f} items/s over 4 modes); failures {s.failures}, unclear {s.unclear}, "
              f"judge failures {s.judge_failures}, no statements {s.no_statements}")
        print(f"  open metric: {s.metric} (judge: {s.judge})")
        print(f"  {'mode':5} {'closed acc':>10} {'95% CI':>14} {'n':>3}   {'open':>6} {'95% CI':>14} {'n':>3}")
        for mode, cell in s.scores[mid].items():
            ca = "—" if cell.closed_accuracy is None else f"{cell.closed_accuracy:.2f}"
            oc = "—" if cell.open_correctness is None else f"{cell.open_correctness:.3f}"
            print(f"  {mode:5} {ca:>10} {ci(cell.closed_accuracy_ci95):>14} {cell.n_closed:>3}   "
                  f"{oc:>6} {ci(cell.open_correctness_ci95):>14} {cell.n_open:>3}")
        mb = s.majority_baseline
        if mb:
            print(f"  majority baseline (always '{mb.answer}'): {mb.accuracy:.2f} {ci(mb.ci95)} n={mb.n}")
        print(f"  retrieval hit@3 (RAG): {s.retrieval_hit_at_k[mid]}; comparison: {asdict(s.comparison)}")
        df = report.answers_frame(s.run_id)
        stored_items, cfg = load_run(s.run_id)
        common = report.comparable_items(stored_items, cfg, answers(s.run_id))
        for test in report.paired_tests(df, common, cfg.models, cfg.modes):
            print("  " + report.describe_test(test))
        print("  " + json.dumps(s.cli_dict()["scores"]))
    if "extractive" in walls:
        for m, w in walls.items():
            if m != "extractive":
                print(f"\nwall-time ratio {m} / extractive baseline: {w / walls['extractive']:.1f}x")


if __name__ == "__main__":
    main()

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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="extractive,smollm2")
    ap.add_argument("--workers", type=int, default=4)
    args = ap.parse_args()
    os.environ["NEPAQA_HOME"] = tempfile.mkdtemp(prefix="nepaqa_bench_bm_")

    from lib import config
    from lib.benchmark.dataset import load_items
    from lib.benchmark.runner import RunConfig, run_benchmark
    from lib.services import get_services

    svc = get_services()
    svc.docs.ingest_file(str(config.SAMPLE_PDF))
    items, _ = load_items(config.SAMPLE20)
    walls = {}
    for model in args.models.split(","):
        t = time.perf_counter()
        s = run_benchmark(items, RunConfig(models=[model], modes=["none", "pdf", "rag", "gold"]), svc,
                          run_id=f"bench-{model}", max_workers=args.workers)
        walls[model] = time.perf_counter() - t
        n = s.answers + s.failures
        print(f"\n{model}: {n} answers in {walls[model]:.1f} s = {n / walls[model]:.2f} answers/s "
              f"({len(items) / walls[model]:.3f} items/s over 4 modes); failures {s.failures}, unclear {s.unclear}")
        print(f"  {'mode':5} {'open AC':>8} {'closed acc':>10} {'n':>3}")
        for mode, cell in s.scores[model].items():
            ac = "—" if cell["correctness"] is None else f"{cell['correctness']:.3f}"
            ca = "—" if cell["closed_accuracy"] is None else f"{cell['closed_accuracy']:.2f}"
            print(f"  {mode:5} {ac:>8} {ca:>10} {cell['n']:>3}")
        print(f"  retrieval hit@3 (RAG): {s.retrieval_hit_at_k[model]}; judge: {s.judge}")
        print("  " + json.dumps(s.cli_dict()["scores"]))
    if "extractive" in walls:
        for m, w in walls.items():
            if m != "extractive":
                print(f"\nwall-time ratio {m} / extractive baseline: {w / walls['extractive']:.1f}x")


if __name__ == "__main__":
    main()

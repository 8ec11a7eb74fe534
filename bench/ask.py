"""Ask latency per context mode for the offline model on the sample EIS (after a warm-up call).

    python bench/ask.py [--repeat 3]

Baseline: the *none* mode (question alone), measured in the same run; every other mode is reported as a ratio
to it. Also prints the full-PDF prompt size (tokens kept of the document, the kept fraction) and the wall time of
the Ask page's one-click demo grid (3 questions × SmolLM2 + extractive × none/rag/pdf).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

QUESTIONS = [
    ("Did the U.S. Fish and Wildlife Service participate in the EIS process for the FCTC sites?", True),
    ("Which sites did the Missile Defense Agency evaluate as potential CIS locations?", False),
    ("What process did MDA follow to select the alternatives carried forward in the EIS?", False),
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--model", default="smollm2")
    args = ap.parse_args()
    os.environ["NEPAQA_HOME"] = tempfile.mkdtemp(prefix="nepaqa_bench_ask_")

    from lib.app.services import get_services
    from lib.core import config
    from lib.evaluation.benchmark.dataset import load_sample_items
    from lib.models import registry
    from lib.qa.ask import ask, ask_grid

    svc = get_services()
    doc = svc.docs.ingest_file(str(config.SAMPLE_PDF))
    gold = load_sample_items()[2].context
    ask("warm up", args.model, "none", closed=False)  # loads the model
    rows = {}
    for mode in ("none", "rag", "gold", "pdf"):
        times, tin, extra = [], [], None
        for _ in range(args.repeat):
            for q, closed in QUESTIONS:
                r = ask(q, args.model, mode, svc, doc.doc_id, 3, gold, closed)
                assert r.error is None, r.error
                times.append(r.seconds)
                tin.append(r.tokens_in)
                if mode == "pdf":
                    extra = (r.kept_fraction, r.total_tokens)
        rows[mode] = (statistics.median(times), statistics.mean(times), statistics.median(tin), extra)
    base = rows["none"][0]
    print(f"model {args.model}; sample EIS {doc.pages} pages; {args.repeat}×{len(QUESTIONS)} questions per mode "
          "(1 closed via yes/no likelihood, 2 open)")
    print(f"{'mode':6} {'median s':>9} {'mean s':>8} {'tokens in':>10} {'× none':>7}")
    for mode, (med, mean, tok, _) in rows.items():
        print(f"{mode:6} {med:9.2f} {mean:8.2f} {tok:10.0f} {med / base:7.1f}")
    kept, total = rows["pdf"][3]
    print(f"full PDF: document is {total:,} tokens for this model; the prompt keeps {kept:.1%} of it "
          f"(window {registry.get(args.model).context_window} tokens)")
    by_id = {it.id: it for it in load_sample_items()}
    t = time.perf_counter()
    for item_id in ("EIS00001", "EIS00017", "EIS00111"):  # the Ask page's demo items and modes
        it = by_id[item_id]
        ask_grid(it.question, [args.model, "extractive"], ["none", "rag", "gold"], svc, doc.doc_id, 3,
                 it.context, it.question_type == "closed")
    print(f"one-click demo grid (3 questions × 2 models × none/rag/gold = 18 cells): {time.perf_counter() - t:.1f} s")


if __name__ == "__main__":
    main()

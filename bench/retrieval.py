"""Retrieval quality on the sample EIS against its NEPAQuAD gold passages.

A hit is a top-k chunk whose word-trigram overlap coefficient with the gold passage is at least 0.5.
Reports hit@1, hit@3 and hit@5 for dense, BM25 and hybrid, over all questions of the sample EIS.

    python bench/retrieval.py [--chunk-size 200 --chunk-overlap 40]
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
    ap.add_argument("--chunk-size", type=int)
    ap.add_argument("--chunk-overlap", type=int)
    ap.add_argument("--home", help="NEPAQA_HOME to use (default: a fresh temporary folder)")
    args = ap.parse_args()
    os.environ["NEPAQA_HOME"] = args.home or tempfile.mkdtemp(prefix="nepaqa_bench_")

    from lib import config
    from lib.benchmark.dataset import load_items
    from lib.retrieval_eval import first_hit_rank
    from lib.services import get_services

    svc = get_services()
    doc = svc.docs.ingest_file(str(config.SAMPLE_PDF), chunk_size=args.chunk_size, chunk_overlap=args.chunk_overlap)
    items, _ = load_items(config.SAMPLE_QUESTIONS)
    ks = (1, 3, 5)
    report = {}
    for method in ("dense", "bm25", "hybrid"):
        t = time.perf_counter()
        ranks = []
        for it in items:
            hits = svc.retriever.search(doc.doc_id, it.question, k=max(ks), method=method)
            ranks.append(first_hit_rank([h.chunk.text for h in hits], it.context))
        secs = time.perf_counter() - t
        report[method] = {f"hit@{k}": round(sum(1 for r in ranks if r and r <= k) / len(ranks), 3) for k in ks}
        report[method]["ms_per_query"] = round(1000 * secs / len(items), 1)
    print(f"sample EIS: {doc.pages} pages, {doc.chunks} chunks; {len(items)} questions "
          f"({len({it.context for it in items})} distinct gold passages)")
    print(f"{'method':8} {'hit@1':>6} {'hit@3':>6} {'hit@5':>6} {'ms/query':>9}")
    for m, r in report.items():
        print(f"{m:8} {r['hit@1']:6.3f} {r['hit@3']:6.3f} {r['hit@5']:6.3f} {r['ms_per_query']:9.1f}")
    d3, h3 = report["dense"]["hit@3"], report["hybrid"]["hit@3"]
    print(f"hybrid/dense hit@3 ratio: {h3 / d3:.2f}x" if d3 else "dense hit@3 is 0")
    print(json.dumps(report))


if __name__ == "__main__":
    main()

"""The options for fast first searches over int8 vectors (issue 27), measured side by side: retrieval quality on
every evaluation set, and what a search costs the first time a collection is asked.

    python bench/search_options.py [--quality-only] [--chunks 100000 --home DIR]

Dense search over the int8 index can:
  int8 alone             embed the query with the int8 model, rank by the int8 index (no exact model at all);
  exact query            embed the query with the exact (fp32) model, rank the int8 index's vectors by it;
  exact query, top 10    as exact query, then re-score the 10 best candidates with exact chunk vectors made
                         at query time (the rest keep their int8 order behind them);
  query-time re-scoring  the default before issue 27: 2 × n candidates, every one re-scored with an exact chunk
                         vector made on first need at query time (and stored);
  product                today's default (lib/retrieval/rescoring.py): 2 × n candidates, each scored with its
                         stored exact vector where the background fill has made it, its int8 score where not; a
                         search never embeds a chunk. Measured right after the ingest (nothing made yet) and after
                         the fill (every vector made).
The baseline is the exact (torch) index, which ingest cannot afford (bench/ingest.py: ONNX fp32 1.7× stock,
int8 3×). 1. hit@3 per question on every set of bench/rescoring.py (each set's n; '!' below torch); every option
starts with no exact vector stored. 2. with ``--chunks``, first-time latency of each option over bench/corpus.py's
synthetic collection (no exact vector stored, as after an ingest), hybrid / dense / lexical over all documents,
10 and 1. Prints tables and, last, one JSON line."""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

TOP_M = 10


def options() -> dict:
    """Option name → a Retriever._dense replacement (None: the product's own; "off": re-scoring off)."""
    from lib.collection.vectors import query_scope
    from lib.retrieval import rescoring

    def exact_query(self, live, sizes, query, n, whole, rescore=True):  # noqa: ANN001, ANN202
        q = rescoring.exact_model(self.docs.index).embed_query(query)
        return query_scope(self.docs.index, live, q, n, whole_collection=whole, sizes=sizes)

    def rescored(head_size):  # noqa: ANN001, ANN202 - re-scoring the head of the list, vectors made at query time
        def dense(self, live, sizes, query, n, whole, rescore=True):  # noqa: ANN001, ANN202
            exact = rescoring.exact_model(self.docs.index)
            q = exact.embed_query(query)
            depth = n if head_size else min(sum(sizes.values()), n * rescoring.DEPTH)
            cands = query_scope(self.docs.index, live, q, depth, whole_collection=whole, sizes=sizes)
            head = cands[:head_size] if head_size else cands
            vecs = rescoring.vectors(self.docs.engine, exact, [(d, i) for d, i, _ in head])
            scored = sorted(((d, i, float(vecs[(d, i)] @ q)) for d, i, _ in head if (d, i) in vecs),
                            key=lambda x: (-x[2], x[0], x[1]))
            rest = cands[head_size:] if head_size else []
            return (scored + [c for c in head if (c[0], c[1]) not in vecs] + rest)[:n]
        return dense

    return {"int8 alone": "off", "exact query": exact_query, f"exact query, top {TOP_M}": rescored(TOP_M),
            "query-time re-scoring": rescored(0), "product": None}


def with_option(name: str, fn):  # noqa: ANN001, ANN201 - a context for one option
    from contextlib import contextmanager

    from lib.retrieval import rescoring
    from lib.retrieval.retriever import Retriever

    @contextmanager
    def ctx():  # noqa: ANN202
        orig, enabled = Retriever._dense, rescoring.ENABLED
        if fn == "off":
            rescoring.ENABLED = False
        elif fn is not None:
            Retriever._dense = fn
        try:
            yield
        finally:
            Retriever._dense, rescoring.ENABLED = orig, enabled
    return ctx()


def quality() -> dict:
    import rescoring as bench_r  # bench/rescoring.py
    from sqlalchemy import delete

    from lib.retrieval import rescoring
    from lib.storage import tables

    results = {}
    t = time.perf_counter()
    svc = bench_r.fresh_store("torch")
    sets, ids = bench_r.eval_sets(svc)
    results["torch (exact index)"] = bench_r.hit3(svc, sets, ids)
    print(f"[quality] torch: {time.perf_counter() - t:.0f} s", file=sys.stderr, flush=True)
    svc = bench_r.fresh_store("onnx-int8")
    sets, ids = bench_r.eval_sets(svc)

    def nothing_made() -> None:  # every option starts as right after the ingest
        with svc.docs.engine.begin() as c:
            c.execute(delete(tables.exact_vectors))
        rescoring._recent.clear()

    for name, fn in options().items():
        t = time.perf_counter()
        nothing_made()
        label = "product, right after the ingest" if fn is None else name
        with with_option(name, fn):
            results[label] = bench_r.hit3(svc, sets, ids)
        print(f"[quality] {label}: {time.perf_counter() - t:.0f} s", file=sys.stderr, flush=True)
    t = time.perf_counter()
    made = rescoring.fill(svc.docs)
    print(f"[quality] the fill: {made['made']:,} exact vectors in {time.perf_counter() - t:.0f} s", file=sys.stderr)
    rescoring._recent.clear()
    results["product, after the fill"] = bench_r.hit3(svc, sets, ids)
    names = list(results)
    base = names[0]
    print("1. hit@3 per question on every evaluation set ('!' below the exact index)")
    below = bench_r.hit3_table(results, "the exact index")
    return {"sets": {k: {"n": n, **{name: results[name][k][0] for name in names}}
                     for k, (_, n) in results[base].items()}, "sets_below_exact": below}


def latency(chunks: int, home: str | None) -> dict:
    """First-time p50/p95 per option over a synthetic collection (bench/corpus.py's), no exact vector stored."""
    import subprocess

    out = {}
    for name in options():
        cmd = [sys.executable, str(ROOT / "bench" / "corpus.py"), "--chunks", str(chunks), "--option", name]
        if home:
            cmd += ["--home", home]
        t = time.perf_counter()
        got = subprocess.run(cmd, capture_output=True, text=True, check=True)
        line = json.loads(got.stdout.strip().splitlines()[-1])
        out[name] = line["latency_ms"]
        print(f"[latency] {name}: {time.perf_counter() - t:.0f} s; hybrid all p95 "
              f"{line['latency_ms']['hybrid']['all']['p95']} ms", file=sys.stderr, flush=True)
    print("\n2. first-time latency, p95 ms (p50), over", chunks, "chunks")
    print(f"  {'option':24} " + " ".join(f"{m + ' ' + s:>16}" for m in ("hybrid", "dense", "lexical")
                                         for s in ("all", "10", "1")))
    for name, lat in out.items():
        print(f"  {name:24} " + " ".join(f"{lat[m][s]['p95']:>8.0f} ({lat[m][s]['p50']:>4.0f})"
                                         for m in ("hybrid", "dense", "lexical") for s in ("all", "10", "1")))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quality-only", action="store_true")
    ap.add_argument("--latency-only", action="store_true")
    ap.add_argument("--chunks", type=int, default=100_000)
    ap.add_argument("--home", help="bench/corpus.py's kept collection (reused between options)")
    args = ap.parse_args()
    report = {}
    if not args.latency_only:
        report["quality"] = quality()
    if not args.quality_only:
        report["latency_ms"] = latency(args.chunks, args.home)
    print(json.dumps(report))


if __name__ == "__main__":
    main()

"""Does int8 ingest cost retrieval quality, and what does exact re-scoring (lib/retrieval/rescoring.py) cost at query time?

    python bench/rescoring.py [--pages 600] [--questions 300]

1. Every evaluation set (the sample EIS, each other NEPAQuAD EIS searched alone, and each EIS's questions across
   the collection), dense and hybrid, hit@3 per question: today's vectors (torch), int8 vectors alone, and int8
   vectors with exact re-scoring (the product's default). Each backend gets a fresh store.
2. A 600-page EIS (bench/ingest.py's long PDF: every page a different mix of real EIS sentences) and NEPAQuAD
   questions: how often the top 3 (in order) equals the exact index's, for
   - a second build of the exact index (Chroma's HNSW graph is built by several threads, so two builds of the
     same vectors differ a little: the floor any change is measured against),
   - int8 vectors alone, and int8 with re-scoring;
   and what re-scoring costs: exact vectors made per query as the store fills, and milliseconds per dense search.
   The exact index here is ONNX fp32, whose vectors equal torch's (tests/test_embedding_onnx.py) and which builds
   faster.
Prints tables and one JSON line.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def fresh_store(backend: str):  # noqa: ANN201 - the services of a new, empty store
    os.environ["NEPAQA_HOME"] = tempfile.mkdtemp(prefix="nepaqa_bench_rescore_")
    os.environ["NEPAQA_EMBED_BACKEND"] = backend
    from lib.app import services

    return services.get_services()


def eval_sets(svc) -> tuple[dict, dict]:  # noqa: ANN001
    """Ingest the sample and the other EISs; return (sets: name → [(question, gold)], doc ids by set name)."""
    from retrieval import build_other_eis_pdfs

    from lib.core import config
    from lib.evaluation.benchmark.dataset import load_items

    items, _ = load_items(config.SAMPLE_QUESTIONS)
    folder = Path(tempfile.mkdtemp(prefix="nepaqa_other_eis_"))
    others = build_other_eis_pdfs(folder)
    ids = {config.SAMPLE_PDF.stem: svc.docs.ingest_file(str(config.SAMPLE_PDF)).doc_id}
    for name in others:
        ids[name] = svc.docs.ingest_file(str(folder / f"{name}.pdf")).doc_id
    sets = {config.SAMPLE_PDF.stem: [(it.question, it.context) for it in items]}
    sets |= {name: [(q["question"], q["context"]) for q in qs] for name, qs in others.items()}
    return sets, ids


def hit3(svc, sets: dict, ids: dict) -> dict[str, tuple[float, int]]:  # noqa: ANN001
    from retrieval import evaluate

    r = svc.retriever
    out = {}
    for name, qs in sets.items():
        for method in ("dense", "hybrid"):
            alone = evaluate(lambda q, d=ids[name], m=method: [h.chunk.text for h in r.search(d, q, 5, m)], qs)
            across = evaluate(lambda q, d=ids[name], m=method: [h.chunk.text if h.doc_id == d else "" for h in
                                                                r.search_scope(None, q, 5, m)], qs)
            out[f"{name[:34]} alone, {method}"] = (alone["hit@3"]["per_question"]["mean"], len(qs))
            out[f"{name[:34]} across all, {method}"] = (across["hit@3"]["per_question"]["mean"], len(qs))
    return out


def hit3_table(results: dict, against: str) -> dict[str, int]:
    """Print hit@3 per set for each column of ``results`` (name → hit3()), '!' where a column is below the first;
    return how many sets each column has below it."""
    names = list(results)
    print(f"  {'set':56} {'n':>4} " + " ".join(f"{n[:23]:>24}" for n in names))
    below = dict.fromkeys(names, 0)
    for key, (ref, n) in results[names[0]].items():
        cells = []
        for name in names:
            v = results[name][key][0]
            mark = "!" if v < ref - 1e-9 else " "
            below[name] += mark == "!"
            cells.append(f"{v:23.3f}{mark}")
        print(f"  {key:56} {n:4} " + " ".join(cells))
    print(f"  sets below {against}: " + ", ".join(f"{n}: {below[n]} of {len(results[names[0]])}" for n in names))
    return below


def top_lists(svc, doc_id: str, questions: list[str], timings: list | None = None) -> dict:  # noqa: ANN001
    r = svc.retriever
    out = {}
    for method in ("dense", "hybrid"):
        rows = []
        for q in questions:
            t = time.perf_counter()
            rows.append([h.chunk.index for h in r.search(doc_id, q, 3, method)])
            if timings is not None and method == "dense":
                timings.append(time.perf_counter() - t)
        out[method] = rows
    return out


def same(a: dict, b: dict, method: str) -> float:
    return sum(x == y for x, y in zip(a[method], b[method], strict=True)) / len(a[method])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=600)
    ap.add_argument("--questions", type=int, default=300)
    args = ap.parse_args()
    from lib.core import config
    from lib.retrieval import rescoring

    report: dict = {"sets": {}, "long": {}}
    # 1. evaluation sets
    print("1. hit@3 per question on every evaluation set (n = questions); '!' marks a set below today's")
    results = {}
    svc = fresh_store("torch")
    sets, ids = eval_sets(svc)
    results["torch (today)"] = hit3(svc, sets, ids)
    svc = fresh_store("onnx-int8")
    sets, ids = eval_sets(svc)
    rescoring.ENABLED = False
    results["int8 alone"] = hit3(svc, sets, ids)
    rescoring.ENABLED = True
    results["int8 + exact re-scoring"] = hit3(svc, sets, ids)
    names = list(results)
    below = hit3_table(results, "today's")
    for key, (_, n) in results[names[0]].items():
        report["sets"][key] = {"n": n, **{name: results[name][key][0] for name in names}}
    report["sets_below_today"] = below

    # 2. the long EIS
    from ingest import build_pdf

    pdf = Path(tempfile.mkdtemp(prefix="nepaqa_bench_long_")) / "long_eis.pdf"
    build_pdf(pdf, args.pages)
    rows = list(csv.DictReader((config.DATA_DIR / "nepa" / "NEPAQuAD1_train.csv").open(encoding="utf-8-sig")))
    questions = list(dict.fromkeys(r["question"] for r in rows))
    random.Random(1).shuffle(questions)
    questions = questions[: args.questions]
    lists, ingest_s = {}, {}
    exact_timings: list[float] = []
    for tag in ("exact", "exact, built again"):
        svc = fresh_store("onnx")
        svc.docs.index.embedder.embed(["warm up"])
        t = time.perf_counter()
        doc = svc.docs.ingest_file(str(pdf))
        ingest_s[tag] = time.perf_counter() - t
        lists[tag] = top_lists(svc, doc.doc_id, questions, exact_timings if tag == "exact" else None)
    svc = fresh_store("onnx-int8")
    svc.docs.index.embedder.embed(["warm up"])
    rescoring.exact_model(svc.docs.index).embed(["warm up"])
    t = time.perf_counter()
    doc = svc.docs.ingest_file(str(pdf))
    ingest_s["int8"] = time.perf_counter() - t
    n_chunks = svc.docs.get(doc.doc_id).chunks
    rescoring.ENABLED = False
    lists["int8 alone"] = top_lists(svc, doc.doc_id, questions)
    rescoring.ENABLED = True
    made: list[int] = []
    real_vectors = rescoring.vectors

    def counting(engine, exact, keys):  # noqa: ANN001, ANN202 - counts the exact vectors each search makes
        before = rescoring.coverage(engine, doc.doc_id, rescoring.label(exact))
        out = real_vectors(engine, exact, keys)
        made.append(rescoring.coverage(engine, doc.doc_id, rescoring.label(exact)) - before)
        return out

    rescoring.vectors = counting
    timings: list[float] = []
    lists["int8 + exact re-scoring"] = top_lists(svc, doc.doc_id, questions, timings)
    rescoring.vectors = real_vectors
    dense_made = made[: len(questions)]  # the dense pass comes first, then hybrid (which finds them stored)
    print(f"\n2. a {args.pages}-page EIS ({n_chunks} chunks), {len(questions)} NEPAQuAD questions: share of questions "
          "whose top 3 (in order) equals the exact index's")
    print(f"  {'index':28} {'dense':>7} {'hybrid':>7}")
    for tag, got in lists.items():
        d, h = same(got, lists["exact"], "dense"), same(got, lists["exact"], "hybrid")
        report["long"][tag] = {"dense_top3_same": round(d, 4), "hybrid_top3_same": round(h, 4)}
        print(f"  {tag:28} {d:7.3f} {h:7.3f}")
    cost = {
        "chunks": n_chunks,
        "exact_vectors_made_first_10_queries_mean": sum(dense_made[:10]) / 10,
        "exact_vectors_made_queries_101_200_mean": sum(dense_made[100:200]) / max(1, len(dense_made[100:200])),
        "exact_vectors_made_total": sum(made),
        "dense_ms_first_10": 1000 * sum(timings[:10]) / 10,
        "dense_ms_last_100": 1000 * sum(timings[-100:]) / len(timings[-100:]),
        "ingest_s": {k: round(v, 1) for k, v in ingest_s.items()},
        # the whole session: ingest, then every question's dense search (where re-scoring's deferred work lands)
        "ingest_plus_dense_searches_s": {"exact": round(ingest_s["exact"] + sum(exact_timings), 1),
                                         "int8 + exact re-scoring": round(ingest_s["int8"] + sum(timings), 1)},
        "dense_searches_s": {"exact": round(sum(exact_timings), 1), "int8 + exact re-scoring": round(sum(timings), 1)},
    }
    report["long"]["cost"] = cost
    print(f"  re-scoring's cost: exact vectors made per query {cost['exact_vectors_made_first_10_queries_mean']:.0f} "
          f"(first 10), {cost['exact_vectors_made_queries_101_200_mean']:.1f} (queries 101-200); "
          f"{cost['exact_vectors_made_total']} of {n_chunks} chunks after {len(questions)} questions")
    print(f"  dense search {cost['dense_ms_first_10']:.0f} ms per query (first 10), "
          f"{cost['dense_ms_last_100']:.0f} ms (last 100)")
    print("  ingest in this process (model loaded): " + ", ".join(f"{k} {v:.1f} s" for k, v in ingest_s.items()))
    whole = cost["ingest_plus_dense_searches_s"]
    print(f"  ingest, then {len(questions)} dense searches: exact {whole['exact']:.1f} s "
          f"({cost['dense_searches_s']['exact']:.1f} s searching); int8 + re-scoring "
          f"{whole['int8 + exact re-scoring']:.1f} s ({cost['dense_searches_s']['int8 + exact re-scoring']:.1f} s "
          "searching, the deferred exact vectors included)")
    print(json.dumps(report))


if __name__ == "__main__":
    main()

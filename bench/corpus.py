"""Search latency at collection scale: a synthetic collection of real chunk texts, loaded through the product's
own index code (SQL chunks, the lexical index, Chroma vectors), searched through the same call the app makes.

    python bench/corpus.py [--chunks 100000] [--per-doc 2000] [--queries 40] [--home DIR]

``--home DIR`` keeps the collection in DIR and reuses it on the next run (loading 100,000 chunks takes minutes);
without it a fresh temporary store is built each time.

Chunk texts are the sample EIS's chunks and the NEPAQuAD gold passages, each varied (its sentences rotated and
a document/chunk tag added) so no two are equal. Vectors are random unit vectors of the embedder's dimension
(latency does not depend on what they mean); queries are real NEPAQuAD questions, embedded by the real model
inside each timed call. Each method and scope is timed on questions this process has not asked (**first
time**), then the same questions are asked again. Prints a human summary on stderr and, as the last line of
stdout, one line of JSON: {"chunks": N, "latency_ms": {"hybrid": {"all": {"p50", "p95"}, "10": {…}, "1": {…}},
"dense": {…}, "lexical": {…}}, "latency_ms_asked_again": {…}, "add_document_s": …, "load_s": …,
"mode": "embedded" | "server"}. Set NEPAQA_CHROMA_URL and NEPAQA_DATABASE_URL first for server mode.
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

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def source_texts() -> list[str]:
    from lib.core import config
    from lib.documents.chunking import chunk_pages
    from lib.documents.pdf import read_pdf_file
    from lib.models.embedding import get_embedder

    emb = get_embedder()
    ex = read_pdf_file(config.SAMPLE_PDF, 10**9)
    texts = [c.text for c in chunk_pages(ex.pages, emb.count_tokens, 200, 40, emb.max_tokens)]
    for name in ("NEPAQuAD1_train.csv", "NEPAQuAD1_test.csv"):
        with (config.DATA_DIR / "nepa" / name).open(encoding="utf-8-sig") as fh:
            texts += list(dict.fromkeys(r["context"] for r in csv.DictReader(fh)))
    return [t for t in texts if len(t.split()) > 20]


def vary(text: str, doc: int, i: int, rng: random.Random) -> str:
    sentences = [s for s in text.replace("\n", " ").split(". ") if s]
    cut = rng.randrange(len(sentences)) if sentences else 0
    return f"[EIS-{doc:03d} part {i}] " + ". ".join(sentences[cut:] + sentences[:cut])


def percentiles(ms: list[float]) -> dict[str, float]:
    return {"p50": round(float(np.percentile(ms, 50)), 1), "p95": round(float(np.percentile(ms, 95)), 1)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chunks", type=int, default=100_000)
    ap.add_argument("--per-doc", type=int, default=2000)
    ap.add_argument("--queries", type=int, default=40)
    ap.add_argument("--home", help="keep the collection here and reuse it on the next run")
    args = ap.parse_args()
    if args.home:
        os.environ["NEPAQA_HOME"] = args.home
    os.environ.setdefault("NEPAQA_HOME", tempfile.mkdtemp(prefix="nepaqa_corpus_"))

    from lib.app.services import get_services
    from lib.collection import lexical
    from lib.core import config
    from lib.documents.chunking import Chunk
    from lib.storage import tables

    svc = get_services()
    docs, index = svc.docs, svc.docs.index
    dim = index.embedder.dimension
    rng = random.Random(0)
    nrng = np.random.default_rng(0)
    texts = source_texts()
    n_docs = max(1, args.chunks // args.per_doc)
    started = time.perf_counter()
    doc_ids = []
    present = {d.doc_id: d.chunks for d in docs.list()}
    for d in range(n_docs):
        doc_id = f"synth{d:07d}"
        if present.get(doc_id) == args.per_doc:  # kept from an earlier run with --home
            doc_ids.append(doc_id)
            continue
        if doc_id in present:
            docs.delete(doc_id)
        gen = time.time_ns()
        chunks = [Chunk(i, vary(texts[(d * args.per_doc + i) % len(texts)], d, i, rng), 1 + i // 4, 1 + i // 4,
                        0, 0, 200, f"Chapter {1 + i // 200} › Section {1 + i // 20}") for i in range(args.per_doc)]
        vecs = nrng.standard_normal((len(chunks), dim)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        metas = [{"gen": gen, "idx": c.index, "page_start": c.page_start, "page_end": c.page_end} for c in chunks]
        index.add(doc_id, [f"{doc_id}-{gen}-{c.index}" for c in chunks], [c.text for c in chunks], vecs, metas)
        with docs.engine.begin() as c:
            c.execute(tables.documents.insert().values(
                doc_id=doc_id, name=f"Synthetic EIS {d:03d}", sha256=f"{d:064d}", status=f"ready:{gen}", n_bytes=0,
                n_pages=chunks[-1].page_end, n_chars=sum(len(x.text) for x in chunks), n_tokens=0,
                n_chunks=len(chunks), empty_pages="[]", chunk_size=200, chunk_overlap=40, embed_model="random",
                seconds=0.0))
            c.execute(tables.chunks.insert(), [{"doc_id": doc_id, "idx": x.index, "text": x.text,
                                               "page_start": x.page_start, "page_end": x.page_end, "char_start": 0,
                                               "char_end": 0, "n_tokens": 200, "section": x.section} for x in chunks])
            lexical.write(c, doc_id, chunks, None)  # the bare text, as the product writes it
        doc_ids.append(doc_id)
        print(f"[load] {len(doc_ids) * args.per_doc:,} chunks, {time.perf_counter() - started:.0f} s",
              file=sys.stderr, flush=True)
    load_s = time.perf_counter() - started

    from lib.evaluation.benchmark.dataset import load_items

    items, _ = load_items(config.SAMPLE_QUESTIONS)
    asked = list(dict.fromkeys(it.question for it in items))
    queries = asked[: args.queries]
    scopes = {"all": None, "10": doc_ids[:10], "1": doc_ids[:1]}
    svc.retriever.search_scope(None, "warm up", 5, "hybrid")

    def timed(scope: list[str] | None, method: str, qs: list[str]) -> list[float]:
        ms = []
        for q in qs:
            t = time.perf_counter()
            svc.retriever.search_scope(scope, q, 5, method)
            ms.append(1000 * (time.perf_counter() - t))
        return ms

    report: dict = {}
    for key in ("latency_ms", "latency_ms_asked_again"):
        report[key] = {}
        for method in ("hybrid", "dense", "lexical"):
            report[key][method] = {}
            for name, scope in scopes.items():
                report[key][method][name] = percentiles(timed(scope, method, queries))
                print(f"[search] {key[11:] or 'first time':10} {method:7} scope {name:>3}: "
                      f"p50 {report[key][method][name]['p50']} ms, p95 {report[key][method][name]['p95']} ms",
                      file=sys.stderr, flush=True)
    for d in docs.list():  # the document timed below is added afresh each run
        if not d.doc_id.startswith("synth"):
            docs.delete(d.doc_id)
    t = time.perf_counter()
    svc.docs.ingest_file(str(config.SAMPLE_PDF))
    add_s = time.perf_counter() - t
    print(f"[add] one more document (the 74-page sample, embedded for real): {add_s:.1f} s", file=sys.stderr)
    # the first search after that ingest against the hundredth (hybrid, all documents, 100 questions not asked yet)
    train = csv.DictReader((config.DATA_DIR / "nepa" / "NEPAQuAD1_train.csv").open(encoding="utf-8-sig"))
    fresh = [q for q in dict.fromkeys(r["question"] for r in train) if q not in set(asked)][:100]
    after_add = timed(None, "hybrid", fresh)
    report["after_add_ms"] = {"first": round(after_add[0], 1), "hundredth": round(after_add[-1], 1),
                              **percentiles(after_add), "n": len(after_add)}
    print(f"[add] then hybrid over all documents: first search {after_add[0]:.0f} ms, hundredth "
          f"{after_add[-1]:.0f} ms (p50 {report['after_add_ms']['p50']}, p95 {report['after_add_ms']['p95']} "
          f"of {len(after_add)})", file=sys.stderr)
    mode = "server" if config.get("NEPAQA_CHROMA_URL") else "embedded"
    print(json.dumps({"chunks": n_docs * args.per_doc, **report, "add_document_s": round(add_s, 2),
                      "load_s": round(load_s, 1), "mode": mode}))


if __name__ == "__main__":
    main()

"""Retrieval quality on the sample EIS and across a small collection, against NEPAQuAD gold passages.

A hit is a top-k chunk whose word-trigram overlap coefficient with the gold passage is at least 0.5. The
sample's 155 questions share only 8 distinct gold passages, so every figure is given per question and per
distinct passage (a passage counts as found at k when most of its questions find it), each with n and a 95%
interval. Nothing here is tuned: the same code and constants serve any EIS.

Runs, each in a fresh store:
  1. the sample EIS with contextual chunk text for the embedder (title and section path in front of each
     chunk) and without it (plain: the product's default, since contextual lost on hybrid), for
     dense, lexical (the persistent full-text index), hybrid, and the old in-memory rank_bm25 as the baseline
     the lexical index replaces;
  2. every other NEPAQuAD EIS rebuilt as a PDF from its distinct gold passages (the train split names them),
     searched alone: more evaluation sets;
  3. the collection (the sample plus those EISs): the sample's questions, and each other EIS's questions,
     searched across all documents, a hit counting only in the right document; and the same with a
     document-level first stage (documents ranked by the cosine of the query to each document's mean chunk
     vector, then hybrid search inside the top M documents), to see whether that stage pays.

    python bench/retrieval.py [--chunk-size 200 --chunk-overlap 40] [--sets-json]
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
KS = (1, 3, 5)


def build_other_eis_pdfs(folder: Path) -> dict[str, list[dict]]:
    """One PDF per other train EIS, made of its distinct gold passages (a page each); its questions with them."""
    import pymupdf

    from lib.core import config

    rows = list(csv.DictReader((config.DATA_DIR / "nepa" / "NEPAQuAD1_train.csv").open(encoding="utf-8-sig")))
    sample = config.SAMPLE_PDF.stem
    by_doc: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        if r["EIS_filename"] != sample:
            by_doc[r["EIS_filename"]].append(r)
    for name, qs in by_doc.items():
        doc = pymupdf.open()
        for passage in dict.fromkeys(q["context"] for q in qs):
            page = doc.new_page()
            page.insert_textbox(pymupdf.Rect(40, 40, 570, 800), passage, fontsize=7)
        doc.save(folder / f"{name}.pdf")
        doc.close()
    return by_doc


def evaluate(search, questions: list[tuple[str, str]]) -> dict:
    """hit@k per question and per distinct passage, with n and 95% intervals."""
    from lib.core.stats.inference import mean_ci
    from lib.evaluation.metrics.passage_overlap import first_hit_rank

    per_q: dict[int, list[float]] = {k: [] for k in KS}
    per_passage: dict[str, dict[int, list[float]]] = defaultdict(lambda: {k: [] for k in KS})
    for question, gold in questions:
        hits = search(question)
        rank = first_hit_rank(hits, gold)
        for k in KS:
            v = float(bool(rank and rank <= k))
            per_q[k].append(v)
            per_passage[gold][k].append(v)
    out = {}
    for k in KS:
        q = mean_ci(per_q[k]).as_dict()  # the report's JSON
        p = mean_ci([float(sum(v[k]) / len(v[k]) >= 0.5) for v in per_passage.values()]).as_dict()
        out[f"hit@{k}"] = {"per_question": q, "per_passage": p}
    return out


def fresh_store():  # noqa: ANN201 - the services of a new, empty store
    """A new store under a temporary home, with the embedder the environment sets."""
    os.environ["NEPAQA_HOME"] = tempfile.mkdtemp(prefix="nepaqa_bench_sets_")
    from lib.app import services

    return services.get_services()


def eval_sets(svc) -> tuple[dict, dict]:  # noqa: ANN001
    """Ingest the sample and the other EISs into ``svc``'s store; return (sets: name → [(question, gold)], doc ids by
    set name)."""
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
    """hit@3 per question on every set: each EIS searched alone and across the collection, dense and hybrid."""
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


class DocFirst:
    """A document-level first stage, measured here before it may enter the product: rank documents by the cosine
    of the query to each document's centroid (the mean of its chunk vectors), then hybrid search in the top m."""

    def __init__(self, svc) -> None:
        import numpy as np

        self.svc = svc
        self.centroids = {}
        for d in svc.docs.list():
            got = svc.docs.index.collection.get(where={"doc_id": d.doc_id}, include=["embeddings"])
            c = np.asarray(got["embeddings"], dtype=np.float32).mean(axis=0)
            self.centroids[d.doc_id] = c / np.linalg.norm(c)

    def documents(self, query: str, m: int) -> list[str]:
        q = self.svc.docs.index.embedder.embed_query(query)
        return sorted(self.centroids, key=lambda d: -float(self.centroids[d] @ q))[:m]

    def search(self, query: str, k: int, m: int):
        return self.svc.retriever.search_scope(self.documents(query, m), query, k, "hybrid")


def line(name: str, r: dict) -> str:
    cells = []
    for k in KS:
        q, p = r[f"hit@{k}"]["per_question"], r[f"hit@{k}"]["per_passage"]
        cells.append(f"{q['mean']:.3f} [{q['ci95'][0]:.2f},{q['ci95'][1]:.2f}] | {p['mean']:.2f} (n={p['n']})")
    return f"  {name:26} " + "   ".join(cells)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chunk-size", type=int)
    ap.add_argument("--chunk-overlap", type=int)
    ap.add_argument("--sets-json", action="store_true",
                    help="only hit@3 on every evaluation set (dense and hybrid, alone and across the collection), as "
                         "one JSON line, with the embedder the environment sets (bench/ingest.py's option table)")
    args = ap.parse_args()
    if args.sets_json:
        for key, value in (("NEPAQA_CHUNK_SIZE", args.chunk_size), ("NEPAQA_CHUNK_OVERLAP", args.chunk_overlap)):
            if value is not None:
                os.environ[key] = str(value)
        svc = fresh_store()
        sets, ids = eval_sets(svc)
        print(json.dumps(hit3(svc, sets, ids)))
        return
    os.environ["NEPAQA_HOME"] = tempfile.mkdtemp(prefix="nepaqa_bench_ret_")

    from lib.app import services
    from lib.collection import ingest
    from lib.core import config
    from lib.evaluation.benchmark.dataset import load_items
    from lib.retrieval.retriever import _Bm25

    items, _ = load_items(config.SAMPLE_QUESTIONS)
    sample_q = [(it.question, it.context) for it in items]
    report: dict = {}
    header = "  " + " " * 26 + "   ".join(f"hit@{k}: per question [95%] | per passage" for k in KS)
    for contextual in (True, False):  # plain (the product's default) last: the runs below use its store
        ingest.CONTEXTUAL = contextual
        os.environ["NEPAQA_HOME"] = tempfile.mkdtemp(prefix="nepaqa_bench_ret_")
        svc = services.get_services()
        doc = svc.docs.ingest_file(str(config.SAMPLE_PDF), chunk_size=args.chunk_size, chunk_overlap=args.chunk_overlap)
        tag = "contextual" if contextual else "plain"
        print(f"\n[{tag}] sample EIS: {doc.pages} pages, {doc.chunks} chunks; {len(sample_q)} questions, "
              f"{len({g for _, g in sample_q})} distinct gold passages")
        print(header)
        for method in ("dense", "lexical", "hybrid"):
            r = evaluate(lambda q, m=method, s=svc, d=doc: [h.chunk.text for h in s.retriever.search(d.doc_id, q,
                                                                                                    max(KS), m)],
                         sample_q)
            report[f"{tag}/{method}"] = r
            print(line(method, r))
        if not contextual:
            bm = _Bm25(svc.docs.chunks(doc.doc_id))
            r = evaluate(lambda q, b=bm: [b.chunks[i].text for i, _ in b.top(q, max(KS))], sample_q)
            report["baseline/rank_bm25"] = r
            print(line("rank_bm25 (old, in memory)", r))

    # table-of-contents chunks (chunking.is_navigation, marked at ingest): ranked last (the default) or not
    from lib.documents.chunking import is_navigation

    print("\ntable-of-contents chunks in the sample: "
          f"{sum(is_navigation(c.text) for c in svc.docs.chunks(doc.doc_id))} of {doc.chunks}; ranked as any other "
          "chunk (before) or after all others (after, the default):")
    print(header + "   queries with one in the top 3")
    for method in ("dense", "lexical", "hybrid"):
        for last in (False, True):
            svc.retriever.navigation_last = last
            tops: list[bool] = []

            def run(q, m=method, s=svc, d=doc, tops=tops):
                hits = s.retriever.search(d.doc_id, q, max(KS), m)
                tops.append(any(is_navigation(h.chunk.text) for h in hits[:3]))
                return [h.chunk.text for h in hits]

            r = evaluate(run, sample_q)
            report[f"navigation/{method}/{'last' if last else 'as_any'}"] = r
            print(line(f"{method}, {'after' if last else 'before'}", r) + f"   {sum(tops)} of {len(tops)}")
    svc.retriever.navigation_last = True

    # the other EISs, alone and as a collection with the sample (plain chunk text, the product's default)
    folder = Path(tempfile.mkdtemp(prefix="nepaqa_other_eis_"))
    others = build_other_eis_pdfs(folder)
    ids = {}
    for name in others:
        ids[name] = svc.docs.ingest_file(str(folder / f"{name}.pdf")).doc_id
    print(f"\nother EISs rebuilt from their gold passages, each searched alone ({len(others)} documents):")
    print(header)
    for name, qs in others.items():
        r = evaluate(lambda q, d=ids[name]: [h.chunk.text for h in svc.retriever.search(d, q, max(KS), "hybrid")],
                     [(q["question"], q["context"]) for q in qs])
        report[f"other/{name}/hybrid"] = r
        print(line(name[:26], r))
    print(f"\ncollection: sample + {len(others)} EISs; the sample's questions searched across all, a hit only in the "
          "right document:")
    print(header)
    for method in ("dense", "lexical", "hybrid"):
        r = evaluate(lambda q, m=method: [h.chunk.text if h.doc_id == doc.doc_id else "" for h in
                                          svc.retriever.search_scope(None, q, max(KS), m)], sample_q)
        report[f"collection/{method}"] = r
        print(line(method, r))
    first = DocFirst(svc)
    for m in (1, 2, 3):
        r = evaluate(lambda q, m=m: [h.chunk.text if h.doc_id == doc.doc_id else "" for h in
                                     first.search(q, max(KS), m)], sample_q)
        report[f"collection/doc_first_top{m}"] = r
        print(line(f"doc-first, top {m} docs", r))
    # every other EIS's questions across the whole collection: more evaluation sets, right document only
    from lib.core.stats.inference import mean_ci

    sets = {name: [(q["question"], q["context"]) for q in qs] for name, qs in others.items()}
    sets[config.SAMPLE_PDF.stem] = sample_q
    ids[config.SAMPLE_PDF.stem] = doc.doc_id
    print("\nevery EIS's questions across the collection, hybrid vs a document-level first stage (hit@3 per "
          "question; stage-1 recall = right document among the top m):")
    for name, qs in sets.items():
        right = ids[name]
        row = {}
        for label, fn in (("hybrid", lambda q: svc.retriever.search_scope(None, q, max(KS), "hybrid")),
                          ("doc_first_top1", lambda q: first.search(q, max(KS), 1)),
                          ("doc_first_top2", lambda q: first.search(q, max(KS), 2))):
            r = evaluate(lambda q, f=fn, d=right: [h.chunk.text if h.doc_id == d else "" for h in f(q)], qs)
            row[label] = r["hit@3"]["per_question"]
        for m in (1, 2):
            row[f"stage1_recall_top{m}"] = mean_ci([float(right in first.documents(q, m)) for q, _ in qs]).as_dict()
        report[f"collection_sets/{name}"] = {"n_questions": len(qs), **row}
        print(f"  {name[:40]:40} n={len(qs):3}  " + "  ".join(
            f"{k} {v['mean']:.3f} [{v['ci95'][0]:.2f},{v['ci95'][1]:.2f}]" for k, v in row.items()))
    print(json.dumps({k: ({kk: vv.get("mean", vv) if isinstance(vv, dict) else vv
                           for kk, vv in v.items()} if k.startswith("collection_sets/") else
                          {kk: {"per_question": vv["per_question"]["mean"], "per_passage": vv["per_passage"]["mean"]}
                           for kk, vv in v.items()}) for k, v in report.items()}))


if __name__ == "__main__":
    main()

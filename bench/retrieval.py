"""Retrieval quality on the sample EIS and across a small collection, against NEPAQuAD gold passages.

A hit is a top-k chunk whose word-trigram overlap coefficient with the gold passage is at least 0.5. The
sample's 155 questions share only 8 distinct gold passages, so every figure is given per question and per
distinct passage (a passage counts as found at k when most of its questions find it), each with n and a 95%
interval. Nothing here is tuned: the same code and constants serve any EIS.

Runs, each in a fresh store:
  1. the sample EIS with contextual chunk text for the embedder (title and section path in front of each
     chunk, the default; the lexical index keeps the bare text, which measured better) and without it, for
     dense, lexical (the persistent full-text index), hybrid, and the old in-memory rank_bm25 as the baseline
     the lexical index replaces;
  2. every other NEPAQuAD EIS rebuilt as a PDF from its distinct gold passages (the train split names them),
     searched alone: more evaluation sets;
  3. the collection (the sample plus those EISs): the sample's questions searched across all documents, a hit
     counting only in the right document.

    python bench/retrieval.py [--chunk-size 200 --chunk-overlap 40]
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

    from lib import config

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
    from lib.retrieval_eval import first_hit_rank
    from lib.stats import mean_ci

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
        q = mean_ci(per_q[k])
        p = mean_ci([float(sum(v[k]) / len(v[k]) >= 0.5) for v in per_passage.values()])
        out[f"hit@{k}"] = {"per_question": q, "per_passage": p}
    return out


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
    args = ap.parse_args()
    os.environ["NEPAQA_HOME"] = tempfile.mkdtemp(prefix="nepaqa_bench_ret_")

    from lib import config, documents, services
    from lib.benchmark.dataset import load_items
    from lib.retrieval import _Bm25

    items, _ = load_items(config.SAMPLE_QUESTIONS)
    sample_q = [(it.question, it.context) for it in items]
    report: dict = {}
    header = "  " + " " * 26 + "   ".join(f"hit@{k}: per question [95%] | per passage" for k in KS)
    for contextual in (False, True):
        documents.CONTEXTUAL = contextual
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

    # the other EISs, alone and as a collection with the sample (contextual, the default)
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
    print(json.dumps({k: {kk: {"per_question": vv["per_question"]["mean"], "per_passage": vv["per_passage"]["mean"]}
                          for kk, vv in v.items()} for k, v in report.items()}))


if __name__ == "__main__":
    main()

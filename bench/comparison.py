"""Comparison questions over two EISs: does retrieval bring each document's topic passage?

The collection is the sample EIS (CONUS Interceptor Site, 74 pages) and a second EIS built from the Goldrush Mine
Final EIS's public-domain text (data/eis/, see data/SOURCES.md). The questions (data/comparison/questions.jsonl)
compare the two, or name one of them; each carries, per document it concerns, the pages that treat its topic
(labelled by reading the pages, before any of this code ran on them). A document is *hit at k* when one of the
top k passages is from that document and on one of its topic pages.

Each question is searched, over the whole collection, in these ways:
  - ``all``: the k best passages of the collection (what a comparison question got before);
  - ``balanced``: the retriever's balanced search (each document's best passages in turn);
  - ``question`` (where the retriever has it): the search Ask makes, which recognises a comparison question and
    draws each concerned document's passages from that document's own ranking.

Prints per-document hit@k with n and 95% Wilson intervals, and the share of questions where every concerned
document was hit; the last line of stdout is JSON.

    python bench/comparison.py [--k 3 5]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
ROOT = Path(__file__).resolve().parent.parent
DOCS = {"conus": ROOT / "data" / "eis" / "eis_Continental_United_States_Interceptor_Site.pdf",
        "goldrush": ROOT / "data" / "eis" / "eis_Goldrush_Mine_Project_excerpts.pdf"}


def load_questions() -> list[dict]:
    path = ROOT / "data" / "comparison" / "questions.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def hit(hits: list, doc_id: str, pages: list[int]) -> bool:
    want = set(pages)
    return any(h.doc_id == doc_id and want & set(range(h.chunk.page_start, h.chunk.page_end + 1)) for h in hits)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--k", type=int, nargs="+", default=[3, 5])
    args = ap.parse_args()
    os.environ["NEPAQA_HOME"] = tempfile.mkdtemp(prefix="nepaqa_compare_")
    from lib.app.services import get_services
    from lib.core.stats.inference import wilson_interval

    services = get_services()
    ids = {key: services.docs.ingest_file(str(path)).doc_id for key, path in DOCS.items()}
    retriever = services.retriever
    ways = {"all": lambda q, k: retriever.search_scope(None, q, k, "hybrid"),
            "balanced": lambda q, k: retriever.search_scope(None, q, k, "hybrid", balanced=True)}
    if hasattr(retriever, "search_question"):
        ways["question"] = lambda q, k: retriever.search_question(None, q, k, "hybrid").hits
    questions = load_questions()
    out: dict = {"questions": len(questions), "commit": _commit(), "ways": {}}
    for way, search in ways.items():
        for k in args.k:
            per_doc: dict[str, list[bool]] = {key: [] for key in DOCS}
            missed: dict[str, list[str]] = {key: [] for key in DOCS}
            every = []
            for q in questions:
                hits = search(q["question"], k)
                got = {key: hit(hits, ids[key], pages) for key, pages in q["gold"].items() if pages}
                for key, v in got.items():
                    per_doc[key].append(v)
                    if not v:
                        missed[key].append(q["id"])
                every.append(all(got.values()))
            row = {key: _share(v, wilson_interval) for key, v in per_doc.items()}
            for key in DOCS:
                row[key]["missed"] = missed[key]
            row["every document"] = _share(every, wilson_interval)
            out["ways"].setdefault(way, {})[f"hit@{k}"] = row
            print(f"{way:9s} hit@{k}: " + "  ".join(f"{key} {r['share']:.2f} [{r['ci95'][0]:.2f}, {r['ci95'][1]:.2f}]"
                                                   f" n={r['n']}" for key, r in row.items()), file=sys.stderr)
    print(json.dumps(out))


def _share(values: list[bool], wilson) -> dict:
    n = len(values)
    s = sum(values)
    lo, hi = wilson(s, n) if n else (0.0, 0.0)
    return {"share": round(s / n, 3) if n else None, "hits": s, "n": n, "ci95": [round(lo, 3), round(hi, 3)]}


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


if __name__ == "__main__":
    main()

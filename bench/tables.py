"""Questions about table cells: does search bring back the row that answers them, with tables indexed as their
own passages (Markdown rows under the caption and header) and without (their text as prose only)?

    python bench/tables.py

The questions are `data/tables/questions.jsonl`: 27 questions about cells of the sample EIS's five tables
(ES-1 to ES-4 on pages 12–15, the 19-page ES-5 on pages 55–73), each with its page, its row's first cell (where
the answer alone is too common: "600") and the cell's words. A hit at k is a top-k passage on that page that
holds the row's first cell and the answer (case, spaces and the Markdown bars aside), so the prose run of a
table counts as much as a table passage. Each setting is indexed in its own fresh store and process; the
baseline (tables off) runs in the same invocation. hit@1/3/5 per method with n and 95% Wilson intervals; the
ingest's seconds for each. The last line of stdout is JSON.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
QUESTIONS = ROOT / "data" / "tables" / "questions.jsonl"
KS = (1, 3, 5)
METHODS = ("dense", "lexical", "hybrid")


def norm(text: str) -> str:
    return re.sub(r"[\s|]+", "", text).lower()


def hit(chunks: list, q: dict) -> bool:
    return any(c.page_start <= q["page"] <= c.page_end and norm(q["answer"]) in norm(c.text)
               and norm(q["row"]) in norm(c.text) for c in chunks)


def one_setting() -> dict:
    """In this process: index the sample with NEPAQA_TABLES as set, and search every question."""
    from lib.app.services import get_services
    from lib.core import config

    svc = get_services()
    svc.docs.index.embedder.count_tokens("warm up")  # the tokenizer's load is not the ingest's
    started = time.perf_counter()
    doc = svc.docs.ingest_file(str(config.SAMPLE_PDF))
    seconds = time.perf_counter() - started
    qs = [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    hits = {m: {k: [] for k in KS} for m in METHODS}
    for q in qs:
        for m in METHODS:
            found = [h.chunk for h in svc.retriever.search(doc.doc_id, q["question"], max(KS), m)]
            for k in KS:
                hits[m][k].append(hit(found, q))
    return {"seconds": round(seconds, 2), "chunks": doc.chunks, "stages": doc.stage_seconds, "hits": hits,
            "ids": [q["id"] for q in qs]}


def main() -> None:
    if sys.argv[1:] == ["--one-setting"]:  # the child process: one fresh store, NEPAQA_TABLES as its parent set it
        print(json.dumps(one_setting()))
        return
    from lib.core.stats.inference import wilson_interval

    runs = {}
    for setting in ("0", "1"):  # off (the baseline) first, then on
        env = {**os.environ, "NEPAQA_TABLES": setting, "NEPAQA_HOME": tempfile.mkdtemp(prefix="nepaqa_bench_tables_")}
        out = subprocess.run([sys.executable, __file__, "--one-setting"], env=env, capture_output=True, text=True,
                             check=True)
        runs[setting] = json.loads(out.stdout.strip().splitlines()[-1])
    print("| method | k | tables as prose only (baseline) | tables as their own passages |\n|---|---|---|---|")
    report: dict = {"n": len(runs["0"]["ids"]), "seconds": {s: r["seconds"] for s, r in runs.items()},
                    "chunks": {s: r["chunks"] for s, r in runs.items()}, "hit": {}}
    for m in METHODS:
        for k in KS:
            cells = []
            for s in ("0", "1"):
                got = runs[s]["hits"][m][str(k)] if str(k) in runs[s]["hits"][m] else runs[s]["hits"][m][k]
                lo, hi = wilson_interval(sum(got), len(got))
                cells.append(f"{sum(got) / len(got):.2f} [{lo:.2f}, {hi:.2f}] ({sum(got)}/{len(got)})")
                report["hit"][f"{m}@{k}:{s}"] = sum(got)
            print(f"| {m} | {k} | {cells[0]} | {cells[1]} |")
    missed = {s: [i for i, h in zip(runs[s]["ids"], runs[s]["hits"]["hybrid"]["3"], strict=True) if not h]
              for s in ("0", "1")}
    report["hybrid_misses_at_3"] = missed
    print(f"\nhybrid misses at 3: prose only {missed['0']}; with tables {missed['1']}")
    print(f"ingest: prose only {runs['0']['seconds']} s ({runs['0']['chunks']} chunks), with tables "
          f"{runs['1']['seconds']} s ({runs['1']['chunks']} chunks); stages {runs['0']['stages']} / {runs['1']['stages']}")
    print(json.dumps(report))


if __name__ == "__main__":
    main()

"""Questions about table cells: does search bring back the row that answers them, with tables indexed as their
own passages (Markdown rows under the caption and header) and without (their text as prose only)?

    python bench/tables.py

The questions are `data/tables/questions.jsonl`: 32 questions about cells of the sample EIS's five tables
(24 on ES-1 to ES-4, pages 12–15; 8 on the 19-page ES-5, pages 55–73, a table of paragraphs, which stays prose in
both settings), each with its page, its row's first cell (where the answer alone is too common: "600") and the
cell's words. Two documents:
- the sample EIS, whose text layer reads its tables row by row;
- a copy of its Tables ES-1 and ES-2 (the same cells), laid out again as ruled tables whose PDF writes each column
  before the next, as many producers do: its text layer reads down the columns (the 14 questions on them).
Two measures, each at k = 1, 3, 5:
- hit: a top-k passage on the question's page holds the row's first cell and the answer (case, spaces and the
  Markdown bars aside), so a table's prose run counts as much as a table passage;
- intact (questions with a row's first cell): such a passage reads the row whole, the first cell then the answer
  with no other asked row's first cell between them.
Each setting is indexed in its own fresh store and process; the baseline (tables off) runs in the same
invocation. n and 95% Wilson intervals; the ingest's seconds for each. The last line of stdout is JSON.
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
    """A passage on the question's page holds its row's first cell and the answer."""
    return any(c.page_start <= q["page"] <= c.page_end and norm(q["answer"]) in norm(c.text)
               and norm(q["row"]) in norm(c.text) for c in chunks)


def intact(chunks: list, q: dict, keys: list[str]) -> bool:
    """A passage on the question's page reads the row whole: its first cell, then the answer, with no other
    row's first cell (``keys``: those the questions on that page name) between them."""
    key, answer = norm(q["row"]), norm(q["answer"])
    others = [norm(k) for k in keys if k and norm(k) not in key and key not in norm(k) and norm(k) not in answer]
    for c in chunks:
        if not c.page_start <= q["page"] <= c.page_end:
            continue
        text = norm(c.text)
        start = text.find(key)
        while start >= 0:
            end = text.find(answer, start + len(key))
            if end >= 0 and not any(o in text[start + len(key):end] for o in others):
                return True
            start = text.find(key, start + 1)
    return False


def column_written(path: Path) -> dict[int, int]:
    """Tables ES-1 and ES-2 of the sample, their cells as the sample prints them, laid out again as ruled tables
    whose PDF writes each column top to bottom before the next (as many producers do): the text layer then reads
    down the columns, so a row's cells are far apart in it. Page 12 → 1, 13 → 2."""
    import pymupdf

    from lib.core import config
    from lib.documents.tables import find_tables

    src = pymupdf.open(config.SAMPLE_PDF)
    es1, es2 = find_tables(src, [p.get_text() for p in src])[:2]
    out = pymupdf.open()
    cols = [60, 250, 560]
    for table in (es1, es2):
        page = out.new_page()
        page.insert_text((60, 60), table.caption, fontsize=10)
        rows = [table.header, *table.rows]
        height = 34
        for i in range(len(rows) + 1):
            page.draw_line((cols[0], 70 + i * height), (cols[-1], 70 + i * height), width=0.5)
        for x in cols:
            page.draw_line((x, 70), (x, 70 + len(rows) * height), width=0.5)
        for c in range(2):
            for r, row in enumerate(rows):
                cell = pymupdf.Rect(cols[c] + 3, 70 + r * height + 3, cols[c + 1] - 3, 70 + (r + 1) * height - 1)
                page.insert_textbox(cell, row[c] if c < len(row) else "", fontsize=7.5)
    out.save(path)
    return {12: 1, 13: 2}


def one_setting() -> dict:
    """In this process: index the sample, and the column-written copy of its first two tables, with NEPAQA_TABLES as
    set, and search every question (the copy: the questions on those two tables)."""
    from lib.app.services import get_services
    from lib.core import config

    svc = get_services()
    svc.docs.index.embedder.count_tokens("warm up")  # the tokenizer's load is not the ingest's
    started = time.perf_counter()
    doc = svc.docs.ingest_file(str(config.SAMPLE_PDF))
    seconds = time.perf_counter() - started
    qs = [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    copy = Path(tempfile.mkdtemp()) / "es1_es2_column_written.pdf"
    moved = column_written(copy)
    copy_doc = svc.docs.ingest_file(str(copy))
    sets = {"sample": (doc.doc_id, qs),
            "column-written copy": (copy_doc.doc_id, [q | {"page": moved[q["page"]]} for q in qs if q["page"] in moved])}
    out: dict = {"seconds": round(seconds, 2), "chunks": doc.chunks, "stages": doc.stage_seconds, "sets": {}}
    for name, (doc_id, questions) in sets.items():
        keys = {q["page"]: [x["row"] for x in questions if x["page"] == q["page"]] for q in questions}
        got: dict = {m: {"hit": {k: [] for k in KS}, "intact": {k: [] for k in KS}} for m in METHODS}
        for q in questions:
            for m in METHODS:
                found = [h.chunk for h in svc.retriever.search(doc_id, q["question"], max(KS), m)]
                for k in KS:
                    got[m]["hit"][k].append(hit(found[:k], q))
                    if q["row"]:
                        got[m]["intact"][k].append(intact(found[:k], q, keys[q["page"]]))
        out["sets"][name] = {"ids": [q["id"] for q in questions], "got": got}
    return out


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
    report: dict = {"seconds": {s: r["seconds"] for s, r in runs.items()},
                    "chunks": {s: r["chunks"] for s, r in runs.items()}, "sets": {}}
    for name in runs["0"]["sets"]:
        ids = runs["0"]["sets"][name]["ids"]
        print(f"\n{name} ({len(ids)} questions)\n\n| method | k | measure | tables as prose only (baseline) | "
              f"tables as their own passages |\n|---|---|---|---|---|")
        for m in METHODS:
            for measure in ("hit", "intact"):
                for k in KS:
                    cells = []
                    for s in ("0", "1"):
                        got = runs[s]["sets"][name]["got"][m][measure][str(k)]
                        if not got:
                            continue
                        lo, hi = wilson_interval(sum(got), len(got))
                        cells.append(f"{sum(got) / len(got):.2f} [{lo:.2f}, {hi:.2f}] ({sum(got)}/{len(got)})")
                        report["sets"].setdefault(name, {})[f"{m} {measure}@{k} tables={s}"] = [sum(got), len(got)]
                    if cells and k == 3 or (cells and m == "hybrid"):
                        print(f"| {m} | {k} | {measure} | {cells[0]} | {cells[1]} |")
        misses = {s: [i for i, h in zip(ids, runs[s]["sets"][name]["got"]["hybrid"]["hit"]["3"], strict=True) if not h]
                  for s in ("0", "1")}
        print(f"\nhybrid misses at 3: prose only {misses['0']}; with tables {misses['1']}")
    print(f"\ningest of the sample: prose only {runs['0']['seconds']} s ({runs['0']['chunks']} chunks), with tables "
          f"{runs['1']['seconds']} s ({runs['1']['chunks']} chunks); stages {runs['0']['stages']} / {runs['1']['stages']}")
    print(json.dumps(report))


if __name__ == "__main__":
    main()

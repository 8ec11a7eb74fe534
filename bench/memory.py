"""Peak memory of an ingest as a PDF grows: the sample EIS's pages repeated into PDFs of 100, 300 and 900 pages,
each ingested (the one ingest operation, with its progress) in a fresh process and a fresh store, and the
process's peak resident set size read from the operating system when it ends.

    python bench/memory.py [--pages 100,300,900]

Each page of a build is a page of the sample with a line naming its place in the build ("Volume page 412"), so no
two pages are the same text. Baseline: the same process that only starts the services and loads the embedder (its
peak RSS), in the same run. Reported: peak RSS per build, its ratio to the 100-page build's, the ingest's
seconds, chunks, and how many progress reports it gave. The last line of stdout is JSON.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SAMPLE = ROOT / "data" / "eis" / "eis_Continental_United_States_Interceptor_Site.pdf"

# the child: ingest one PDF (or, with "-", only start the services and load the embedder), print JSON with its
# own peak RSS (ru_maxrss is in kilobytes on Linux)
CHILD = r'''
import json, resource, sys, time
from lib.app.services import get_services
svc = get_services()
svc.docs.index.embedder.count_tokens("warm up")
svc.docs.index.embedder.embed(["warm up"])
reports = []
out = {"seconds": 0.0, "chunks": 0}
if sys.argv[1] != "-":
    started = time.perf_counter()
    res = svc.docs.ingest_file(sys.argv[1], progress=lambda stage, frac, msg: reports.append(stage))
    out = {"seconds": round(time.perf_counter() - started, 1), "chunks": res.chunks, "pages": res.pages}
out["reports"] = len(reports)
out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
print(json.dumps(out))
'''


def build(pages: int, path: Path) -> Path:
    """A PDF of ``pages`` pages: the sample's pages in turn, each marked with its place in the build."""
    import pymupdf

    src = pymupdf.open(SAMPLE)
    out = pymupdf.open()
    for i in range(pages):
        out.insert_pdf(src, from_page=i % src.page_count, to_page=i % src.page_count)
        out[-1].insert_text((36, 20), f"Volume page {i + 1}", fontsize=7)
    out.save(path, garbage=3, deflate=True)
    return path


def run(pdf: str) -> dict:
    env = {**os.environ, "NEPAQA_HOME": tempfile.mkdtemp(prefix="nepaqa_bench_memory_"), "HF_HUB_OFFLINE": "1"}
    got = subprocess.run([sys.executable, "-c", CHILD, pdf], cwd=ROOT, env=env, capture_output=True, text=True,
                         check=True)
    return json.loads(got.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", default="100,300,900")
    sizes = [int(x) for x in ap.parse_args().pages.split(",")]
    folder = Path(tempfile.mkdtemp(prefix="nepaqa_memory_pdfs_"))
    base = run("-")
    print(f"baseline (services and embedder loaded, nothing ingested): peak RSS {base['peak_rss_mb']} MB")
    rows = {}
    for n in sizes:
        rows[n] = run(str(build(n, folder / f"build_{n}.pdf")))
        print(f"{n:>5} pages: peak RSS {rows[n]['peak_rss_mb']} MB, {rows[n]['seconds']} s, {rows[n]['chunks']} chunks, "
              f"{rows[n]['reports']} progress reports")
    first = rows[sizes[0]]["peak_rss_mb"]
    print("\n| pages | peak RSS (MB) | ratio to the smallest | above the baseline (MB) | seconds | chunks |")
    print("|---|---|---|---|---|---|")
    for n, r in rows.items():
        print(f"| {n} | {r['peak_rss_mb']} | {r['peak_rss_mb'] / first:.2f} | {r['peak_rss_mb'] - base['peak_rss_mb']:.1f} "
              f"| {r['seconds']} | {r['chunks']} |")
    print(json.dumps({"baseline_mb": base["peak_rss_mb"], "runs": rows}))


if __name__ == "__main__":
    main()

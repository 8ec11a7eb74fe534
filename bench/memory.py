"""Peak memory of an ingest as a PDF grows: the sample EIS's pages repeated into PDFs of 100, 300 and 900 pages,
each ingested (the one ingest operation, with its progress) in a fresh process and a fresh store. Reported per
build: the process's own peak resident set (VmHWM, read when the ingest returns) and its resident set sampled at
every progress report. A first child prepares the embedder in a model cache the measured children share, so
their peaks are the ingest's, not the model's preparation (that is the baseline's peak).

    python bench/memory.py [--pages 100,300,900]

Each build is the sample's 74 pages again and again (each copy shares its images and fonts, so a build is about
as large as the sample's copies: 42 MB at 900 pages), every page with a line naming its place in the build
("Volume page 412"). An earlier build inserted one page at a time, which copied the images for every page (543 MB
at 900 pages; `--copied-images` builds it again). Baseline: the same process that only starts the services and loads the embedder (its
peak RSS), in the same run. Reported: peak RSS per build, its ratio to the 100-page build's, the ingest's
seconds, chunks, and how many progress reports it gave. The last line of stdout is JSON.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SAMPLE = ROOT / "data" / "eis" / "eis_Continental_United_States_Interceptor_Site.pdf"

# the child: ingest one PDF (or, with "-", only start the services and load the embedder), print JSON with its
# own peak RSS: VmHWM, the high-water mark of this process's own memory. Not ru_maxrss: on Linux a child's
# ru_maxrss starts from its parent's resident set at the fork, so the parent's build of a 543 MB PDF (about 1 GB)
# was reported as the 900-page child's peak
CHILD = r'''
import json, sys, time
from lib.app.services import get_services
svc = get_services()
svc.docs.index.embedder.count_tokens("warm up")
svc.docs.index.embedder.embed(["warm up"])
reports = []


def rss_mb(field="VmRSS"):  # the resident set now (VmRSS), or its high-water mark (VmHWM), in MB
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field)) / 1024


before = rss_mb()
out = {"seconds": 0.0, "chunks": 0}
if sys.argv[1] != "-":
    started = time.perf_counter()
    res = svc.docs.ingest_file(sys.argv[1], progress=lambda stage, frac, msg: reports.append(rss_mb()))
    out = {"seconds": round(time.perf_counter() - started, 1), "chunks": res.chunks, "pages": res.pages}
out["reports"] = len(reports)
out["rss_before_mb"] = round(before, 1)
out["ingest_rss_mb"] = round(max(reports, default=before), 1)  # the most, sampled at every progress report
out["peak_rss_mb"] = round(rss_mb("VmHWM"), 1)
print(json.dumps(out))
'''


def build(pages: int, path: Path, copied: bool = False) -> Path:
    """A PDF of ``pages`` pages: the sample's pages in turn, each marked with its place in the build; ``copied``:
    inserted one page at a time, so each page carries its own copy of its images (a much larger file)."""
    import pymupdf

    src = pymupdf.open(SAMPLE)
    out = pymupdf.open()
    while out.page_count < pages:  # the sample whole each time (its images and fonts shared within one copy)
        if copied:
            i = out.page_count % src.page_count
            out.insert_pdf(src, from_page=i, to_page=i)
            continue
        out.insert_pdf(src, to_page=min(src.page_count, pages - out.page_count) - 1)
    for i, page in enumerate(out):
        page.insert_text((36, 20), f"Volume page {i + 1}", fontsize=7)
    out.save(path, garbage=3, deflate=True)
    return path


# One model cache for every child: the first (the baseline) prepares the ONNX embedder, and the measured ones only
# load it. Without it each child, in a fresh home, prepared the model itself with torch, so every baseline held torch
# (765 MB instead of about 230) and the ingest's own growth looked smaller against it than it is.
MODEL_CACHE = os.environ.get("NEPAQA_MODEL_CACHE") or tempfile.mkdtemp(prefix="nepaqa_bench_models_")


def run(pdf: str) -> dict:
    """One child: ``pdf`` ingested (or "-": nothing) in a fresh home, removed after (it holds the PDF's copy)."""
    with tempfile.TemporaryDirectory(prefix="nepaqa_bench_memory_") as home:
        env = {**os.environ, "NEPAQA_HOME": home, "HF_HUB_OFFLINE": "1", "NEPAQA_MODEL_CACHE": MODEL_CACHE}
        got = subprocess.run([sys.executable, "-c", CHILD, pdf], cwd=ROOT, env=env, capture_output=True, text=True)
    if got.returncode != 0:
        raise RuntimeError(f"the ingest of {pdf} failed (exit {got.returncode}):\n{got.stderr[-3000:]}")
    return json.loads(got.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", default="100,300,900")
    ap.add_argument("--copied-images", action="store_true",
                    help="each page inserted alone, with its own copy of its images (543 MB at 900 pages)")
    args = ap.parse_args()
    sizes = [int(x) for x in args.pages.split(",")]
    base = run("-")
    print(f"baseline (services and embedder loaded, nothing ingested): peak RSS {base['peak_rss_mb']} MB")
    rows = {}
    with tempfile.TemporaryDirectory(prefix="nepaqa_memory_pdfs_") as tmp:  # the builds: up to 750 MB, removed
        for n in sizes:
            pdf = build(n, Path(tmp) / f"build_{n}.pdf", args.copied_images)
            rows[n] = run(str(pdf)) | {"file_mb": round(pdf.stat().st_size / 1e6, 1)}
            pdf.unlink()
            print(f"{n:>5} pages: peak RSS {rows[n]['peak_rss_mb']} MB, {rows[n]['seconds']} s, {rows[n]['chunks']} "
                  f"chunks, {rows[n]['reports']} progress reports")
    first = rows[sizes[0]]["peak_rss_mb"]
    low = rows[sizes[0]]["ingest_rss_mb"]
    print("\n| pages | file (MB) | peak RSS (MB) | ratio | RSS during the ingest, most (MB) | ratio | growth in the "
          "ingest (MB) | seconds | chunks |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n, r in rows.items():
        print(f"| {n} | {r['file_mb']} | {r['peak_rss_mb']} | {r['peak_rss_mb'] / first:.2f} | {r['ingest_rss_mb']} | "
              f"{r['ingest_rss_mb'] / low:.2f} | {r['ingest_rss_mb'] - r['rss_before_mb']:.1f} | {r['seconds']} | "
              f"{r['chunks']} |")
    print(json.dumps({"baseline_mb": base["peak_rss_mb"], "runs": rows}))


if __name__ == "__main__":
    try:
        main()
    finally:
        if "NEPAQA_MODEL_CACHE" not in os.environ:  # this run's own prepared model
            shutil.rmtree(MODEL_CACHE, ignore_errors=True)

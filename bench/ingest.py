"""Ingest speed on a ~600-page EIS, in one run against two baselines:

1. embedding alone: the same chunks through the same model (the floor: ingest can't be faster);
2. a stock LangChain pipeline: PyPDFLoader + RecursiveCharacterTextSplitter(1000, 200) + the same embedder + Chroma.

    python bench/ingest.py [--copies 8]

Prints pages/s, chunks/s and the ratios ours/embedding-alone (goal ≤ 1.2) and stock/ours (goal > 1).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def build_big_pdf(src: Path, copies: int, out: Path) -> int:
    import pymupdf

    big = pymupdf.open()
    with pymupdf.open(src) as doc:
        for _ in range(copies):
            big.insert_pdf(doc)
    n = big.page_count
    big.save(out)
    big.close()
    return n


def stock_langchain(pdf: Path, model, persist: Path) -> tuple[float, int]:
    from langchain_chroma import Chroma
    from langchain_community.document_loaders import PyPDFLoader
    from langchain_core.embeddings import Embeddings
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    class SameEmbedder(Embeddings):
        def embed_documents(self, texts):
            return model.encode(texts, batch_size=32, normalize_embeddings=True, show_progress_bar=False).tolist()

        def embed_query(self, text):
            return self.embed_documents([text])[0]

    t = time.perf_counter()
    docs = PyPDFLoader(str(pdf)).load()
    chunks = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200).split_documents(docs)
    Chroma.from_documents(chunks, SameEmbedder(), persist_directory=str(persist), collection_name="stock")
    return time.perf_counter() - t, len(chunks)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--copies", type=int, default=8, help="copies of the 74-page sample (8 → 592 pages)")
    ap.add_argument("--skip-stock", action="store_true")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="nepaqa_bench_ingest_"))
    os.environ["NEPAQA_HOME"] = str(work / "home")

    from lib import config
    from lib.services import get_services

    pdf = work / "big_eis.pdf"
    pages = build_big_pdf(config.SAMPLE_PDF, args.copies, pdf)
    svc = get_services()
    emb = svc.docs.index.embedder
    emb.embed(["warm-up sentence so that no run pays the first-call cost"] * 8)

    t = time.perf_counter()
    res = svc.docs.ingest_file(str(pdf))
    ours = time.perf_counter() - t
    texts = [c.text for c in svc.docs.chunks(res.doc_id)]

    t = time.perf_counter()
    emb.embed(texts)
    embed_only = time.perf_counter() - t

    stock = stock_chunks = None
    if not args.skip_stock:
        stock, stock_chunks = stock_langchain(pdf, emb.model, work / "stock_chroma")

    print(f"PDF: {pages} pages ({pdf.stat().st_size / 1e6:.1f} MB), {res.chunks} chunks of ≤{emb.max_tokens} tokens")
    print(f"ours:            {ours:7.1f} s  {pages / ours:6.1f} pages/s  {res.chunks / ours:5.1f} chunks/s  stages {res.stage_seconds}")
    print(f"embedding alone: {embed_only:7.1f} s  {res.chunks / embed_only:5.1f} chunks/s")
    print(f"ratio ours / embedding alone: {ours / embed_only:.2f}x  (goal ≤ 1.2)")
    if stock is not None:
        print(f"stock LangChain: {stock:7.1f} s  {pages / stock:6.1f} pages/s  {stock_chunks} chunks  {stock_chunks / stock:5.1f} chunks/s")
        print(f"ratio stock / ours: {stock / ours:.2f}x  (goal > 1: ours is faster)")
    print(json.dumps({"pages": pages, "chunks": res.chunks, "ours_s": round(ours, 2), "embed_only_s": round(embed_only, 2),
                      "stock_s": round(stock, 2) if stock else None, "stock_chunks": stock_chunks,
                      "stages": res.stage_seconds}))


if __name__ == "__main__":
    main()

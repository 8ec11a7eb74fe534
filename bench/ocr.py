"""Scanned pages: seconds per page read by OCR, and how much of each page's text OCR recovers.

    python bench/ocr.py [--pages 20] [--dpi 200]

The first --pages content pages of the sample EIS are rendered at --dpi into a PDF of images only (a scan with no
text layer), and that PDF is read as the ingest reads it (``lib.documents.pdf.extract_pdf``: every page through
Tesseract). Baseline, in the same run: the same pages of the original, read from their text layer. Quality: the
share of each page's text-layer words that OCR read (a multiset of lower-cased words, punctuation aside), with
the median and the range over pages. The last line of stdout is JSON.
"""
from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SAMPLE = ROOT / "data" / "eis" / "eis_Continental_United_States_Interceptor_Site.pdf"
FIRST_CONTENT_PAGE = 9  # the sample's pages 1–8 are covers and contents (0-based index 8 is page 9)


def words(text: str) -> Counter:
    return Counter(w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=20)
    ap.add_argument("--dpi", type=int, default=200)
    args = ap.parse_args()
    import pymupdf

    from lib.documents import ocr
    from lib.documents.pdf import extract_pdf

    if ocr.tessdata() is None:
        raise SystemExit(f"error: {ocr.MISSING}.")
    src = pymupdf.open(SAMPLE)
    chosen = list(range(FIRST_CONTENT_PAGE - 1, FIRST_CONTENT_PAGE - 1 + args.pages))
    text_only, scans = pymupdf.open(), pymupdf.open()
    for i in chosen:
        text_only.insert_pdf(src, from_page=i, to_page=i)
        page = scans.new_page(width=src[i].rect.width, height=src[i].rect.height)
        page.insert_image(page.rect, pixmap=src[i].get_pixmap(dpi=args.dpi))
    text_bytes, scan_bytes = text_only.tobytes(), scans.tobytes()

    t = time.perf_counter()
    base = extract_pdf(text_bytes, "text layer", 10**9)
    base_s = time.perf_counter() - t
    stamps: list[float] = []  # each OCR page starts at one progress call and ends at the next (the last: "… read")

    def tick(frac: float, msg: str) -> None:
        stamps.append(time.perf_counter())

    t = time.perf_counter()
    read = extract_pdf(scan_bytes, "scans", 10**9, tick)
    ocr_s = time.perf_counter() - t
    per_page = [b - a for a, b in zip(stamps, stamps[1:], strict=False)]
    assert len(per_page) == args.pages, (len(stamps), args.pages)
    recall = []
    for b, o in zip(base.pages, read.pages, strict=True):
        want = words(b.text)
        if want:
            recall.append(sum((want & words(o.text)).values()) / sum(want.values()))
    out = {
        "pages": args.pages, "dpi": args.dpi, "ocr_pages": len(read.ocr_pages), "failed": len(read.ocr_failed),
        "ocr_seconds": round(ocr_s, 2), "ocr_s_per_page_median": round(statistics.median(per_page), 2),
        "ocr_s_per_page_range": [round(min(per_page), 2), round(max(per_page), 2)],
        "text_layer_seconds": round(base_s, 3), "text_layer_s_per_page": round(base_s / args.pages, 4),
        "ratio_ocr_to_text_layer": round(ocr_s / base_s, 1),
        "word_recall_median": round(statistics.median(recall), 3),
        "word_recall_range": [round(min(recall), 3), round(max(recall), 3)], "pages_with_words": len(recall),
    }
    print(f"| pages | dpi | OCR s/page, median [range] | text layer s/page | OCR / text layer | words recovered, "
          f"median [range] |\n|---|---|---|---|---|---|\n| {args.pages} | {args.dpi} | "
          f"{out['ocr_s_per_page_median']} [{out['ocr_s_per_page_range'][0]}, {out['ocr_s_per_page_range'][1]}] | "
          f"{out['text_layer_s_per_page']} | {out['ratio_ocr_to_text_layer']}× | {out['word_recall_median']} "
          f"[{out['word_recall_range'][0]}, {out['word_recall_range'][1]}] (n = {len(recall)}) |")
    print(json.dumps(out))


if __name__ == "__main__":
    main()

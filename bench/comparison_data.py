"""Builds the second sample EIS, data/eis/eis_Goldrush_Mine_Project_excerpts.pdf: a cover page, then the eight
distinct passages of the Goldrush Mine Project Final EIS (BLM, October 2023; a U.S. government work, public domain)
that NEPAQuAD 1.0 quotes, one a page, in the order the benchmark lists them. Run once; the PDF is shipped.

    python bench/comparison_data.py
"""
from __future__ import annotations

import csv
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = "eis_Goldrush_Mine_Project_FEIS_October_2023_508"
OUT = ROOT / "data" / "eis" / "eis_Goldrush_Mine_Project_excerpts.pdf"
COVER = ("Final Environmental Impact Statement\n\nGoldrush Mine Project\n\nU.S. Department of the Interior\n"
         "Bureau of Land Management\nMount Lewis Field Office, Nevada\n\nOctober 2023")
NOTE = ("Excerpts: the eight passages of this Final EIS quoted by the NEPAQuAD 1.0 benchmark, one per page. "
        "Not the full document.")


def main() -> None:
    import pymupdf

    with (ROOT / "data" / "nepa" / "NEPAQuAD1_train.csv").open(encoding="utf-8-sig") as fh:
        passages = list(dict.fromkeys(r["context"] for r in csv.DictReader(fh) if r["EIS_filename"] == SOURCE))
    doc = pymupdf.open()
    cover = doc.new_page()
    cover.insert_textbox(pymupdf.Rect(60, 150, 550, 480), COVER, fontsize=16, align=1)
    cover.insert_textbox(pymupdf.Rect(60, 700, 550, 760), NOTE, fontsize=8, align=1)
    for text in passages:
        page = doc.new_page()
        page.insert_textbox(pymupdf.Rect(50, 50, 560, 800), text, fontsize=9)
    doc.set_metadata({"title": "Goldrush Mine Project Final Environmental Impact Statement (excerpts)",
                      "creator": "NEPA QA Studio bench/comparison_data.py"})
    doc.save(OUT, garbage=4, deflate=True)
    print(f"{OUT.relative_to(ROOT)}: {len(passages) + 1} pages", file=sys.stderr)


if __name__ == "__main__":
    main()

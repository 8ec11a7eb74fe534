"""A three-volume EIS made from the sample EIS's pages, as agencies publish a large one: each volume a PDF with its
own cover (the project, the document type, the volume's title, the agency, the date), then its part of the text.

    python -m tests.collection.volume_set OUT_DIR   # writes volume_1.pdf, volume_2.pdf, volume_3.pdf
"""
from __future__ import annotations

import sys
from pathlib import Path

import pymupdf

from tests.conftest import SAMPLE_PDF
from tests.documents.cover_layouts import Case, build

# (file, the volume title its cover prints, the sample's pages it holds: 0-based, inclusive)
VOLUMES = (
    ("volume_1.pdf", "Volume I: Executive Summary and Proposed Action", (0, 24)),
    ("volume_2.pdf", "Volume II: Affected Environment", (25, 49)),
    ("volume_3.pdf", "Volume III: Environmental Consequences", (50, 73)),
)
PROJECT = "Continental United States Interceptor Site"


def cover(volume_title: str, path: Path) -> Path:
    return build(Case(path.stem, [[
        ("line", PROJECT, 22, True), ("line", "Final Environmental Impact Statement", 18, True),
        ("line", volume_title, 14), ("gap", 40),
        ("line", "Missile Defense Agency", 12), ("line", "U.S. Department of Defense", 12), ("gap", 30),
        ("line", "December 2016", 12)]], {}), path)


def build_volumes(folder: Path) -> list[Path]:
    """The three volumes, in order."""
    folder.mkdir(parents=True, exist_ok=True)
    src = pymupdf.open(SAMPLE_PDF)
    out = []
    for name, title, (first, last) in VOLUMES:
        path = folder / name
        doc = pymupdf.open(cover(title, folder / f"cover_{name}"))
        doc.insert_pdf(src, from_page=first, to_page=last)
        doc.save(path)
        doc.close()
        (folder / f"cover_{name}").unlink()
        out.append(path)
    src.close()
    return out


if __name__ == "__main__":
    for p in build_volumes(Path(sys.argv[1])):
        print(p)

"""MuPDF's cache of decoded fonts and images, emptied while a long PDF is read."""
from __future__ import annotations

EVERY = 64  # pages read between emptyings of the cache


def shrink() -> None:
    """Empty MuPDF's cache of decoded fonts and images (up to 256 MB by default, kept after a document closes), so
    a long PDF's reading does not hold what its early pages decoded; a page read later decodes what it needs."""
    import pymupdf  # loaded already by whoever read a page; imported here so this module costs nothing at start-up

    pymupdf.TOOLS.store_shrink(100)


def shrink_every(i: int) -> None:
    """Called with each page's index (from 0) before the page is read: empties the cache every ``EVERY`` pages."""
    if i and i % EVERY == 0:
        shrink()

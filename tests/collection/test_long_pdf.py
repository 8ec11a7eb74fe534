"""A 900-page PDF (the sample EIS's pages repeated, as bench/memory.py builds it) ingests whole, with progress all
the way, and the ingest's own memory at 900 pages stays within 1.3 times that at 100 pages. Each ingest runs in a
fresh process with a fresh store; the resident set is sampled at every progress report (the process's peak is set
while the embedder loads, before a page is read, so it could not show the ingest's growth)."""
from __future__ import annotations

import importlib.util

from tests.conftest import ROOT

_spec = importlib.util.spec_from_file_location("bench_memory", ROOT / "bench" / "memory.py")
assert _spec is not None and _spec.loader is not None
memory = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(memory)


def test_a_900_page_pdf_ingests_with_progress_and_memory_within_1_3_times_100_pages(tmp_path):
    runs = {n: memory.run(str(memory.build(n, tmp_path / f"build_{n}.pdf"))) for n in (100, 900)}
    small, large = runs[100], runs[900]
    assert large["pages"] == 900 and large["chunks"] > 8 * small["chunks"]  # every page indexed
    assert large["reports"] >= 900  # progress all the way (a report per batch of passages embedded, and more)
    ratio = large["ingest_rss_mb"] / small["ingest_rss_mb"]
    assert ratio <= 1.3, f"the ingest's memory grew {ratio:.2f}x from 100 to 900 pages: {runs}"

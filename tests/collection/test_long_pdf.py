"""A 900-page PDF built from the sample's pages ingests whole, with progress all the way, and its peak memory stays
within 1.3 times that of a 100-page build. The builds are bench/memory.py's with each page's images copied (543 MB
at 900 pages), so a file held whole in memory, or a cache that grows with the pages read, would show. Each ingest
runs in a fresh process with a fresh store; its peak is the process's own high-water mark (VmHWM), after a first
child has prepared the embedder the others load (so no child's peak is the model's preparation)."""
from __future__ import annotations

import importlib.util

import pytest

from tests.conftest import ROOT

_spec = importlib.util.spec_from_file_location("bench_memory", ROOT / "bench" / "memory.py")
assert _spec is not None and _spec.loader is not None
memory = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(memory)


@pytest.mark.slow  # about 2 minutes: left out by `bash .ci/run --fast`
def test_a_900_page_pdf_ingests_with_progress_and_peak_memory_within_1_3_times_100_pages(tmp_path):
    memory.run("-")  # prepares the embedder in the shared cache: the measured children only load it
    runs = {}
    for n in (100, 900):
        pdf = memory.build(n, tmp_path / f"build_{n}.pdf", copied=True)
        runs[n] = memory.run(str(pdf))
        pdf.unlink()
    small, large = runs[100], runs[900]
    assert large["pages"] == 900 and large["chunks"] > 8 * small["chunks"]  # every page indexed
    assert large["reports"] >= 900  # progress all the way (a report per batch of passages embedded, and more)
    ratio = large["peak_rss_mb"] / small["peak_rss_mb"]
    assert ratio <= 1.3, f"peak memory grew {ratio:.2f}x from 100 to 900 pages: {runs}"
    # and the ingest's own part (the peak less the process with the embedder loaded) grows no more: the loaded
    # model cannot hide growth
    growth = (large["peak_rss_mb"] - large["rss_before_mb"]) / (small["peak_rss_mb"] - small["rss_before_mb"])
    assert growth <= 1.3, f"the ingest's own memory grew {growth:.2f}x from 100 to 900 pages: {runs}"
